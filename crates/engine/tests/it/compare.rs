//! Runs shown together say when they are not comparable (issue 27, item 2), through the real HTTP
//! client against the loopback mock: a studio and a paper run on the same cases are marked as
//! differing in protocol in the comparability, the metrics, the tables, the charts and the report
//! files, yet are still paired case by case; a run on fewer cases is refused a paired test with a
//! plain sentence.

use psebench::evaluation::EvaluationRunRequest;
use psebench::mock::MockServer;
use psebench::protocol::Protocol;
use psebench::results::ResultsRequest;

fn request(file: &std::path::Path, protocol: Protocol) -> EvaluationRunRequest {
    EvaluationRunRequest {
        cases: file.display().to_string(),
        model: "asker".into(),
        info_model: "info".into(),
        judge_model: "judge".into(),
        turns: 4,
        concurrency: 2,
        protocol,
        ..Default::default()
    }
}

async fn run(e: &psebench::context::Engine, req: &EvaluationRunRequest) -> String {
    let run = e.evaluation_create(req).unwrap();
    let s = e.evaluation_execute(&run).await.unwrap();
    assert_eq!(s.status, "completed", "{:?}", s.message);
    run
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_paper_run_beside_a_studio_run_is_marked_and_a_run_on_other_cases_is_not_paired() {
    let mock = MockServer::start(super::eval::script(), 0).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let e = super::eval::engine(dir.path());
    super::eval::register(&e, &mock);
    let file = super::eval::cases_file(&e, dir.path());
    let studio = run(&e, &request(&file, Protocol::Studio)).await;
    let paper = run(&e, &request(&file, Protocol::Paper)).await;
    let both = vec![studio.clone(), paper.clone()];

    // The paper run is the one marked (the tie goes to the first run shown), by protocol.
    let c = e.runs_comparability(&both).unwrap();
    assert!(!c.comparable, "{c:?}");
    assert!(c.differing.contains(&"protocol".to_string()));
    let sentence = c.sentence.clone().unwrap();
    assert!(sentence.contains("protocol") && sentence.contains("compare their numbers with care"), "{sentence}");
    assert!(c.marks[0].differs.is_empty());
    assert!(c.marks[1].differs.contains(&"protocol: paper".to_string()), "{:?}", c.marks[1]);
    assert_eq!(c.marks[1].protocol.as_deref(), Some("paper"));
    // Two runs of one model: each is named with its run, as the report names them.
    assert_eq!(c.marks[1].model, format!("asker [{paper}]"));

    // The metrics carry it, and the runs (same cases) are still paired.
    let opts = psebench::metrics::MetricsOptions { bootstrap_resamples: 0, ..Default::default() };
    let report = e.metrics_for_runs(&both, &opts).unwrap();
    assert_eq!(report.comparability.as_ref(), Some(&c));
    assert!(report.models.iter().any(|m| m.model == c.marks[1].model));
    assert_eq!(report.paired_tests.len(), 1, "same cases: paired");
    assert!(report.refused_pairs.is_empty());

    // The tables and charts of the Results screen mark the paper run's model and say why.
    let overview = e.results_overview(&ResultsRequest { run_ids: both.clone() }).unwrap();
    assert_eq!(overview.report.comparability.as_ref().map(|c| c.comparable), Some(false));
    let overall = &overview.tables[0];
    let names: Vec<String> = overall.rows.iter().filter_map(|r| r[0].plain()).collect();
    assert!(names.contains(&format!("asker [{paper}] †")), "{names:?}");
    assert!(names.contains(&format!("asker [{studio}]")), "{names:?}");
    assert!(overall.caption.contains(&sentence), "{}", overall.caption);
    assert!(overall.to_markdown().contains("protocol: paper"));
    for chart in &overview.charts {
        assert!(chart.caption.contains(&sentence), "{}: {}", chart.id, chart.caption);
    }
    let scatter = overview.charts.iter().find(|c| c.id == "tokens_vs_m1").unwrap();
    assert!(scatter.svg.contains('†'), "the marked model's label carries the dagger");

    // So do the report files.
    let out = dir.path().join("report");
    let (_, files) = e.report_for_runs(&both, &out).unwrap();
    assert!(!files.is_empty());
    let index = std::fs::read_to_string(out.join("index.md")).unwrap();
    assert!(index.contains("Not directly comparable") && index.contains(&sentence), "{index}");
    let csv = std::fs::read_to_string(out.join(format!("tables/{}.csv", overall.id))).unwrap();
    assert!(csv.contains(&format!("asker [{paper}] †")), "{csv}");
    let tex = std::fs::read_to_string(out.join(format!("tables/{}.tex", overall.id))).unwrap();
    assert!(tex.contains("protocol: paper"), "{tex}");

    // A run on two of the four cases: not paired with the full one, in a plain sentence.
    let few = dir.path().join("two.jsonl");
    let two: Vec<_> = super::eval::CASES[..2].iter().map(|id| e.case_show(id).unwrap()).collect();
    psebench::case::io::write_cases(&few, &two).unwrap();
    let short = run(&e, &request(&few, Protocol::Studio)).await;
    let pair = vec![studio.clone(), short.clone()];
    let report = e.metrics_for_runs(&pair, &opts).unwrap();
    assert!(report.paired_tests.is_empty(), "{:?}", report.paired_tests);
    assert_eq!(report.refused_pairs.len(), 1);
    let reason = &report.refused_pairs[0].reason;
    assert_eq!(
        reason,
        &format!(
            "Runs {studio} and {short} were made on different case sets (4 and 2 cases), so a paired test cannot compare them case by case. Compare runs made on the same cases."
        )
    );
    let c = report.comparability.unwrap();
    assert!(c.differing.contains(&"case set".to_string()) && c.sentence.unwrap().contains("case set"));
    // Runs on the same cases are the only ones paired among the three.
    let all = e.metrics_for_runs(&[studio.clone(), paper.clone(), short.clone()], &opts).unwrap();
    assert_eq!((all.paired_tests.len(), all.refused_pairs.len()), (1, 2));

    // The Results screen's scoring refuses the same pair.
    let shown = e.results_overview(&ResultsRequest { run_ids: pair }).unwrap();
    assert_eq!(shown.report.refused_pairs.len(), 1);
}

#[test]
fn imported_runs_without_a_record_are_paired_on_their_case_ids() {
    let e = psebench::context::Engine::open_in_memory().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (cases, trajectories) = psebench::metrics::synthetic_benchmark(20, 2, 1);
    let (cases_path, trajectories_path) = (dir.path().join("cases.jsonl"), dir.path().join("t.jsonl"));
    psebench::case::io::write_cases(&cases_path, &cases).unwrap();
    psebench::trajectory::io::write_trajectories(&trajectories_path, &trajectories).unwrap();
    e.cases_import(&cases_path, false, "imported").unwrap();
    let runs = e.evaluation_import(&trajectories_path).unwrap();
    let opts = psebench::metrics::MetricsOptions { bootstrap_resamples: 0, ..Default::default() };
    let report = e.metrics_for_runs(&runs, &opts).unwrap();
    assert_eq!((report.paired_tests.len(), report.refused_pairs.len()), (1, 0));
    let c = report.comparability.unwrap();
    assert!(c.comparable && c.marks.iter().all(|m| m.unrecorded));
    // Nothing differs that is recorded: the tables stay as they were.
    let overview = e.results_overview(&ResultsRequest { run_ids: runs }).unwrap();
    assert!(overview.tables.iter().all(|t| !t.caption.contains('†')));
}
