use psebench::api::Engine;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

pub fn temp_engine() -> (tempfile::TempDir, Engine) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("store.db");
    seeded_store(&db);
    let engine = Engine::open(&db).unwrap();
    (dir, engine)
}

/// A new store at `db` (unless one is there) already seeded: see `put_seeded_store`.
pub fn seeded_store(db: &Path) {
    psebench::api::seeded_copy::put_seeded_store(db).unwrap();
}

pub fn write(dir: &Path, name: &str, contents: impl AsRef<[u8]>) -> PathBuf {
    let p = dir.join(name);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(&p, contents).unwrap();
    p
}

/// A valid Reportable card for Care Management clause 1 with one variant.
pub fn card(id: &str) -> Value {
    json!({
      "clause_card_id": id,
      "clause_card_definition": "A patient is harmed after a drug is given despite an allergy recorded before the dose.",
      "clause_id": "CareManagement_1_MedicationError",
      "event_type": "Reportable",
      "fixed_fields": {
        "governing_legal_basis": {"meaning": "Covered medication error.", "value": ["Care Management Events clause 1"]},
        "boundary_conditions": {
          "serious_outcome_present": {"value": true, "meaning": "Death or serious injury.", "corresponding_basic_event_elements": ["outcome_type"]},
          "allergy_known_before_dose": {"value": true, "meaning": "Allergy on record first.", "corresponding_basic_event_elements": ["allergy_record"]}
        }
      },
      "basic_event_elements": {
        "outcome_type": {"field_type": "enum", "meaning": "Outcome.", "allowed_content": "x", "disallowed_content": "y", "allowed_values": ["death", "serious_injury"]},
        "allergy_record": {"field_type": "string", "meaning": "Where documented.", "allowed_content": "x", "disallowed_content": "y"}
      },
      "constraints_on_basic_event_elements_instantiation": ["Never write reportable."]
    })
}

pub fn pretty(v: &Value) -> String {
    serde_json::to_string_pretty(v).unwrap()
}

/// A valid case line for the card above.
pub fn case(id: &str) -> Value {
    json!({
      "case_id": id, "case_type": "complete", "policy": "mn29",
      "clause_id": "CareManagement_1_MedicationError", "clause_card_id": "CardRep_1_CareManagement_1",
      "missing_variant_id": null, "gold_verdict": "Reportable", "gold_clause": "Care Management Events clause 1",
      "gold_legal_basis": ["Care Management Events clause 1"],
      "boundary_conditions": [{"name": "serious_outcome_present", "meaning": "Death or serious injury.", "value": true}],
      "elements": [{"name": "outcome_type", "meaning": "Outcome.", "value": "death"}, {"name": "allergy_record", "meaning": "Where.", "value": "banner"}],
      "masked_elements": [], "narrative": "The nurse gave the drug.", "anchor_id": null, "x_tool": {"kept": true}
    })
}
