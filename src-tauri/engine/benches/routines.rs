//! The scheduler's arithmetic: the next fire time of cron schedules (a daily one in a zone with
//! daylight saving, a weekday one, a sparse one whose next time is a leap day years away), the
//! next 5 for the editor's preview, and counting a week of missed every-minute slots at start.
//! Goal: a next fire time in well under 1 ms, so a tick over many routines stays cheap.
//!
//! `cargo bench -p clawboo-engine --bench routines` (scripts/bench runs it with the others).

use std::hint::black_box;
use std::time::{Duration, Instant};

use clawboo_engine::routines::schedule::{due_through, next_after, next_n, Schedule};

const RUNS: usize = 2_000;
/// 2026-03-02T07:00:00Z.
const NOW: i64 = 1_772_434_800_000;

fn cron(expr: &str, tz: &str) -> Schedule {
    Schedule::Cron { expr: expr.into(), tz: tz.into() }
}

fn median_us(runs: usize, mut f: impl FnMut(usize)) -> f64 {
    let mut samples: Vec<Duration> = (0..runs)
        .map(|i| {
            let start = Instant::now();
            f(i);
            start.elapsed()
        })
        .collect();
    samples.sort();
    samples[samples.len() / 2].as_secs_f64() * 1e6
}

fn main() {
    let cases = [
        ("daily 02:30 America/New_York", cron("30 2 * * *", "America/New_York")),
        ("weekdays 09:00 Europe/Berlin", cron("0 9 * * 1-5", "Europe/Berlin")),
        ("every 15 min UTC", cron("*/15 * * * *", "UTC")),
        ("leap day (next in 2028)", cron("0 0 29 2 *", "UTC")),
    ];
    for (name, schedule) in &cases {
        let us = median_us(RUNS, |i| {
            black_box(next_after(schedule, NOW + i as i64 * 37_000).unwrap());
        });
        println!("{:<44} median {us:>8.1} µs", format!("next fire time, {name}"));
    }
    let preview = cases[1].1.clone();
    let us = median_us(RUNS, |_| {
        black_box(next_n(&preview, NOW, 5).unwrap());
    });
    println!("{:<44} median {us:>8.1} µs", "preview (next 5), weekdays Berlin");
    let minutely = cron("* * * * *", "Europe/Berlin");
    let week = 7 * 24 * 60 * 60_000;
    let us = median_us(20, |_| {
        black_box(due_through(&minutely, NOW, NOW + week, 10_000).unwrap());
    });
    println!("{:<44} median {:>8.1} ms", "a week of missed minute slots, counted", us / 1_000.0);
}
