//! Giving memory back. After a large, short-lived computation (loading and scoring tens of
//! thousands of trajectories) glibc keeps the freed heap for reuse, so the process looks as large
//! as at its peak. The desktop app runs for hours; handing the free pages back keeps it small.

/// Return freed heap memory to the operating system where the allocator supports it.
pub fn return_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases memory the allocator itself holds as free; it touches no
    // live allocation and may be called from any thread.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Cap glibc's heap arenas at one per core (at least two). By default glibc opens up to eight
/// per core, one per thread that happens to allocate under contention, and keeps each one's
/// freed pages: a paper-scale batch run, with its store, client and runtime threads, then holds
/// far more than it uses. Called once at start by the CLI and the desktop app.
pub fn limit_heap_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2);
        let arenas = cores.clamp(2, 64) as libc::c_int;
        // SAFETY: mallopt only changes the allocator's tuning; called at start it affects how
        // later allocations are placed, never a live allocation.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, arenas);
        }
    }
}

/// Let the heap grow in large steps for a short process that reads a big input in one go (the
/// CLI's `metrics` and `report` on JSONL files). glibc grows a heap by its top pad (128 KiB by
/// default) at a time, one system call and a round of page mapping per step; decoding tens of
/// megabytes of JSON into many small values then spends a fifth of its time growing the heap.
/// The untouched padding costs address space only, not resident memory.
pub fn grow_heap_in_large_steps() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes the allocator's tuning for later growth of the heap; it never
    // touches a live allocation.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, 16 * 1024 * 1024);
    }
}
