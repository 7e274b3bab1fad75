//! What the app checks before it opens its window, and how it says it cannot start. On Windows the
//! window is drawn by Microsoft Edge WebView2 Runtime; without it Tauri cannot create the window
//! and the app would vanish without a word (a Windows GUI program has no console to print to). So
//! the runtime is looked up first, through the same loader call Tauri itself uses, and a missing
//! runtime is reported in a plain message box that says what to install and where.

/// Where Microsoft offers the WebView2 Runtime ("Evergreen Standalone Installer").
#[cfg(windows)]
const WEBVIEW2_DOWNLOAD: &str = "https://developer.microsoft.com/microsoft-edge/webview2/";

/// `Err(message)` when the app cannot show its window on this computer.
pub fn check_window_support() -> Result<(), String> {
    #[cfg(windows)]
    if let Err(e) = tauri::webview_version() {
        tracing::error!(error = %e, "Microsoft Edge WebView2 Runtime was not found");
        return Err(format!(
            "PSEBench Studio shows its window through Microsoft Edge WebView2 Runtime, which is not \
             installed on this computer.\n\n\
             Windows 11 includes it. On Windows 10, install the Evergreen WebView2 Runtime from \
             Microsoft (free), or ask your IT department to install it:\n\n{WEBVIEW2_DOWNLOAD}\n\n\
             Then start PSEBench Studio again. Your data is not affected. The command-line tool \
             psebench.exe works without it."
        ));
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
    use windows_sys::Win32::UI::WindowsAndMessaging::{MessageBoxW, MB_ICONERROR, MB_OK, MB_SETFOREGROUND};

    fn wide(text: &str) -> Vec<u16> {
        text.encode_utf16().chain(std::iter::once(0)).collect()
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
