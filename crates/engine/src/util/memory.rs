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
