//! One clean card, and for every lint rule a card that breaks only that rule.

use serde_json::{json, Value};

use super::lint::{lint_documents, LintInput, LintReport, Severity};
use crate::policy::PolicyVocab;

fn vocab() -> PolicyVocab {
    crate::policy::builtin_pack("mn29").expect("mn29 pack is built in").vocab(&[])
}

fn clean() -> Value {
    json!({
      "clause_card_id": "CardRep_9_CareManagement_1",
      "clause_card_definition": "A patient dies or is seriously hurt after receiving a drug despite an allergy recorded beforehand.",
      "clause_id": "CareManagement_1_MedicationError",
      "event_type": "Reportable",
      "fixed_fields": {
        "governing_legal_basis": {
          "meaning": "Harm from a medication error is covered; the recommendation sets the harm bar.",
          "value": ["Care Management Events clause 1", "General Recommendation 1"]
        },
        "boundary_conditions": {
          "serious_outcome_present": {
            "value": true,
            "meaning": "The patient died or met the serious-injury definition.",
            "corresponding_basic_event_elements": ["outcome_type", "outcome_detail"]
          },
          "allergy_known_before_dose": {
            "value": true,
            "meaning": "The allergy was on record before the drug was given.",
            "corresponding_basic_event_elements": ["allergy_record"]
          }
        }
      },
      "basic_event_elements": {
        "outcome_type": {
          "field_type": "enum",
          "meaning": "Kind of outcome.",
          "allowed_content": "one allowed value",
          "disallowed_content": "none",
          "allowed_values": ["death", "serious_injury"]
        },
        "outcome_detail": {
          "field_type": "string",
          "meaning": "Clinical course after the dose.",
          "allowed_content": "ICU stay, duration",
          "disallowed_content": "verdict words"
        },
        "allergy_record": {
          "field_type": "string",
          "meaning": "Where the allergy was documented.",
          "allowed_content": ["allergy band", "pharmacy profile"],
          "disallowed_content": "verdict words"
        }
      },
      "constraints_on_basic_event_elements_instantiation": [
        "Slot values never say reportable or name a clause."
      ],
      "missing_information_variants": [
        {
          "missing_variant_id": "missing_allergy_history",
          "summary": "The first report gives the dose and the outcome but not the allergy history.",
          "masked_boundary_conditions": ["allergy_known_before_dose"],
          "masked_basic_event_elements": ["allergy_record"],
          "why_reasonable_in_real_world": "The night nurse filed before pharmacy reviewed the profile.",
          "why_not_classifiable_from_remaining_event_description": "Without the history it also fits CardNonrep_1_CareManagement_1."
        }
      ]
    })
}

/// A ruling-out line for each neighbour of Care Management clause 1 in the mn29 pack.
fn rule_out_neighbours(v: &mut Value) {
    v["x_ruled_out"] = json!({
        "ProductOrDevice_2_DeviceMisuseOrMalfunction": "The drug went in by hand from a syringe; no pump or other device was used.",
        "Surgical_5_DeathOfHealthyPatient": "No surgery or invasive procedure took place around the dose."
    });
}

fn uncertain_clean() -> Value {
    let mut v = clean();
    rule_out_neighbours(&mut v);
    v["clause_card_id"] = json!("CardUnc_9_CareManagement_1");
    v["event_type"] = json!("Uncertain");
    v.as_object_mut().unwrap().remove("missing_information_variants");
    v["constraints_on_basic_event_elements_instantiation"] = json!([
        "Never use the words \"uncertain\", \"uncertainty\", \"indeterminate\", \"escalate\", \"escalation\", \"inconclusive\", \"reportable\" or \"non-reportable\" in slot values or the narrative."
    ]);
    v
}

fn lint(docs: Vec<Value>) -> LintReport {
    let inputs: Vec<LintInput> =
        docs.into_iter().enumerate().map(|(i, value)| LintInput { path: format!("card{i}.json"), value }).collect();
    lint_documents(&inputs, &vocab())
}

