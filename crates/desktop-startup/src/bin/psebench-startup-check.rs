//! The desktop app's start-up without its window (the same code as `psebench-studio
//! --check-startup`): data folder, log file, store and the check that a window can be shown,
//! reported on standard output. Exit status 0 when the app could start here, 1 when it could not.
//! A program of its own so that CI can run it under Wine without building the whole app.

fn main() {
    std::process::exit(psebench_desktop_startup::check_startup());
}
