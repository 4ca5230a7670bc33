//! The app's own heap at idle (Linux with glibc). glibc gives threads that allocate at once arenas
//! of their own (up to 8 per core) and keeps what is freed in them for reuse: with ~20 threads
//! (tokio's workers, GTK's and WebKit's) that is several MiB resident that an idle desktop app
//! does not reuse. So: two arenas, and the freed pages given back to the system a few seconds
//! after start (the open's and the first screen's garbage) and then once a minute (a chat opened
//! and left). Neither call has a safe wrapper: this is the crate's one `unsafe`, as in
//! `clawboo-netns`. Measured in `bench/results/2026-12-05-memory.md`.

use std::time::Duration;

/// Before any other thread exists: arenas are made lazily, so this caps all of them.
pub fn limit_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    glibc::limit_arenas();
}

/// A thread that gives freed memory back: once after `first`, then every `every`. Trimming a
/// heap with nothing to give takes microseconds; the thread sleeps in between.
pub fn give_back_periodically(first: Duration, every: Duration) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    let _ = std::thread::Builder::new().name("heap-trim".into()).spawn(move || {
        std::thread::sleep(first);
        loop {
            glibc::give_back();
            std::thread::sleep(every);
        }
    });
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = (first, every);
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)]
mod glibc {
    pub fn limit_arenas() {
        // SAFETY: mallopt only sets one of the allocator's parameters (it takes the allocator's
        // own lock); no memory of ours is touched.
        unsafe { libc::mallopt(libc::M_ARENA_MAX, 2) };
    }

    pub fn give_back() {
        // SAFETY: malloc_trim walks the allocator's own free lists under its locks and returns
        // whole free pages to the system; live allocations are not touched.
        unsafe { libc::malloc_trim(0) };
    }
}
