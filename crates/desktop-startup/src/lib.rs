//! What the desktop app does before it opens its window, and how it says it cannot start. On
//! Windows the window is drawn by Microsoft Edge WebView2 Runtime; without it the window cannot be
//! created and the app would vanish without a word (a Windows GUI program has no console to print
//! to). So the runtime is looked up first, through the same loader call Tauri itself makes (in
//! `WebView2Loader.dll`, shipped beside the app), and a missing runtime is reported in a plain
//! message box that says what to install and where.
//!
//! No Tauri here: the app (`src-tauri`) calls this crate, and its `psebench-startup-check` program
//! runs the same code on its own, which is how CI checks it under Wine without building the app.

/// Where Microsoft offers the WebView2 Runtime ("Evergreen Standalone Installer").
#[cfg(windows)]
const WEBVIEW2_DOWNLOAD: &str = "https://developer.microsoft.com/microsoft-edge/webview2/";

pub mod webkit_env;

use psebench::api::Engine;
use psebench::ApiError;
use std::path::PathBuf;

/// What the app has set up before it opens its window.
pub struct Prepared {
    /// The store file (in the data folder, `%APPDATA%\psebench` on Windows).
    pub db: PathBuf,
    /// Keeps the log file written until the app exits.
    pub log: Option<psebench::logging::LogGuard>,
    /// Why there is no log file, when there is none (the app runs without one).
    pub log_problem: Option<String>,
}

/// The data folder's log file, first thing: everything after it is logged there.
pub fn prepare() -> Prepared {
    let db = psebench::store::default_db_path();
    let log_options = psebench::logging::LogOptions {
        file_dir: Some(psebench::logging::log_dir_for(&db)),
        file_level: psebench::logging::LogLevel::Info,
        stderr_level: None,
    };
    match psebench::logging::init(&log_options) {
        Ok(guard) => Prepared { db, log: Some(guard), log_problem: None },
        Err(e) => Prepared { db, log: None, log_problem: Some(e.to_string()) },
    }
}

/// Open the store (a failure is shown by the UI on every page, so it does not stop the app).
pub fn open_store(db: &std::path::Path) -> Result<Engine, ApiError> {
    // How other processes (the CLI) name this one when it holds a run they want to execute.
    psebench::jobs::set_process_label("the desktop app");
    let engine = Engine::open(db);
    if let Err(e) = &engine {
        tracing::error!(error = %e, path = %db.display(), "the store could not be opened");
    }
    // Creating a store or upgrading one (the built-in library checked and loaded) leaves freed
    // memory in the heap; it goes back to the system now rather than staying with the app.
    psebench::util::memory::return_free_memory();
    engine
}

/// `psebench-studio --check-startup` and `psebench-startup-check`: everything the app does before
/// its window, without the window, reported on standard output: the data folder, the log file, the
/// check that a window can be shown (WebView2 on Windows, with the message a user would see) and
/// opening the store. Exit status 0 when the app could start here, 1 when it could not. Used by
/// scripts/test-windows (under Wine, which has no WebView2, so the message must appear there).
pub fn check_startup() -> i32 {
    let prepared = prepare();
    let mut can_start = true;
    println!("PSEBench Studio start-up check (no window is opened).");
    match prepared.db.parent() {
        Some(folder) => println!("Data folder: {}", folder.display()),
        None => println!("Data folder: none (the store is {})", prepared.db.display()),
    }
    match &prepared.log_problem {
        None => println!("Log file: in {}", psebench::logging::log_dir_for(&prepared.db).display()),
        Some(problem) => println!("Log file: none, the app would run without one ({problem})"),
    }
    match open_store(&prepared.db) {
        Ok(engine) => println!("Store: opened {}", engine.store().path().display()),
        Err(e) => {
            can_start = false;
            println!("Store: could not be opened: {e}");
        }
    }
    match check_window_support() {
        Ok(()) => println!("Window: can be shown."),
        Err(problem) => {
            can_start = false;
            println!("Window: cannot be shown ({}). The app would say:\n{}", problem.reason, problem.message);
        }
    }
    if can_start {
        0
    } else {
        1
    }
}

/// Why the app cannot show its window here: what was found (for the log and the check's report)
/// and the message the user sees.
#[derive(Debug)]
pub struct WindowProblem {
    pub reason: String,
    pub message: String,
}

