//! What the benches print for `scripts/bench` to collect: one `BENCH_JSON {...}` line per figure,
//! next to their human-readable lines.

use std::time::Duration;

/// A figure measured by a bench: `id` is stable (the report keys on it), `median` in `unit`,
/// over `n` samples.
pub fn report(id: &str, label: &str, unit: &str, median: f64, n: usize) {
    let line = serde_json::json!({ "id": id, "label": label, "unit": unit, "median": median, "n": n });
    println!("BENCH_JSON {line}");
}

/// `scripts/bench --quick` sets BENCH_QUICK=1: fewer samples, for trying the pipeline out.
pub fn quick() -> bool {
    std::env::var_os("BENCH_QUICK").is_some_and(|v| !v.is_empty() && v != "0")
}

/// `full` normally, `quick` under `--quick`; `BENCH_SAMPLES=N` sets N instead (more samples to
/// profile one part with `perf`).
pub fn samples(full: usize, quick: usize) -> usize {
    if let Some(n) = std::env::var("BENCH_SAMPLES").ok().and_then(|v| v.parse().ok()).filter(|&n: &usize| n > 0) {
        n
    } else if self::quick() {
        quick
    } else {
        full
    }
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
