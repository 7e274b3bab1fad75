//! PSEBench Studio desktop app: a thin shell. The window shows the web UI (ui/dist); its one API
//! command forwards to the engine's call surface (the same one `psebench serve` uses), job
//! progress is pushed to the window as "job-progress" events, changes to stored data as
//! "data-change" events, and downloads are written to the
//! user's Downloads folder (chosen and checked by the engine). No business logic lives here.
//!
//! "Share" on a review session serves its reviewer links from this app: the engine's
//! `review.share_*` methods start and stop review listeners of the server crate, which serve the
//! window's own files (below) to reviewers' browsers. They stop when the app stops.

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use psebench::api::files::Download;
use psebench::api::rpc::{self, Caller};
use psebench::api::Engine;
use psebench::ApiError;
use serde_json::Value;
use tauri::{Emitter, Manager, State};

use psebench_desktop_startup as startup;

/// The engine, or why the store could not be opened (shown by the UI on every page); `None`
/// while the store is still being opened. The store is opened on a thread of its own while the
/// window starts (on a new store, creating it and loading the built-in library takes a third of
/// a second), so neither waits for the other; calls that arrive before it is open wait.
struct Studio(tokio::sync::watch::Receiver<Option<Result<Engine, ApiError>>>);

impl Studio {
    async fn engine(&self) -> Result<Engine, ApiError> {
        let mut rx = self.0.clone();
        let opened = match rx.wait_for(Option::is_some).await {
            Ok(opened) => opened.clone(),
            Err(_) => None,
        };
        opened.unwrap_or_else(|| Err(ApiError::internal("the store could not be opened: the app is closing")))
    }
}

#[tauri::command]
async fn api(studio: State<'_, Studio>, method: String, params: Value) -> Result<Value, ApiError> {
    let engine = studio.engine().await?;
    rpc::call(&engine, &Caller::Owner, &method, params).await
}

#[tauri::command]
async fn save_download(download: Download) -> Result<String, ApiError> {
    // The engine chooses the folder (never the home folder itself), checks the name and never
    // overwrites (psebench::util::downloads).
    let path = psebench::api::files::save_download(&download)?;
    Ok(path.display().to_string())
}

/// The window's files (ui/dist, built into the app), served to the browsers of reviewers whose
/// links the app serves. Only paths of files are looked up: the server answers the app's own
/// routes (such as a reviewer link's `/review/...`) with `index.html` itself.
struct WindowFiles(tauri::AssetResolver<tauri::Wry>);

impl psebench_server::Assets for WindowFiles {
    fn get(&self, path: &str) -> Option<psebench_server::Asset> {
        let last = path.rsplit('/').next().unwrap_or("");
        if !last.contains('.') {
            return None;
        }
        let asset = self.0.get(path.to_string())?;
        Some(psebench_server::Asset {
            path: path.to_string(),
            bytes: asset.bytes.into(),
            mime: psebench_server::mime_for(path),
        })
    }
}

/// Set the variables WebKitGTK is started with on Linux, each unless the user set it
/// (`psebench_desktop_startup::webkit_env` says which and why). Called first thing in main, before
/// any thread exists; WebKit's processes inherit them.
fn prepare_webkit_environment() {
    #[cfg(target_os = "linux")]
    {
        let nodes = startup::webkit_env::render_nodes(std::path::Path::new("/dev/dri"));
        let get = |name: &str| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned());
        let loaded = startup::webkit_env::loaded_libraries();
        for (name, value) in startup::webkit_env::linux_defaults(&get, &nodes, &loaded) {
            std::env::set_var(name, value);
        }
    }
}

/// The window starts hidden (`tauri.conf.json`) and is shown once its page has loaded.
///
/// On Linux, WebKitGTK's first drawing of a window waits (up to half a second) for the web
/// process's first picture; in about one start in four the web process was itself waiting on the
/// app in the same moment, and the first paint came half a second late. Shown after the page has
/// loaded, none of 88 starts was late, against 13 of 80 shown at once (BENCHMARKS.md, "Desktop
/// app", round five).
/// Should the page never report that it loaded, the window is shown after [`SHOW_AT_THE_LATEST`]
/// all the same, so that the user sees whatever went wrong. Elsewhere the window is shown at once,
/// as before.
fn show_window_when_loaded(window: tauri::Window) {
    if cfg!(target_os = "linux") {
        tauri::async_runtime::spawn(async move {
            tokio::time::sleep(SHOW_AT_THE_LATEST).await;
            show_window(&window);
        });
    } else {
        show_window(&window);
    }
}