/// `Err` when the app cannot show its window on this computer.
pub fn check_window_support() -> Result<(), WindowProblem> {
    #[cfg(windows)]
    if let Err(reason) = windows::webview2_version() {
        tracing::error!(%reason, "Microsoft Edge WebView2 Runtime was not found");
        let message = format!(
            "PSEBench Studio shows its window through Microsoft Edge WebView2 Runtime, which is not \
             installed on this computer.\n\n\
             Windows 11 includes it. On Windows 10, install the Evergreen WebView2 Runtime from \
             Microsoft (free), or ask your IT department to install it:\n\n{WEBVIEW2_DOWNLOAD}\n\n\
             Then start PSEBench Studio again. Your data is not affected. The command-line tool \
             psebench.exe works without it."
        );
        return Err(WindowProblem { reason, message });
    }
    Ok(())
}

/// Tell the user why the app stops: a message box on Windows, standard error elsewhere (where the
/// app is usually started from a desktop that shows its output, or from a terminal).
pub fn report_fatal(title: &str, message: &str) {
    tracing::error!(%message, "{title}");
    eprintln!("{title}: {message}");
    #[cfg(windows)]
    windows::message_box(title, message);
}

#[cfg(windows)]
mod windows {
    use windows_sys::core::{PCWSTR, PWSTR};
    use windows_sys::Win32::Foundation::FreeLibrary;
    use windows_sys::Win32::System::Com::CoTaskMemFree;
    use windows_sys::Win32::System::LibraryLoader::{GetProcAddress, LoadLibraryW};
    use windows_sys::Win32::UI::WindowsAndMessaging::{MessageBoxW, MB_ICONERROR, MB_OK, MB_SETFOREGROUND};

    fn wide(text: &str) -> Vec<u16> {
        text.encode_utf16().chain(std::iter::once(0)).collect()
    }

    /// `GetAvailableCoreWebView2BrowserVersionString(browserExecutableFolder, versionInfo)`.
    type VersionFn = unsafe extern "system" fn(PCWSTR, *mut PWSTR) -> i32;

    /// The installed WebView2 Runtime's version, asked of `WebView2Loader.dll` (beside the app;
    /// Windows looks in the program's folder first) the way Tauri asks it before its window.
    pub fn webview2_version() -> Result<String, String> {
        let dll = wide("WebView2Loader.dll");
        let name = b"GetAvailableCoreWebView2BrowserVersionString\0";
        // SAFETY: the DLL name is NUL-terminated UTF-16; the function is looked up by its
        // NUL-terminated name and called with the signature Microsoft documents; the string it
        // returns is freed with CoTaskMemFree as documented; the DLL is released last.
        unsafe {
            let module = LoadLibraryW(dll.as_ptr());
            if module.is_null() {
                return Err("WebView2Loader.dll could not be loaded".into());
            }
            let result = match GetProcAddress(module, name.as_ptr()) {
                None => Err("WebView2Loader.dll has no GetAvailableCoreWebView2BrowserVersionString".into()),
                Some(f) => {
                    let f: VersionFn = std::mem::transmute(f);
                    let mut version: PWSTR = std::ptr::null_mut();
                    let hr = f(std::ptr::null(), &mut version);
                    if hr < 0 || version.is_null() {
                        Err(format!("no runtime found (HRESULT {hr:#010x})"))
                    } else {
                        let len = (0..).take_while(|&i| *version.add(i) != 0).count();
                        let text = String::from_utf16_lossy(std::slice::from_raw_parts(version, len));
                        CoTaskMemFree(version as *const std::ffi::c_void);
                        Ok(text)
                    }
                }
            };
            FreeLibrary(module);
            result
        }
    }

    /// A modal error box with an OK button (no owner window: none exists yet).
    pub fn message_box(title: &str, message: &str) {
        let (title, message) = (wide(title), wide(message));
        // SAFETY: both buffers are NUL-terminated UTF-16 and outlive the call; a null owner
        // window is allowed.
        unsafe {
            MessageBoxW(
                std::ptr::null_mut(),
                message.as_ptr(),
                title.as_ptr(),
                MB_OK | MB_ICONERROR | MB_SETFOREGROUND,
            );
        }
    }
}
