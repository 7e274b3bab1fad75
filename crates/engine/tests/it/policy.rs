//! The MN29 pack and official-text import.

use crate::common::{temp_engine, write};
use psebench::api::policy::PolicyImportRequest;

const SHARED_CLAUSES: &str = include_str!("../../../../../shared/policy/mn29/clauses.json");
const SHARED_GUIDANCE: &str = include_str!("../../../../../shared/policy/mn29/guidance.json");

#[test]
fn mn29_pack_matches_the_researched_ids_exactly() {
    let (_d, e) = temp_engine();
    let v = e.policy_show("mn29").unwrap();
    let shared: Vec<serde_json::Value> = serde_json::from_str(SHARED_CLAUSES).unwrap();
    assert_eq!(v.clauses.len(), 29);
    for (ours, theirs) in v.clauses.iter().zip(&shared) {
        assert_eq!(ours.clause_id, theirs["clause_id"].as_str().unwrap());
        assert_eq!(ours.label, theirs["label"].as_str().unwrap());
        assert_eq!(ours.category, theirs["category"].as_str().unwrap());
        assert_eq!(ours.local_no as u64, theirs["local_no"].as_u64().unwrap());
        assert!(!ours.summary.is_empty() && !ours.short_title.is_empty());
    }
    let guidance: Vec<serde_json::Value> = serde_json::from_str(SHARED_GUIDANCE).unwrap();
    let ids: Vec<&str> = guidance.iter().map(|g| g["id"].as_str().unwrap()).collect();
    assert_eq!(v.guidance.iter().map(|g| g.id.as_str()).collect::<Vec<_>>(), ids);
    for g in &v.guidance {
        assert!(
            ["confirmed", "partially confirmed", "provisional"].contains(&g.status.as_str()),
            "{}: {}",
            g.id,
            g.status
        );
    }
    // evidence = clause labels + guidance ids
    assert_eq!(v.evidence.len(), 29 + ids.len());
    assert!(v.evidence.iter().any(|e| e.id == "General Recommendation 1" && e.kind == "guidance"));
    assert!(v.evidence.iter().any(|e| e.id == "Surgical Events clause 1" && e.kind == "clause"));
    assert_eq!(v.edition, "summary");
    assert!(!v.edition_notice.is_empty());
}

#[test]
fn official_text_is_split_by_heading_and_matched_without_losing_summaries() {
    let (dir, e) = temp_engine();
    let clauses = write(
        dir.path(),
        "statute.md",
        "# Minn. Stat. 144.7065\n\nIntro.\n\n## Subd. 2(1) Wrong body part\nOfficial wording one.\n\n## Care Management Events clause 1\nOfficial wording two.\n",
    );
    let guidance = write(dir.path(), "guidance.md", "# GR 1 Serious injury\nText.\n\n## General Recommendation 3 — associated with\nMore.\n\n## Appendix A: Definitions\nDefs.\n");
    let r = e
        .policy_import(&PolicyImportRequest { policy: "mn29".into(), clauses: Some(clauses), guidance: Some(guidance) })
        .unwrap();
    assert_eq!(r.documents[0].matched, vec!["Surgical Events clause 1", "Care Management Events clause 1"]);
    assert_eq!(r.documents[0].new_evidence_ids, vec!["Minn. Stat. 144.7065"]);
    assert_eq!(r.documents[1].matched, vec!["General Recommendation 1", "General Recommendation 3"]);
    assert_eq!(r.documents[1].new_evidence_ids, vec!["Appendix A: Definitions"]);
    let v = e.policy_show("mn29").unwrap();
    assert!(v.official_text.clauses && v.official_text.guidance);
    assert!(v.evidence.iter().any(|x| x.id == "Appendix A: Definitions" && x.kind == "official"));
    let s = v.official_sections.iter().find(|s| s.evidence_id == "Care Management Events clause 1").unwrap();
    assert_eq!(s.body, "Official wording two.");
    assert!(v.clauses.iter().all(|c| !c.summary.is_empty()), "summaries are kept");
    // cards may now cite the new identifiers
    let lint = e.card_check(
        &serde_json::to_string(&{
            let mut c = crate::common::card("CardOfficial_1");
            c["fixed_fields"]["governing_legal_basis"]["value"] = serde_json::json!(["Appendix A: Definitions"]);
            c
        })
        .unwrap(),
        "mn29",
    );
    assert_eq!(lint.unwrap().errors, 0);
}