const SHOW_AT_THE_LATEST: std::time::Duration = std::time::Duration::from_secs(3);

fn show_window(window: &tauri::Window) {
    if !window.is_visible().unwrap_or(false) {
        if let Err(e) = window.show() {
            tracing::warn!(error = %e, "the window could not be shown");
        }
    }
}

/// Connect an opened engine to the window: progress and data-change events, reviewer links,
/// and batch-mode runs to resume.
fn connect(engine: &Engine, app: &tauri::AppHandle, files: std::sync::Arc<WindowFiles>) {
    let mut rx = engine.jobs().subscribe();
    let handle = app.clone();
    tauri::async_runtime::spawn(async move {
        loop {
            match rx.recv().await {
                Ok(p) => {
                    let _ = handle.emit("job-progress", p);
                }
                Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => continue,
                Err(_) => break,
            }
        }
    });
    // Kinds of stored data changed here or by another process (the CLI, a review server on the
    // same store): pushed as "data-change", like progress.
    match engine.change_events() {
        Ok(mut rx) => {
            let handle = app.clone();
            tauri::async_runtime::spawn(async move {
                loop {
                    match rx.recv().await {
                        Ok(c) => {
                            let _ = handle.emit("data-change", c);
                        }
                        Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {
                            let all = psebench::context::change_feed::ChangeKind::ALL.to_vec();
                            let _ =
                                handle.emit("data-change", psebench::context::change_feed::ChangeEvent { kinds: all });
                        }
                        Err(_) => break,
                    }
                }
            });
        }
        Err(e) => tracing::warn!(error = %e, "changes by other processes will show only after a reload"),
    }
    // "Share" serves reviewer links from this app; the listeners run on the app's async runtime,
    // where its API calls run.
    psebench_server::enable_review_sharing(engine, files, psebench_server::Limits::default());
    // Batch-mode runs closed while their batches were out continue where they stopped.
    let engine = engine.clone();
    tauri::async_runtime::spawn(async move {
        psebench::api::rpc::resume_batch_runs(&engine);
    });
}

fn main() {
    psebench::util::memory::limit_heap_arenas();
    prepare_webkit_environment();
    if std::env::args_os().nth(1).is_some_and(|a| a == "--check-startup") {
        std::process::exit(startup::check_startup());
    }
    // The log guard is kept until the app exits, so the last lines reach the file.
    let startup::Prepared { db, log: _log, log_problem } = startup::prepare();
    if let Some(problem) = &log_problem {
        eprintln!("PSEBench Studio will run without a log file: {problem}");
    }
    if let Err(problem) = startup::check_window_support() {
        startup::report_fatal("PSEBench Studio cannot start", &problem.message);
        std::process::exit(1);
    }
    // Opening the store (schema upgrades, the built-in library) runs while the window starts.
    let opening = std::thread::spawn(move || startup::open_store(&db));
    let (opened, studio) = tokio::sync::watch::channel(None);
    tauri::Builder::default()
        .manage(Studio(studio))
        .setup(move |app| {
            if let Some(window) = app.get_webview_window("main") {
                show_window_when_loaded(window.as_ref().window());
            }
            let handle = app.handle().clone();
            // "Share" serves reviewer links from this app (the window's own files).
            let files = std::sync::Arc::new(WindowFiles(app.asset_resolver()));
            tauri::async_runtime::spawn(async move {
                let engine = match tauri::async_runtime::spawn_blocking(move || opening.join()).await {
                    Ok(Ok(engine)) => engine,
                    _ => Err(ApiError::internal("opening the store stopped unexpectedly")),
                };
                if let Ok(engine) = &engine {
                    connect(engine, &handle, files);
                }
                // Calls are answered once the engine is connected to the window.
                let _ = opened.send(Some(engine));
            });
            Ok(())
        })
        .on_page_load(|webview, payload| {
            if payload.event() == tauri::webview::PageLoadEvent::Finished {
                show_window(&webview.window());
            }
        })
        .invoke_handler(tauri::generate_handler![api, save_download])
        .run(tauri::generate_context!("../tauri.conf.json"))
        .unwrap_or_else(|e| {
            startup::report_fatal("PSEBench Studio could not start", &e.to_string());
            std::process::exit(1);
        });
}
