//! The built-in library and demo data: everything loads, lints clean, and is consistent.

use psebench::api::cards::CardFilter;

use crate::common::temp_engine;

#[test]
fn builtin_data_loads_without_problems() {
    assert_eq!(psebench::builtin::builtin_errors(), None);
    for f in psebench::builtin::library_card_files("mn29") {
        assert_eq!(psebench::api::builtin_card_problem(f.text), None, "{}", f.path);
    }
}

#[test]
fn builtin_library_lints_without_errors_or_overlaps() {
    let (_d, e) = temp_engine();
    let report = e.cards_lint_library("mn29").unwrap();
    let shown: Vec<String> = report.problems.iter().take(20).map(|p| format!("{} {} {} {}", p.path, p.rule, p.pointer, p.message)).collect();
    assert_eq!(report.errors, 0, "{}", shown.join("\n"));
    assert!(!report.problems.iter().any(|p| p.rule == "overlapping-cards"), "{}", shown.join("\n"));
    let cards = e.cards_list(&CardFilter::default()).unwrap();
    assert_eq!(cards.len(), psebench::builtin::library_card_files("mn29").len());
    assert!(cards.iter().all(|c| c.status == "approved"));
}