/// The report has findings of exactly one rule; returns their pointers.
fn only(report: &LintReport, rule: &str) -> Vec<String> {
    assert!(!report.problems.is_empty(), "expected a {rule} finding, got none");
    for p in &report.problems {
        assert_eq!(p.rule, rule, "unexpected finding {p:?}");
    }
    report.problems.iter().map(|p| p.pointer.clone()).collect()
}

#[test]
fn clean_cards_pass() {
    assert_eq!(lint(vec![clean()]).problems, vec![]);
    assert_eq!(lint(vec![uncertain_clean()]).problems, vec![]);
}

#[test]
fn schema_rule() {
    let mut v = clean();
    v.as_object_mut().unwrap().remove("clause_card_definition");
    let r = lint(vec![v]);
    assert_eq!(only(&r, "schema"), vec![""]);
    assert_eq!(r.errors, 1);
}

#[test]
fn bc_no_elements() {
    let mut v = clean();
    v["fixed_fields"]["boundary_conditions"]["allergy_known_before_dose"]["corresponding_basic_event_elements"] =
        json!([]);
    // allergy_record is now unused as well; map it to the other condition to keep one rule broken.
    v["fixed_fields"]["boundary_conditions"]["serious_outcome_present"]["corresponding_basic_event_elements"] =
        json!(["outcome_type", "outcome_detail", "allergy_record"]);
    v.as_object_mut().unwrap().remove("missing_information_variants");
    let r = lint(vec![v]);
    assert_eq!(
        only(&r, "bc-no-elements"),
        vec!["/fixed_fields/boundary_conditions/allergy_known_before_dose/corresponding_basic_event_elements"]
    );
}

#[test]
fn bc_unknown_element() {
    let mut v = clean();
    v["fixed_fields"]["boundary_conditions"]["serious_outcome_present"]["corresponding_basic_event_elements"] =
        json!(["outcome_type", "outcome_detail", "outcome_detial"]);
    let r = lint(vec![v]);
    assert_eq!(
        only(&r, "bc-unknown-element"),
        vec!["/fixed_fields/boundary_conditions/serious_outcome_present/corresponding_basic_event_elements/2"]
    );
    assert!(r.problems[0].message.contains("Did you mean \"outcome_detail\""), "{}", r.problems[0].message);
}

#[test]
fn element_unused() {
    let mut v = clean();
    v["basic_event_elements"]["ward_name"] =
        json!({"field_type": "string", "meaning": "Ward.", "allowed_content": "any", "disallowed_content": "none"});
    assert_eq!(only(&lint(vec![v]), "element-unused"), vec!["/basic_event_elements/ward_name"]);
}

#[test]
fn enum_no_values() {
    let mut v = clean();
    v["basic_event_elements"]["outcome_type"].as_object_mut().unwrap().remove("allowed_values");
    assert_eq!(only(&lint(vec![v.clone()]), "enum-no-values"), vec!["/basic_event_elements/outcome_type"]);
    v["basic_event_elements"]["outcome_type"]["allowed_values"] = json!([]);
    assert_eq!(only(&lint(vec![v]), "enum-no-values"), vec!["/basic_event_elements/outcome_type"]);
}

#[test]
fn legal_basis_empty() {
    let mut v = clean();
    v["fixed_fields"]["governing_legal_basis"]["value"] = json!([]);
    assert_eq!(only(&lint(vec![v]), "legal-basis-empty"), vec!["/fixed_fields/governing_legal_basis/value"]);
}

#[test]
fn legal_basis_unknown() {
    let mut v = clean();
    v["fixed_fields"]["governing_legal_basis"]["value"] =
        json!(["Care Management Events clause 1", "General Recomendation 1"]);
    let r = lint(vec![v]);
    assert_eq!(only(&r, "legal-basis-unknown"), vec!["/fixed_fields/governing_legal_basis/value/1"]);
    assert!(r.problems[0].message.contains("Did you mean \"General Recommendation 1\""));
}

#[test]
fn clause_unknown() {
    let mut v = clean();
    v["clause_id"] = json!("CareManagement_1_MedicationErrors");
    let r = lint(vec![v]);
    assert_eq!(only(&r, "clause-unknown"), vec!["/clause_id"]);
    assert!(r.problems[0].message.contains("CareManagement_1_MedicationError\""));
}

