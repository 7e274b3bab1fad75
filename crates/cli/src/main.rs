//! The `psebench` binary: everything is in the library (`src/lib.rs`).

fn main() -> std::process::ExitCode {
    psebench_cli::main_entry()
}
