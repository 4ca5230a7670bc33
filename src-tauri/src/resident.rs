//! What the app keeps resident at idle (Linux). Two things outgrow what an idle desktop app uses:
//!
//! - **Its heap** (glibc): threads that allocate at once get arenas of their own (up to 8 per
//!   core), and what is freed stays in them for reuse: with ~20 threads (tokio's workers, GTK's and
//!   WebKit's) several MiB that nothing reuses. So: two arenas, and free pages given back.
//! - **Its code's pages**: start-up runs code from all over the binary (the toolkit, the engine's
//!   open and migrations, the first screen's commands), and the kernel maps each page it faults in
//!   with its neighbours (64 KiB at a time), so ~16 MiB of its ~29 MB of code (and ~3 MiB of its
//!   constants) stays mapped after start though most of it never runs again. Unmapping them drops
//!   them from the process; the pages stay in the system's page cache (clean, the first to go under
//!   memory pressure) and a page used again is mapped back from there (a minor fault, microseconds).
//!
//! Both are given back a few seconds after start (the open's and the first screen's garbage and
//! code) and then once a minute (a page opened and left). None of these calls has a safe wrapper:
//! this is the crate's one `unsafe`, as in `clawboo-netns`. Measured in
//! `bench/results/2026-12-05-memory.md` (heap) and `2026-12-06-idle-code.md` (code).

use std::time::Duration;

/// Before any other thread exists: arenas are made lazily, so this caps all of them.
pub fn limit_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    glibc::limit_arenas();
}

