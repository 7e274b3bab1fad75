//! The Results report is kept in the store, so a later start shows it without scoring every
//! trajectory again, and only while none of the data it was computed from has changed.

use psebench::api::results::ResultsRequest;
use psebench::api::Engine;
use psebench::metrics::MetricsOptions;

/// Where the engine keeps the last report (`settings`).
const STORED: &str = "results_report";

fn stored(e: &Engine) -> Option<String> {
    e.store().with_read(|c| psebench::store::settings::get(c, STORED)).unwrap()
}

/// The report is written by a background thread after the request returns: wait for it.
fn wait_stored(e: &Engine) -> String {
    for _ in 0..500 {
        if let Some(s) = stored(e) {
            return s;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("the report was never stored");
}

#[test]
fn a_report_is_read_back_on_the_next_start_until_its_data_changes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("store.db");
    let (cases, trajectories) = psebench::metrics::synthetic_benchmark(40, 3, 1);
    let (cases_path, trajectories_path) = (dir.path().join("cases.jsonl"), dir.path().join("t.jsonl"));
    psebench::case::io::write_cases(&cases_path, &cases).unwrap();
    psebench::trajectory::io::write_trajectories(&trajectories_path, &trajectories).unwrap();

    let e = Engine::open(&path).unwrap();
    e.cases_import(&cases_path, false, "imported").unwrap();
    let runs = e.evaluation_import(&trajectories_path).unwrap();
    let req = ResultsRequest { run_ids: runs.clone() };
    let first = e.results_overview(&req).unwrap();
    assert_eq!(first.report, e.metrics_for_runs(&runs, &MetricsOptions::default()).unwrap());
    let text = wait_stored(&e);
    drop(e);

    // A later start: the same numbers, tables and charts, bit for bit, and the case grid.
    let e = Engine::open(&path).unwrap();
    let again = e.results_overview(&req).unwrap();
    assert_eq!(again.report, first.report);
    assert_eq!(again.tables, first.tables);
    assert_eq!(again.charts, first.charts);
    assert_eq!(again.policy, first.policy);
    let grid = e.results_grid(&req).unwrap();
    assert_eq!((grid.models.len(), grid.case_ids.len()), (3, 40));

    // It is the stored copy that is shown: a marked copy shows through on the next start.
    let model = first.report.models[0].model.clone();
    let marked = text.replace(&format!("\"{model}\""), "\"marked copy\"");
    assert_ne!(marked, text);
    e.store().with_conn(|c| psebench::store::settings::set(c, STORED, &marked)).unwrap();
    drop(e);
    let e = Engine::open(&path).unwrap();
    assert_eq!(e.results_overview(&req).unwrap().report.models[0].model, "marked copy");

    // Other runs: computed, not the stored copy of these.
    let some = ResultsRequest { run_ids: runs[..2].to_vec() };
    let two = e.results_overview(&some).unwrap();
    assert_eq!(two.report, e.metrics_for_runs(&runs[..2], &MetricsOptions::default()).unwrap());
    drop(e);

    // Any change to the data a report reads (here the cases, imported again with one narrative
    // changed) makes the next start compute it afresh.
    let e = Engine::open(&path).unwrap();
    e.store().with_conn(|c| psebench::store::settings::set(c, STORED, &marked)).unwrap();
    let mut changed = cases.clone();
    changed[0].narrative.push_str(" (edited)");
    psebench::case::io::write_cases(&cases_path, &changed).unwrap();
    e.cases_import(&cases_path, true, "imported").unwrap();
    drop(e);
    let e = Engine::open(&path).unwrap();
    let fresh = e.results_overview(&req).unwrap();
    assert_eq!(fresh.report, first.report);
    assert_eq!(fresh.report.models[0].model, model);
}
