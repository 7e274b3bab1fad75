//! The `psebench` binary: everything is in the library (`src/lib.rs`).

#[cfg(unix)]
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    psebench_cli::main_entry()
}