#[test]
fn variant_on_uncertain() {
    let mut v = uncertain_clean();
    v["missing_information_variants"] = clean()["missing_information_variants"].clone();
    assert_eq!(only(&lint(vec![v]), "variant-on-uncertain"), vec!["/missing_information_variants"]);
}

#[test]
fn variant_id() {
    let mut v = clean();
    v["missing_information_variants"][0]["missing_variant_id"] = json!("AllergyHistoryMissing");
    assert_eq!(only(&lint(vec![v]), "variant-id"), vec!["/missing_information_variants/0/missing_variant_id"]);
    // a repeated id
    let mut v = clean();
    let first = v["missing_information_variants"][0].clone();
    v["missing_information_variants"].as_array_mut().unwrap().push(first);
    assert_eq!(only(&lint(vec![v]), "variant-id"), vec!["/missing_information_variants/1/missing_variant_id"]);
}

#[test]
fn variant_unknown_name() {
    let mut v = clean();
    v["missing_information_variants"][0]["masked_boundary_conditions"] =
        json!(["allergy_known_before_dose", "dose_was_wrong"]);
    assert_eq!(
        only(&lint(vec![v]), "variant-unknown-name"),
        vec!["/missing_information_variants/0/masked_boundary_conditions/1"]
    );
    let mut v = clean();
    v["missing_information_variants"][0]["masked_basic_event_elements"] = json!(["allergy_record", "allergy_recrod"]);
    assert_eq!(
        only(&lint(vec![v]), "variant-unknown-name"),
        vec!["/missing_information_variants/0/masked_basic_event_elements/1"]
    );
}

#[test]
fn variant_incoherent() {
    // hides a condition but leaves one of its elements visible
    let mut v = clean();
    v["missing_information_variants"][0]["masked_boundary_conditions"] = json!(["serious_outcome_present"]);
    v["missing_information_variants"][0]["masked_basic_event_elements"] = json!(["outcome_type"]);
    assert_eq!(
        only(&lint(vec![v]), "variant-incoherent"),
        vec!["/missing_information_variants/0/masked_boundary_conditions/0"]
    );
    // hides an element that serves no masked condition
    let mut v = clean();
    v["missing_information_variants"][0]["masked_basic_event_elements"] = json!(["allergy_record", "outcome_detail"]);
    assert_eq!(
        only(&lint(vec![v]), "variant-incoherent"),
        vec!["/missing_information_variants/0/masked_basic_event_elements/1"]
    );
}

#[test]
fn uncertain_banned_vocab() {
    let mut v = uncertain_clean();
    v["constraints_on_basic_event_elements_instantiation"] =
        json!(["Never use the words \"uncertain\", \"uncertainty\", \"indeterminate\", \"escalate\", \"escalation\" or \"reportable\"."]);
    let r = lint(vec![v]);
    assert_eq!(only(&r, "uncertain-banned-vocab"), vec!["/constraints_on_basic_event_elements_instantiation"]);
    let m = &r.problems[0].message;
    assert!(m.contains("\"inconclusive\"") && m.contains("\"non-reportable\""), "{m}");
    // mentioning the words without a prohibition does not count
    let mut v = uncertain_clean();
    v["constraints_on_basic_event_elements_instantiation"] =
        json!(["The narrative describes uncertain uncertainty indeterminate escalate escalation inconclusive reportable non-reportable facts."]);
    only(&lint(vec![v]), "uncertain-banned-vocab");
}

#[test]
fn duplicate_card_id() {
    let mut other = clean();
    other["fixed_fields"]["boundary_conditions"]["allergy_known_before_dose"]["value"] = json!(false);
    let r = lint(vec![clean(), other]);
    assert_eq!(only(&r, "duplicate-card-id"), vec!["/clause_card_id"]);
    assert_eq!(r.problems[0].path, "card1.json");
    assert!(r.problems[0].message.contains("card0.json"));
}