/// A thread that gives freed memory and unused code back: once after `first`, then every `every`.
/// With nothing to give, a round takes microseconds; the thread sleeps in between.
pub fn give_back_periodically(first: Duration, every: Duration) {
    #[cfg(target_os = "linux")]
    let _ = std::thread::Builder::new().name("give-back".into()).spawn(move || {
        std::thread::sleep(first);
        loop {
            #[cfg(target_env = "gnu")]
            glibc::give_back();
            image::give_back();
            std::thread::sleep(every);
        }
    });
    #[cfg(not(target_os = "linux"))]
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

#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
mod image {
    use std::sync::OnceLock;

    /// The executable's mappings that can be given back, found once (they never move).
    static CLEAN: OnceLock<Vec<(usize, usize)>> = OnceLock::new();

    /// Unmaps the executable's read-only pages: its code and its constants.
    pub fn give_back() {
        for &(start, len) in CLEAN.get_or_init(find_clean) {
            // SAFETY: the range is one whole private mapping of the executable's own file, not
            // writable and, when it was found, holding no page of its own (`Anonymous: 0`: no
            // relocation or other write ever touched it). Each page is the file's, from the page
            // cache: MADV_DONTNEED only removes them from our page tables, and code or a constant
            // used again is faulted back in from the same file. No Rust value lives there.
            unsafe { libc::madvise(start as *mut libc::c_void, len, libc::MADV_DONTNEED) };
        }
    }

    fn find_clean() -> Vec<(usize, usize)> {
        let Ok(exe) = std::fs::read_link("/proc/self/exe") else { return Vec::new() };
        let Ok(smaps) = std::fs::read_to_string("/proc/self/smaps") else { return Vec::new() };
        clean_read_only_mappings(&smaps, &exe.to_string_lossy())
    }

    /// The permissions of a private mapping that is never written: constants, code.
    pub(super) const READ_ONLY: [&str; 2] = ["r--p", "r-xp"];

    /// `(start, length)` of each mapping of `exe` in a `/proc/<pid>/smaps` text that is private,
    /// not writable and has no anonymous (copied-on-write) pages.
    pub(super) fn clean_read_only_mappings(smaps: &str, exe: &str) -> Vec<(usize, usize)> {
        let mut clean = Vec::new();
        let mut current = None;
        for line in smaps.lines() {
            if let Some((start, end, perms, path)) = mapping_header(line) {
                current = (path == exe && READ_ONLY.contains(&perms)).then_some((start, end));
            } else if let Some(anonymous) = line.strip_prefix("Anonymous:") {
                if let Some((start, end)) = current.take() {
                    if anonymous.trim() == "0 kB" && end > start {
                        clean.push((start, end - start));
                    }
                }
            }
        }
        clean
    }

    /// A mapping's first line, `address perms offset dev inode pathname` (the path may hold
    /// spaces), as `(start, end, perms, path)`; `None` for a field line (`Rss:   12 kB`).
    pub(super) fn mapping_header(line: &str) -> Option<(usize, usize, &str, &str)> {
        let mut fields = line.splitn(6, ' ');
        let (start, end) = fields.next()?.split_once('-')?;
        let (start, end) = (usize::from_str_radix(start, 16).ok()?, usize::from_str_radix(end, 16).ok()?);
        let perms = fields.next()?;
        let path = fields.nth(3)?.trim_start();
        Some((start, end, perms, path))
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::image::{clean_read_only_mappings, mapping_header, READ_ONLY};

    const EXE: &str = "/opt/Clawboo/clawboo";

    #[test]
    fn only_the_executables_clean_read_only_pages_are_given_back() {
        let smaps = "\
5581a000-5581b000 r--p 00000000 fd:01 42                         /opt/Clawboo/clawboo
Size:                  4 kB
Rss:                   4 kB
Anonymous:             0 kB
5581b000-5581f000 r-xp 00001000 fd:01 42                         /opt/Clawboo/clawboo
Rss:                  16 kB
Anonymous:             0 kB
5581f000-55820000 r--p 00005000 fd:01 42                         /opt/Clawboo/clawboo
Rss:                   4 kB
Anonymous:             4 kB
55820000-55821000 rw-p 00006000 fd:01 42                         /opt/Clawboo/clawboo
Anonymous:             4 kB
7f00a000-7f00b000 r-xp 00001000 fd:01 77                         /usr/lib/libgtk-3.so.0
Anonymous:             0 kB
7f00c000-7f00d000 rwxp 00000000 00:00 0 
Anonymous:             4 kB
7f00e000-7f00f000 r-xp 00000000 fd:01 43                         /opt/Clawboo/clawboo-helper
Anonymous:             0 kB
";
        // The constants and the code; not the relocated read-only data (it has copied pages),
        // the writable data, a library or another program.
        assert_eq!(clean_read_only_mappings(smaps, EXE), vec![(0x5581a000, 0x1000), (0x5581b000, 0x4000)]);
    }

    #[test]
    fn a_path_with_spaces_and_a_replaced_binary_still_match() {
        let smaps = "\
5581b000-5581f000 r-xp 00001000 fd:01 42                         /home/a b/Clawboo (deleted)
Anonymous:             0 kB
";
        assert_eq!(clean_read_only_mappings(smaps, "/home/a b/Clawboo (deleted)"), vec![(0x5581b000, 0x4000)]);
        assert!(clean_read_only_mappings(smaps, "/home/a b/Clawboo").is_empty());
    }

    /// KiB of this test binary's read-only mappings resident, from `/proc/self/smaps`.
    fn read_only_resident_kib() -> u64 {
        let exe = std::fs::read_link("/proc/self/exe").unwrap().to_string_lossy().into_owned();
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut counted = false;
        let mut kib = 0;
        for line in smaps.lines() {
            if let Some(rss) = line.strip_prefix("Rss:") {
                if counted {
                    kib += rss.trim().trim_end_matches(" kB").parse::<u64>().unwrap();
                }
            } else if let Some((_, _, perms, path)) = mapping_header(line) {
                counted = path == exe && READ_ONLY.contains(&perms);
            }
        }
        kib
    }

    #[test]
    fn giving_back_unmaps_the_pages_and_the_program_runs_on() {
        let before = read_only_resident_kib();
        super::image::give_back();
        // Everything from here on runs on code and constants that were just unmapped.
        let after = read_only_resident_kib();
        assert!(after < before, "read-only pages resident: {before} KiB before, {after} KiB after");
        assert_eq!(format!("{}", (1..=1000u64).sum::<u64>()), "500500");
    }
}
