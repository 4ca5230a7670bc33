//! The process table, read from /proc: who descends from whom, and whether a process seen
//! earlier is still that same process (pid and start time) and still running (not a zombie).

use std::collections::{BTreeMap, BTreeSet};

/// One process as /proc shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Proc {
    pub pid: u32,
    pub ppid: u32,
    pub pgid: u32,
    /// Clock ticks since boot (field 22 of stat): with the pid, names this very process.
    pub start: u64,
    pub zombie: bool,
    pub comm: String,
    pub cmdline: String,
}

impl Proc {
    pub fn describe(&self) -> String {
        let cmd: String = self.cmdline.chars().take(120).collect();
        format!("{} (group {}) {}", self.pid, self.pgid, if cmd.is_empty() { &self.comm } else { &cmd })
    }
}

pub fn read(pid: u32) -> Option<Proc> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let comm = stat[open + 1..close].to_owned();
    let fields: Vec<&str> = stat[close + 1..].split_whitespace().collect();
    // After the comm: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime
    // stime cutime cstime priority nice threads itrealvalue starttime …
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ").trim().to_owned();
    Some(Proc {
        pid,
        ppid: fields.get(1)?.parse().ok()?,
        pgid: fields.get(2)?.parse().ok()?,
        start: fields.get(19)?.parse().ok()?,
        zombie: fields.first() == Some(&"Z"),
        comm,
        cmdline,
    })
}

pub fn all() -> Vec<Proc> {
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries.flatten().filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok()).filter_map(read).collect()
}

/// Every live process below `root` (children, grandchildren…), `root` itself left out.
pub fn descendants(root: u32) -> Vec<Proc> {
    let table = all();
    let mut children: BTreeMap<u32, Vec<&Proc>> = BTreeMap::new();
    for p in &table {
        children.entry(p.ppid).or_default().push(p);
    }
    let mut found = Vec::new();
    let mut todo = vec![root];
    let mut seen = BTreeSet::new();
    while let Some(pid) = todo.pop() {
        for child in children.get(&pid).into_iter().flatten() {
            if seen.insert(child.pid) {
                todo.push(child.pid);
                if !child.zombie {
                    found.push((*child).clone());
                }
            }
        }
    }
    found
}

/// Live processes whose command line contains `needle` (a marker only soak runs use).
pub fn with_marker(needle: &str) -> Vec<Proc> {
    all().into_iter().filter(|p| !p.zombie && p.cmdline.contains(needle)).collect()
}

/// Those of `seen` that still run: the same pid with the same start time, not a zombie.
pub fn still_running(seen: &[Proc]) -> Vec<Proc> {
    seen.iter().filter_map(|p| read(p.pid).filter(|now| now.start == p.start && !now.zombie)).collect()
}

/// The engine's own process watchdog (see the engine's runtimes::orphans): it lives as long as
/// the engine, belongs to no run, and ends with the app after sweeping.
pub fn is_watchdog(p: &Proc) -> bool {
    p.cmdline.contains("while read -r _") && p.cmdline.contains("CLAWBOO_PROCESS_TREE")
}