#[test]
fn overlapping_cards() {
    let mut other = clean();
    other["clause_card_id"] = json!("CardRep_10_CareManagement_1");
    let r = lint(vec![clean(), other]);
    assert_eq!(only(&r, "overlapping-cards"), vec!["/fixed_fields/boundary_conditions"]);
    assert_eq!(r.problems[0].severity, Severity::Warning);
    assert_eq!((r.errors, r.warnings), (0, 1));
    // a different truth value on one condition is not an overlap
    let mut third = clean();
    third["clause_card_id"] = json!("CardNonrep_10_CareManagement_1");
    third["event_type"] = json!("Non_Reportable");
    third["fixed_fields"]["boundary_conditions"]["allergy_known_before_dose"]["value"] = json!(false);
    rule_out_neighbours(&mut third);
    assert_eq!(lint(vec![clean(), third]).problems, vec![]);
}

#[test]
fn name_style() {
    let mut v = clean();
    let el = v["basic_event_elements"]["allergy_record"].clone();
    v["basic_event_elements"].as_object_mut().unwrap().shift_remove("allergy_record");
    v["basic_event_elements"]["AllergyRecord"] = el;
    v["fixed_fields"]["boundary_conditions"]["allergy_known_before_dose"]["corresponding_basic_event_elements"] =
        json!(["AllergyRecord"]);
    v["missing_information_variants"][0]["masked_basic_event_elements"] = json!(["AllergyRecord"]);
    let r = lint(vec![v]);
    assert_eq!(only(&r, "name-style"), vec!["/basic_event_elements/AllergyRecord"]);
    assert_eq!(r.errors, 0);
}

#[test]
fn pointers_escape_special_characters() {
    let mut v = clean();
    v["basic_event_elements"]["a/b~c"] =
        json!({"field_type": "string", "meaning": "x", "allowed_content": "x", "disallowed_content": "x"});
    let r = lint(vec![v]);
    assert!(r.problems.iter().any(|p| p.rule == "element-unused" && p.pointer == "/basic_event_elements/a~1b~0c"));
}

#[test]
fn neighbour_not_ruled_out() {
    // A Reportable card needs no ruling-out; a Non_Reportable one does, for every neighbour.
    assert_eq!(lint(vec![clean()]).problems, vec![]);
    let mut v = clean();
    v["clause_card_id"] = json!("CardNonrep_9_CareManagement_1");
    v["event_type"] = json!("Non_Reportable");
    v["x_ruled_out"] = json!({
        "ProductOrDevice_2_DeviceMisuseOrMalfunction": "The drug went in by hand; no pump was used."
    });
    let r = lint(vec![v.clone()]);
    assert_eq!(only(&r, "neighbour-not-ruled-out"), vec!["/x_ruled_out"]);
    assert_eq!(r.errors, 1);
    let m = &r.problems[0].message;
    assert!(m.contains("Surgical_5_DeathOfHealthyPatient") && m.contains("Surgical Events clause 5"), "{m}");
    assert!(!m.contains("ProductOrDevice_2"), "{m}");
    // an entry with no text does not count
    v["x_ruled_out"]["Surgical_5_DeathOfHealthyPatient"] = json!("  ");
    only(&lint(vec![v.clone()]), "neighbour-not-ruled-out");
    // an x_ruled_out entry satisfies the rule ...
    v["x_ruled_out"]["Surgical_5_DeathOfHealthyPatient"] = json!("No procedure was under way.");
    assert_eq!(lint(vec![v.clone()]).problems, vec![]);
    // ... and so does a constraint naming the clause by label (or by id)
    v.as_object_mut().unwrap().remove("x_ruled_out");
    v["constraints_on_basic_event_elements_instantiation"] = json!([
        "Slot values never say reportable or name a clause.",
        "To rule out Surgical Events clause 5, no surgery or invasive procedure takes place.",
        "To rule out ProductOrDevice_2_DeviceMisuseOrMalfunction, the dose is given by hand."
    ]);
    assert_eq!(lint(vec![v.clone()]).problems, vec![]);
    // Uncertain cards are held to the same rule
    let mut u = uncertain_clean();
    u.as_object_mut().unwrap().remove("x_ruled_out");
    let r = lint(vec![u]);
    assert_eq!(only(&r, "neighbour-not-ruled-out"), vec!["/x_ruled_out", "/x_ruled_out"]);
}
