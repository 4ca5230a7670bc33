//! What the app keeps resident at idle (Linux). Two things outgrow what an idle desktop app uses:
//!
//! - **Its heap** (glibc): threads that allocate at once get arenas of their own (up to 8 per
//!   core), and what is freed stays in them for reuse: with ~20 threads (tokio's workers, GTK's and
//!   WebKit's) several MiB that nothing reuses. So: two arenas, and free pages given back.
//! - **Its code's pages**: start-up runs code from all over the binary (the toolkit, the engine's
//!   open and migrations, the first screen's commands), and the kernel maps each page it faults in
//!   with its neighbours (64 KiB at a time), so ~16 MiB of its ~29 MB of code stays mapped after
//!   start though most of it never runs again. Unmapping the code drops it from the process; the
//!   pages stay in the system's page cache (clean, the first to go under memory pressure) and a
//!   page that runs again is mapped back from there (a minor fault, microseconds).
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

/// A thread that gives freed memory and idle code back: once after `first`, then every `every`.
/// With nothing to give, a round takes microseconds; the thread sleeps in between.
pub fn give_back_periodically(first: Duration, every: Duration) {
    #[cfg(target_os = "linux")]
    let _ = std::thread::Builder::new().name("give-back".into()).spawn(move || {
        std::thread::sleep(first);
        loop {
            #[cfg(target_env = "gnu")]
            glibc::give_back();
            code::give_back();
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
mod code {
    /// Unmaps the executable's code: its read-and-execute mappings in `/proc/self/maps`.
    pub fn give_back() {
        let Ok(exe) = std::fs::read_link("/proc/self/exe") else { return };
        let Ok(maps) = std::fs::read_to_string("/proc/self/maps") else { return };
        for (start, len) in code_mappings(&maps, &exe.to_string_lossy()) {
            // SAFETY: the range is one whole mapping of the executable's own file, read-only and
            // executable, private. Such pages are never written (x86-64 and AArch64 Linux code is
            // position-independent: no relocations in it), so each is the file's page from the
            // page cache; MADV_DONTNEED only removes them from our page tables, and a thread
            // running there faults them back in from the same file. No Rust value lives there.
            unsafe { libc::madvise(start as *mut libc::c_void, len, libc::MADV_DONTNEED) };
        }
    }

    /// `(start, length)` of each `r-xp` mapping of `exe` in a `/proc/<pid>/maps` text.
    pub(super) fn code_mappings(maps: &str, exe: &str) -> Vec<(usize, usize)> {
        maps.lines()
            .filter_map(|line| {
                // address perms offset dev inode pathname (the path may hold spaces).
                let mut fields = line.splitn(6, ' ');
                let range = fields.next()?;
                let perms = fields.next()?;
                let path = fields.nth(3)?.trim_start();
                if perms != "r-xp" || path != exe {
                    return None;
                }
                let (start, end) = range.split_once('-')?;
                let (start, end) = (usize::from_str_radix(start, 16).ok()?, usize::from_str_radix(end, 16).ok()?);
                (end > start).then_some((start, end - start))
            })
            .collect()
    }
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::code::code_mappings;

    #[test]
    fn only_the_executables_own_code_is_given_back() {
        let maps = "\
5581a000-5581b000 r--p 00000000 fd:01 42 /opt/Clawboo/clawboo
5581b000-5581f000 r-xp 00001000 fd:01 42 /opt/Clawboo/clawboo
5581f000-55820000 r--p 00005000 fd:01 42 /opt/Clawboo/clawboo
55820000-55821000 rw-p 00006000 fd:01 42 /opt/Clawboo/clawboo
7f00a000-7f00b000 r-xp 00001000 fd:01 77 /usr/lib/libgtk-3.so.0
7f00c000-7f00d000 rwxp 00000000 00:00 0 
7f00e000-7f00f000 r-xp 00000000 fd:01 43 /opt/Clawboo/clawboo-helper
";
        assert_eq!(code_mappings(maps, "/opt/Clawboo/clawboo"), vec![(0x5581b000, 0x4000)]);
    }

    #[test]
    fn a_path_with_spaces_and_a_replaced_binary_still_match() {
        let maps = "\
5581b000-5581f000 r-xp 00001000 fd:01 42                         /home/a b/Clawboo (deleted)
";
        assert_eq!(code_mappings(maps, "/home/a b/Clawboo (deleted)"), vec![(0x5581b000, 0x4000)]);
        assert!(code_mappings(maps, "/home/a b/Clawboo").is_empty());
    }

    /// KiB of this test binary's code mapped in, from `/proc/self/smaps`.
    fn code_resident_kib() -> u64 {
        let exe = std::fs::read_link("/proc/self/exe").unwrap().to_string_lossy().into_owned();
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let mut in_code = false;
        let mut kib = 0;
        for line in smaps.lines() {
            if let Some(rss) = line.strip_prefix("Rss:") {
                if in_code {
                    kib += rss.trim().trim_end_matches(" kB").parse::<u64>().unwrap();
                }
            } else if !line.contains(':') || line.split(' ').next().is_some_and(|f| f.contains('-')) {
                in_code = line.contains(" r-xp ") && line.ends_with(exe.as_str());
            }
        }
        kib
    }

    #[test]
    fn giving_back_the_code_unmaps_it_and_it_still_runs() {
        let before = code_resident_kib();
        super::code::give_back();
        // Everything from here on runs on code that was just unmapped and mapped back.
        let after = code_resident_kib();
        assert!(after < before, "code resident {before} KiB before, {after} KiB after");
        assert_eq!(format!("{}", (1..=1000u64).sum::<u64>()), "500500");
    }
}
