//! The reliability soak's engine-side driver (run by `scripts/soak`, not shipped):
//!
//! ```text
//! soak crash  --app PATH --rounds N --out FILE [--commit SHORT] [--work DIR]
//! soak cancel --runs N --out FILE [--commit SHORT] [--work DIR]
//! ```
//!
//! `crash` starts the real app (`--app`, under the caller's Xvfb and test keyring) on a data
//! folder of its own, starts runs through the local API and `kill -9`s it mid-run, N times.
//! `cancel` starts and cancels N task runs through the engine itself. Each writes its figures
//! as the JSON `scripts/soak` renders (see that script), and exits 1 when a figure misses its goal.

mod cancel;
mod crash;
mod procs;
mod setup;
mod store;

use std::path::PathBuf;
use std::time::Instant;

use serde_json::{json, Value};

/// One line of a part's table.
pub struct Row {
    pub figure: String,
    pub value: Value,
    pub goal: String,
    pub ok: bool,
}

impl Row {
    /// A count whose goal is zero.
    pub fn zero(figure: &str, value: usize) -> Self {
        Row { figure: figure.to_owned(), value: json!(value), goal: "0".into(), ok: value == 0 }
    }

    /// A count that must reach `all`.
    pub fn all(figure: &str, value: usize, all: usize) -> Self {
        Row {
            figure: figure.to_owned(),
            value: json!(format!("{value} of {all}")),
            goal: "all".into(),
            ok: value == all,
        }
    }

    /// A figure shown for context, with no goal.
    pub fn info(figure: &str, value: Value) -> Self {
        Row { figure: figure.to_owned(), value, goal: "—".into(), ok: true }
    }
}

pub struct Report {
    pub part: &'static str,
    pub title: String,
    pub how: String,
    pub rows: Vec<Row>,
}

pub struct Args {
    pub rounds: u32,
    pub app: Option<PathBuf>,
    pub work: PathBuf,
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let part = if args.is_empty() { String::new() } else { args.remove(0) };
    let out = PathBuf::from(take(&mut args, "--out").expect("--out FILE"));
    let commit = take(&mut args, "--commit").unwrap_or_default();
    let work =
        take(&mut args, "--work").map(PathBuf::from).unwrap_or_else(|| std::env::temp_dir().join("clawboo-soak"));
    let rounds =
        take(&mut args, "--rounds").or_else(|| take(&mut args, "--runs")).map_or(0, |n| n.parse().expect("a count"));
    let app = take(&mut args, "--app").map(PathBuf::from);
    assert!(args.is_empty(), "unknown arguments: {args:?}");
    std::fs::create_dir_all(&work).expect("work folder");
    let args = Args { rounds, app, work };

    let began = Instant::now();
    let report = match part.as_str() {
        "crash" => crash::run(&args),
        "cancel" => cancel::run(&args),
        other => panic!("unknown part {other:?}: crash or cancel"),
    };
    let seconds = (began.elapsed().as_secs_f64() * 10.0).round() / 10.0;
    let rows: Vec<Value> =
        report.rows.iter().map(|r| json!({"figure": r.figure, "value": r.value, "goal": r.goal, "ok": r.ok})).collect();
    let measured_at = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
    let json = json!({
        "part": report.part, "title": report.title, "rows": rows, "seconds": seconds,
        "measured_at": measured_at, "commit": commit, "how": report.how,
    });
    if let Some(parent) = out.parent() {
        std::fs::create_dir_all(parent).expect("results folder");
    }
    std::fs::write(&out, format!("{}\n", serde_json::to_string_pretty(&json).unwrap())).expect("write results");
    for row in &report.rows {
        eprintln!(
            "soak {}: {} = {} (goal {}){}",
            report.part,
            row.figure,
            row.value,
            row.goal,
            if row.ok { "" } else { "  MISSED" }
        );
    }
    if report.rows.iter().any(|r| !r.ok) {
        std::process::exit(1);
    }
}

fn take(args: &mut Vec<String>, flag: &str) -> Option<String> {
    let at = args.iter().position(|a| a == flag)?;
    let value = args.get(at + 1).cloned().unwrap_or_else(|| panic!("{flag} needs a value"));
    args.drain(at..at + 2);
    Some(value)
}
