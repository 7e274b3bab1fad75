//! The terminal on Windows. Text needs nothing from us: when standard output or error is a console,
//! Rust's standard library hands it UTF-16 through the console's wide-character call, so accents,
//! dashes and the progress bar's block characters show right whatever the console's code page is;
//! written to a file or a pipe, output is UTF-8 bytes (as on every other system). We deliberately
//! leave the code page alone: it belongs to the console window, which the shell that started us
//! shares, and it would stay changed after we exit.
//!
//! What does need switching on is the handling of escape sequences (colours, and the codes the
//! progress bar uses to redraw its line): the classic Windows 10 console shows them as raw text
//! unless a program asks for "virtual terminal processing". Windows Terminal and Windows 11 have it
//! on already; asking again is harmless. On other systems this module does nothing.

/// Prepare the console for our output (call once, first thing in `main`).
pub fn prepare() {
    #[cfg(windows)]
    windows::enable_escape_sequences();
}

#[cfg(windows)]
mod windows {
    use windows_sys::Win32::Foundation::INVALID_HANDLE_VALUE;
    use windows_sys::Win32::System::Console::{
        GetConsoleMode, GetStdHandle, SetConsoleMode, ENABLE_VIRTUAL_TERMINAL_PROCESSING, STD_ERROR_HANDLE,
        STD_OUTPUT_HANDLE,
    };

    /// Turn on escape-sequence handling for standard output and error where they are consoles.
    /// Failures are ignored: output still works, only colours may show as codes.
    pub fn enable_escape_sequences() {
        for which in [STD_OUTPUT_HANDLE, STD_ERROR_HANDLE] {
            // SAFETY: plain Win32 calls on this process's standard handles; `mode` is a valid
            // place for GetConsoleMode to write to, and a handle that is no console (a file, a
            // pipe) makes GetConsoleMode fail, so it is left as it is.
            unsafe {
                let handle = GetStdHandle(which);
                if handle.is_null() || handle == INVALID_HANDLE_VALUE {
                    continue;
                }
                let mut mode = 0;
                if GetConsoleMode(handle, &mut mode) != 0 {
                    SetConsoleMode(handle, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING);
                }
            }
        }
    }
}
