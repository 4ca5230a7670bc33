//! What a data folder has stored: the key of every row that must survive a crash.

use std::collections::BTreeSet;
use std::path::Path;

/// (what, key expression, table): cards and their comments, activity and runs; runs, their
/// messages and events; facts and their history.
const KEPT: [(&str, &str, &str); 9] = [
    ("card", "id", "cards"),
    ("comment", "id", "card_comments"),
    ("card activity", "id", "card_activity"),
    ("card run", "run_id", "card_runs"),
    ("run", "id", "runs"),
    ("message", "id", "messages"),
    ("run event", "run_id || '/' || seq", "run_events"),
    ("fact", "id", "memory_facts"),
    ("fact version", "fact_id || '/' || version", "memory_versions"),
];

/// Every kept row, as "what:key". Read through a read-only connection while the app runs: what
/// it sees is what the app has committed.
pub fn snapshot(db: &Path) -> BTreeSet<String> {
    let conn = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY).expect("open db");
    conn.busy_timeout(std::time::Duration::from_secs(10)).expect("busy timeout");
    let mut rows = BTreeSet::new();
    for (what, key, table) in KEPT {
        let mut stmt = conn.prepare(&format!("SELECT {key} FROM {table}")).expect("query");
        let keys = stmt.query_map([], |r| r.get::<_, String>(0)).expect("rows");
        rows.extend(keys.map(|k| format!("{what}:{}", k.expect("row"))));
    }
    rows
}

/// How many of each kind `rows` holds, e.g. "12 cards, 40 run events".
pub fn summary(rows: &BTreeSet<String>) -> String {
    KEPT.iter()
        .map(|(what, _, _)| {
            let n = rows.iter().filter(|r| r.split_once(':').is_some_and(|(w, _)| w == *what)).count();
            format!("{n} {what}s")
        })
        .collect::<Vec<_>>()
        .join(", ")
}
