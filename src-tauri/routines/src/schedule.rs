//! When a routine fires: once at a time, every N minutes, or a 5-field cron expression in an
//! IANA time zone. Pure: no clock, no I/O (the zone database is read through `jiff`).
//!
//! Cron: `minute hour day-of-month month day-of-week`, each field `*`, a value, a range `a-b`,
//! a step (`*/15`, `10-50/20`, `5/10`), or a comma list of those; months `jan`–`dec` and days
//! `sun`–`sat` by name too; day-of-week 7 is Sunday. When both day fields are restricted a day
//! matches either (the standard cron OR rule); a field starting with `*` is unrestricted.
//!
//! Daylight saving: cron times are civil (wall-clock) times, walked forward and converted with
//! the "compatible" rule. A time in a spring-forward gap fires once, at the shifted instant
//! (02:30 that does not exist fires at 03:30); a time in a fall-back fold fires once, at its
//! first occurrence. So a daily run is neither skipped nor doubled.

use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;
use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use clawboo_vocab::error::{Error, Result};

/// The shortest interval, in minutes.
pub const MIN_INTERVAL_MINUTES: u32 = 1;
/// The longest interval: one year, in minutes.
pub const MAX_INTERVAL_MINUTES: u32 = 366 * 24 * 60;
/// A cron expression longer than this is refused.
pub const MAX_CRON_CHARS: usize = 200;
/// How far ahead a cron expression is searched for its next time (8 years: every leap day has
/// each weekday within it). One that never fires within it never fires.
const SEARCH_DAYS: u32 = 8 * 366;
/// The editor's preview shows this many fire times.
pub const PREVIEW_COUNT: usize = 5;

const MINUTE_MS: i64 = 60_000;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Schedule {
    /// Once, at `at` (epoch milliseconds).
    Once { at: i64 },
    /// Every `minutes` (hours are minutes × 60), counted from the last time it was due.
    Every { minutes: u32 },
    /// A 5-field cron expression in the IANA time zone `tz`.
    Cron { expr: String, tz: String },
}

/// A schedule for a common case, offered by the editor.
#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Preset {
    pub id: String,
    pub label: String,
    /// Its cron expression (in the user's time zone).
    pub expr: String,
}

/// The presets, in the order the editor lists them.
pub const PRESETS: [(&str, &str, &str); 6] = [
    ("morning", "Every morning at 08:00", "0 8 * * *"),
    ("weekdays", "Weekdays at 09:00", "0 9 * * 1-5"),
    ("hourly", "Every hour, on the hour", "0 * * * *"),
    ("nightly", "Every night at 02:00", "0 2 * * *"),
    ("weekly", "Every Monday at 09:00", "0 9 * * 1"),
    ("monthly", "The 1st of every month at 09:00", "0 9 1 * *"),
];

pub fn presets() -> Vec<Preset> {
    PRESETS
        .iter()
        .map(|(id, label, expr)| Preset { id: (*id).into(), label: (*label).into(), expr: (*expr).into() })
        .collect()
}

/// The user's time zone as the OS reports it (IANA name), else UTC.
pub fn default_time_zone() -> String {
    TimeZone::try_system().ok().and_then(|tz| tz.iana_name().map(str::to_owned)).unwrap_or_else(|| "UTC".into())
}

/// A parsed cron expression: one bit per allowed value of each field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cron {
    minutes: u64,
    hours: u32,
    days_of_month: u32,
    months: u16,
    days_of_week: u8,
    /// The day fields are restricted (not starting with `*`): both restricted means OR.
    dom_restricted: bool,
    dow_restricted: bool,
}

const MONTHS: [&str; 12] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DAYS: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

impl Cron {
    pub fn parse(expr: &str) -> Result<Self> {
        let expr = expr.trim();
        if expr.chars().count() > MAX_CRON_CHARS {
            return Err(invalid(format!("A cron expression has at most {MAX_CRON_CHARS} characters.")));
        }
        let fields: Vec<&str> = expr.split_whitespace().collect();
        if fields.len() != 5 {
            return Err(invalid(format!(
                "A cron expression has 5 fields (minute hour day-of-month month day-of-week), e.g. \"0 8 * * 1-5\"; \
                 \"{expr}\" has {}.",
                fields.len()
            )));
        }
        let minutes = field(fields[0], "minute", 0, 59, &[])?;
        let hours = field(fields[1], "hour", 0, 23, &[])?;
        let days_of_month = field(fields[2], "day-of-month", 1, 31, &[])?;
        let months = field(fields[3], "month", 1, 12, &MONTHS)?;
        let mut days_of_week = field(fields[4], "day-of-week", 0, 7, &DAYS)?;
        if days_of_week & (1 << 7) != 0 {
            days_of_week = (days_of_week & !(1 << 7)) | 1; // 7 is Sunday too
        }
        Ok(Self {
            minutes,
            hours: hours as u32,
            days_of_month: days_of_month as u32,
            months: months as u16,
            days_of_week: days_of_week as u8,
            dom_restricted: !fields[2].starts_with('*'),
            dow_restricted: !fields[4].starts_with('*'),
        })
    }

    fn day_matches(&self, date: Date) -> bool {
        if self.months & (1 << date.month()) == 0 {
            return false;
        }
        let dom = self.days_of_month & (1 << date.day()) != 0;
        let dow = self.days_of_week & (1 << date.weekday().to_sunday_zero_offset()) != 0;
        match (self.dom_restricted, self.dow_restricted) {
            (true, true) => dom || dow,
            (true, false) => dom,
            (false, true) => dow,
            (false, false) => true,
        }
    }

    /// The first time after `after` (epoch ms) in `tz`, if any within the search window.
    fn next_after(&self, tz: &TimeZone, after: i64) -> Option<i64> {
        let after_ts = Timestamp::from_millisecond(after).ok()?;
        let start = tz.to_datetime(after_ts);
        let start_minute =
            DateTime::new(start.year(), start.month(), start.day(), start.hour(), start.minute(), 0, 0).ok()?;
        let mut date = start.date();
        for _ in 0..SEARCH_DAYS {
            if self.day_matches(date) {
                for hour in (0..24i8).filter(|h| self.hours & (1 << h) != 0) {
                    for minute in (0..60i8).filter(|m| self.minutes & (1u64 << m) != 0) {
                        let civil = DateTime::new(date.year(), date.month(), date.day(), hour, minute, 0, 0).ok()?;
                        if civil < start_minute {
                            continue;
                        }
                        // Compatible: a gap's time moves forward by the gap, a fold's is its first.
                        let at = tz.to_ambiguous_timestamp(civil).compatible().ok()?.as_millisecond();
                        if at > after {
                            return Some(at);
                        }
                    }
                }
            }
            date = date.tomorrow().ok()?;
        }
        None
    }
}

/// One cron field as a bit set over `min..=max`.
fn field(text: &str, what: &str, min: u32, max: u32, names: &[&str]) -> Result<u64> {
    let bad = |why: String| invalid(format!("The {what} field \"{text}\" is not valid: {why}."));
    let value = |s: &str| -> Result<u32> {
        let lower = s.to_ascii_lowercase();
        if let Some(i) = names.iter().position(|n| *n == lower) {
            // Months are named from 1 (`min`), days of the week from 0 (`min`).
            return Ok(i as u32 + min);
        }
        let n: u32 = s.parse().map_err(|_| bad(format!("\"{s}\" is not a number")))?;
        if n < min || n > max {
            return Err(bad(format!("{n} is outside {min}–{max}")));
        }
        Ok(n)
    };
    let mut bits = 0u64;
    for item in text.split(',') {
        if item.is_empty() {
            return Err(bad("an empty list item".into()));
        }
        let (range, step) = match item.split_once('/') {
            Some((range, step)) => {
                let step: u32 = step.parse().map_err(|_| bad(format!("the step \"{step}\" is not a number")))?;
                if step == 0 {
                    return Err(bad("a step of 0".into()));
                }
                (range, Some(step))
            }
            None => (item, None),
        };
        let (lo, hi) = if range == "*" {
            (min, max)
        } else if let Some((a, b)) = range.split_once('-') {
            let (a, b) = (value(a)?, value(b)?);
            if a > b {
                return Err(bad(format!("the range {a}-{b} runs backwards")));
            }
            (a, b)
        } else {
            let a = value(range)?;
            // `5/10`: from 5 to the end, every 10.
            (a, if step.is_some() { max } else { a })
        };
        let step = step.unwrap_or(1);
        let mut n = lo;
        while n <= hi {
            bits |= 1 << n;
            n += step;
        }
    }
    Ok(bits)
}

fn invalid(message: String) -> Error {
    Error::InvalidSchedule(message)
}

fn zone(name: &str) -> Result<TimeZone> {
    let name = name.trim();
    if name.is_empty() {
        return Err(invalid("A cron schedule needs a time zone (an IANA name such as Europe/Berlin).".into()));
    }
    TimeZone::get(name).map_err(|_| {
        invalid(format!(
            "\"{name}\" is not a known time zone; use an IANA name such as Europe/Berlin or America/New_York."
        ))
    })
}

/// Checks a schedule as it is saved at `now`: the cron and its zone parse and it fires at
/// least once; an interval is at least a minute; a one-time run is in the future.
pub fn validate(schedule: &Schedule, now: i64) -> Result<()> {
    match schedule {
        Schedule::Once { at } => {
            if *at <= now {
                return Err(invalid("That time has already passed: choose a time in the future.".into()));
            }
            Timestamp::from_millisecond(*at).map_err(|_| invalid("That time is out of range.".into()))?;
        }
        Schedule::Every { minutes } => {
            if *minutes < MIN_INTERVAL_MINUTES {
                return Err(invalid("A routine runs at most once a minute: the interval is at least 1 minute.".into()));
            }
            if *minutes > MAX_INTERVAL_MINUTES {
                return Err(invalid("The interval is at most one year; use a cron schedule for rarer runs.".into()));
            }
        }
        Schedule::Cron { expr, tz } => {
            let cron = Cron::parse(expr)?;
            let tz = zone(tz)?;
            if cron.next_after(&tz, now).is_none() {
                return Err(invalid(format!("\"{}\" never fires (no such date).", expr.trim())));
            }
        }
    }
    Ok(())
}

/// The schedule as stored: a cron's expression and zone trimmed, its fields single-spaced.
pub fn normalized(schedule: &Schedule) -> Schedule {
    match schedule {
        Schedule::Cron { expr, tz } => {
            Schedule::Cron { expr: expr.split_whitespace().collect::<Vec<_>>().join(" "), tz: tz.trim().to_owned() }
        }
        other => other.clone(),
    }
}

/// The first time `schedule` is due strictly after `after` (epoch ms); `None` when it is not
/// due again (a one-time run that passed, a cron that never fires). An interval counts from
/// `after`. Errors only for a schedule [`validate`] refuses.
pub fn next_after(schedule: &Schedule, after: i64) -> Result<Option<i64>> {
    match schedule {
        Schedule::Once { at } => Ok((*at > after).then_some(*at)),
        Schedule::Every { minutes } => {
            if *minutes < MIN_INTERVAL_MINUTES {
                return Err(invalid("The interval is at least 1 minute.".into()));
            }
            Ok(Some(after + i64::from(*minutes) * MINUTE_MS))
        }
        Schedule::Cron { expr, tz } => Ok(Cron::parse(expr)?.next_after(&zone(tz)?, after)),
    }
}

/// The next `n` times after `after`.
pub fn next_n(schedule: &Schedule, after: i64, n: usize) -> Result<Vec<i64>> {
    let mut times = Vec::with_capacity(n);
    let mut cursor = after;
    while times.len() < n {
        match next_after(schedule, cursor)? {
            Some(at) => {
                times.push(at);
                cursor = at;
            }
            None => break,
        }
    }
    Ok(times)
}

/// The slots due from `slot` (itself due, `slot <= now`) through `now`: how many (at most
/// `cap`), and the first slot after `now` (`None`: none comes). Intervals count from `slot`.
pub fn due_through(schedule: &Schedule, slot: i64, now: i64, cap: u32) -> Result<(u32, Option<i64>)> {
    if let Schedule::Every { minutes } = schedule {
        let step = i64::from((*minutes).max(MIN_INTERVAL_MINUTES)) * MINUTE_MS;
        let passed = (now - slot).max(0) / step; // slots after `slot` that are due too
        let count = u32::try_from(passed + 1).unwrap_or(u32::MAX).min(cap);
        return Ok((count, Some(slot + (passed + 1) * step)));
    }
    let mut count = 1u32;
    let mut cursor = slot;
    loop {
        match next_after(schedule, cursor)? {
            Some(at) if at <= now => {
                if count >= cap {
                    // Too many to count one by one: the next one after now is all that matters.
                    return Ok((count, next_after(schedule, now)?));
                }
                count += 1;
                cursor = at;
            }
            next => return Ok((count, next)),
        }
    }
}

/// The schedule in words, for lists ("Weekdays at 09:00 (Europe/Berlin)").
pub fn describe(schedule: &Schedule) -> String {
    match schedule {
        Schedule::Once { .. } => "Once".into(),
        Schedule::Every { minutes } if minutes % (24 * 60) == 0 => plural(minutes / (24 * 60), "day"),
        Schedule::Every { minutes } if minutes % 60 == 0 => plural(minutes / 60, "hour"),
        Schedule::Every { minutes } => plural(*minutes, "minute"),
        Schedule::Cron { expr, tz } => {
            let expr = expr.split_whitespace().collect::<Vec<_>>().join(" ");
            match PRESETS.iter().find(|(_, _, e)| *e == expr) {
                Some((_, label, _)) => format!("{label} ({tz})"),
                None => format!("Cron \"{expr}\" ({tz})"),
            }
        }
    }
}

fn plural(n: u32, unit: &str) -> String {
    if n == 1 {
        format!("Every {unit}")
    } else {
        format!("Every {n} {unit}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(text: &str) -> i64 {
        text.parse::<Timestamp>().unwrap().as_millisecond()
    }

    fn iso(at: i64) -> String {
        Timestamp::from_millisecond(at).unwrap().to_string()
    }

    fn cron(expr: &str, tz: &str) -> Schedule {
        Schedule::Cron { expr: expr.into(), tz: tz.into() }
    }

    fn next5(schedule: &Schedule, after: &str) -> Vec<String> {
        next_n(schedule, ms(after), 5).unwrap().into_iter().map(iso).collect()
    }

    #[test]
    fn fields_take_stars_lists_ranges_steps_and_names() {
        let c = Cron::parse("*/15 9-17/4 1,15 jan-MAR mon-fri").unwrap();
        assert_eq!(c.minutes, (1 << 0) | (1 << 15) | (1 << 30) | (1 << 45));
        assert_eq!(c.hours, (1 << 9) | (1 << 13) | (1 << 17));
        assert_eq!(c.days_of_month, (1 << 1) | (1 << 15));
        assert_eq!(c.months, (1 << 1) | (1 << 2) | (1 << 3));
        assert_eq!(c.days_of_week, 0b0111110);
        let c = Cron::parse("5/20 0 * dec 7").unwrap();
        assert_eq!(c.minutes, (1 << 5) | (1 << 25) | (1 << 45));
        assert_eq!(c.months, 1 << 12);
        assert_eq!(c.days_of_week, 1, "7 is Sunday");
        assert_eq!(Cron::parse("0 0 * * sun,SAT").unwrap().days_of_week, 1 | (1 << 6));
    }

    #[test]
    fn bad_cron_expressions_say_what_is_wrong() {
        for (expr, says) in [
            ("* * * *", "has 5 fields"),
            ("* * * * * *", "has 5 fields"),
            ("60 * * * *", "60 is outside 0–59"),
            ("* 24 * * *", "24 is outside 0–23"),
            ("* * 0 * *", "0 is outside 1–31"),
            ("* * * 13 *", "13 is outside 1–12"),
            ("* * * * 8", "8 is outside 0–7"),
            ("*/0 * * * *", "a step of 0"),
            ("5-1 * * * *", "runs backwards"),
            ("a * * * *", "\"a\" is not a number"),
            ("1,,2 * * * *", "an empty list item"),
            ("* * * foo *", "\"foo\" is not a number"),
        ] {
            let e = Cron::parse(expr).unwrap_err();
            assert_eq!(e.code(), clawboo_vocab::ErrorCode::InvalidSchedule);
            assert!(e.to_string().contains(says), "{expr}: {e}");
        }
    }

    #[test]
    fn validation_refuses_bad_zones_short_intervals_the_past_and_impossible_dates() {
        let now = ms("2026-03-01T12:00:00Z");
        let err = |s: Schedule| validate(&s, now).unwrap_err().to_string();
        assert!(err(cron("0 8 * * *", "Mars/Olympus")).contains("not a known time zone"));
        assert!(err(cron("0 8 * * *", " ")).contains("needs a time zone"));
        assert!(err(Schedule::Every { minutes: 0 }).contains("at least 1 minute"));
        assert!(err(Schedule::Every { minutes: MAX_INTERVAL_MINUTES + 1 }).contains("at most one year"));
        assert!(err(Schedule::Once { at: now - 1 }).contains("already passed"));
        assert!(err(Schedule::Once { at: now }).contains("already passed"));
        assert!(err(cron("0 0 30 2 *", "UTC")).contains("never fires"));
        validate(&cron("0 8 * * *", "Europe/Berlin"), now).unwrap();
        validate(&Schedule::Every { minutes: 1 }, now).unwrap();
        validate(&Schedule::Once { at: now + 1 }, now).unwrap();
        // Leap days come, on any weekday.
        validate(&cron("0 0 29 2 *", "UTC"), now).unwrap();
    }

    #[test]
    fn cron_times_are_wall_clock_times_in_the_zone() {
        let weekdays = cron("0 9 * * 1-5", "Europe/Berlin");
        // Friday 2026-03-06 10:00 Berlin: next is Monday 9:00 Berlin (08:00 UTC, CET).
        assert_eq!(
            next5(&weekdays, "2026-03-06T09:00:00Z"),
            [
                "2026-03-09T08:00:00Z",
                "2026-03-10T08:00:00Z",
                "2026-03-11T08:00:00Z",
                "2026-03-12T08:00:00Z",
                "2026-03-13T08:00:00Z"
            ]
        );
        // Exactly at a fire time: the next one, not the same.
        let hourly = cron("0 * * * *", "UTC");
        assert_eq!(next_after(&hourly, ms("2026-03-06T09:00:00Z")).unwrap(), Some(ms("2026-03-06T10:00:00Z")));
    }

    #[test]
    fn day_of_month_and_day_of_week_both_restricted_match_either() {
        // The 13th, or any Friday.
        let s = cron("0 12 13 * fri", "UTC");
        assert_eq!(
            next5(&s, "2026-03-01T00:00:00Z"),
            [
                "2026-03-06T12:00:00Z",
                "2026-03-13T12:00:00Z",
                "2026-03-20T12:00:00Z",
                "2026-03-27T12:00:00Z",
                "2026-04-03T12:00:00Z"
            ]
        );
        // Only one restricted: that one alone.
        let s = cron("0 12 13 * *", "UTC");
        assert_eq!(next5(&s, "2026-03-01T00:00:00Z")[..2], ["2026-03-13T12:00:00Z", "2026-04-13T12:00:00Z"]);
        let s = cron("0 12 */10 * fri", "UTC"); // `*/10` starts with `*`: unrestricted, so Fridays
        assert_eq!(next5(&s, "2026-03-01T00:00:00Z")[0], "2026-03-06T12:00:00Z");
    }

    /// A daily run at `hh:mm` across a transition: one run per day, none skipped or doubled.
    fn daily_across(expr: &str, tz: &str, from: &str, days: usize) -> Vec<String> {
        let s = cron(expr, tz);
        let times = next_n(&s, ms(from), days).unwrap();
        let zone = TimeZone::get(tz).unwrap();
        let dates: Vec<String> = times
            .iter()
            .map(|t| zone.to_datetime(Timestamp::from_millisecond(*t).unwrap()).date().to_string())
            .collect();
        let mut unique = dates.clone();
        unique.dedup();
        assert_eq!(unique.len(), days, "one run per day: {dates:?}");
        times.into_iter().map(iso).collect()
    }

    #[test]
    fn new_york_spring_forward_moves_a_missing_time_forward_once() {
        // 2026-03-08 02:00 EST jumps to 03:00 EDT: 02:30 does not exist that day.
        let runs = daily_across("30 2 * * *", "America/New_York", "2026-03-06T12:00:00Z", 4);
        assert_eq!(
            runs,
            ["2026-03-07T07:30:00Z", "2026-03-08T07:30:00Z", "2026-03-09T06:30:00Z", "2026-03-10T06:30:00Z"],
            "02:30 EST; on the day, 03:30 EDT (the shifted instant); then 02:30 EDT"
        );
        let runs = daily_across("30 1 * * *", "America/New_York", "2026-03-06T12:00:00Z", 4);
        assert_eq!(
            runs,
            ["2026-03-07T06:30:00Z", "2026-03-08T06:30:00Z", "2026-03-09T05:30:00Z", "2026-03-10T05:30:00Z"]
        );
    }

    #[test]
    fn new_york_fall_back_runs_a_repeated_time_once() {
        // 2026-11-01 02:00 EDT falls back to 01:00 EST: 01:30 happens twice.
        let runs = daily_across("30 1 * * *", "America/New_York", "2026-10-30T12:00:00Z", 4);
        assert_eq!(
            runs,
            ["2026-10-31T05:30:00Z", "2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z", "2026-11-03T06:30:00Z"],
            "the first 01:30 (EDT) only"
        );
        let runs = daily_across("30 2 * * *", "America/New_York", "2026-10-30T12:00:00Z", 3);
        assert_eq!(runs, ["2026-10-31T06:30:00Z", "2026-11-01T07:30:00Z", "2026-11-02T07:30:00Z"]);
        // Asked from inside the second 01:30 hour: the next is the next day's, not the fold again.
        let s = cron("30 1 * * *", "America/New_York");
        assert_eq!(next_after(&s, ms("2026-11-01T06:15:00Z")).unwrap(), Some(ms("2026-11-02T06:30:00Z")));
    }

    #[test]
    fn berlin_both_directions() {
        // 2026-03-29 02:00 CET jumps to 03:00 CEST.
        let runs = daily_across("30 2 * * *", "Europe/Berlin", "2026-03-27T12:00:00Z", 4);
        assert_eq!(
            runs,
            ["2026-03-28T01:30:00Z", "2026-03-29T01:30:00Z", "2026-03-30T00:30:00Z", "2026-03-31T00:30:00Z"]
        );
        // 2026-10-25 03:00 CEST falls back to 02:00 CET: 02:30 happens twice.
        let runs = daily_across("30 2 * * *", "Europe/Berlin", "2026-10-23T12:00:00Z", 4);
        assert_eq!(
            runs,
            ["2026-10-24T00:30:00Z", "2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z", "2026-10-27T01:30:00Z"]
        );
        let runs = daily_across("30 1 * * *", "Europe/Berlin", "2026-10-23T12:00:00Z", 3);
        assert_eq!(runs, ["2026-10-23T23:30:00Z", "2026-10-24T23:30:00Z", "2026-10-26T00:30:00Z"]);
    }

    #[test]
    fn every_quarter_hour_through_a_gap_has_no_duplicates() {
        let s = cron("*/15 * * * *", "America/New_York");
        let times = next_n(&s, ms("2026-03-08T06:40:00Z"), 6).unwrap();
        let shown: Vec<String> = times.iter().copied().map(iso).collect();
        // 01:45 EST, then the gap's 02:00 shifts to 03:00 EDT, and on.
        assert_eq!(
            shown,
            [
                "2026-03-08T06:45:00Z",
                "2026-03-08T07:00:00Z",
                "2026-03-08T07:15:00Z",
                "2026-03-08T07:30:00Z",
                "2026-03-08T07:45:00Z",
                "2026-03-08T08:00:00Z"
            ]
        );
    }

    #[test]
    fn once_and_every() {
        let at = ms("2026-05-01T10:00:00Z");
        assert_eq!(next_after(&Schedule::Once { at }, at - 1).unwrap(), Some(at));
        assert_eq!(next_after(&Schedule::Once { at }, at).unwrap(), None);
        let every = Schedule::Every { minutes: 90 };
        assert_eq!(next_n(&every, at, 2).unwrap(), [at + 90 * MINUTE_MS, at + 180 * MINUTE_MS]);
    }

    #[test]
    fn due_through_counts_missed_slots_and_finds_the_next() {
        let slot = ms("2026-03-02T08:00:00Z");
        let daily = cron("0 8 * * *", "UTC");
        assert_eq!(due_through(&daily, slot, slot, 100).unwrap(), (1, Some(slot + 24 * 60 * MINUTE_MS)));
        let now = ms("2026-03-05T09:00:00Z");
        assert_eq!(due_through(&daily, slot, now, 100).unwrap(), (4, Some(ms("2026-03-06T08:00:00Z"))));
        let every = Schedule::Every { minutes: 10 };
        assert_eq!(due_through(&every, slot, slot + 35 * MINUTE_MS, 100).unwrap(), (4, Some(slot + 40 * MINUTE_MS)));
        // A cap bounds the counting.
        let minutely = cron("* * * * *", "UTC");
        let (count, next) = due_through(&minutely, slot, slot + 1_000 * MINUTE_MS, 50).unwrap();
        assert_eq!((count, next), (50, Some(slot + 1_001 * MINUTE_MS)));
        let once = Schedule::Once { at: slot };
        assert_eq!(due_through(&once, slot, now, 100).unwrap(), (1, None));
    }

    #[test]
    fn presets_parse_and_read_as_words() {
        for p in presets() {
            Cron::parse(&p.expr).unwrap();
        }
        assert_eq!(describe(&cron("0  9 * * 1-5", "Europe/Berlin")), "Weekdays at 09:00 (Europe/Berlin)");
        assert_eq!(describe(&cron("7 9 * * *", "UTC")), "Cron \"7 9 * * *\" (UTC)");
        assert_eq!(describe(&Schedule::Every { minutes: 120 }), "Every 2 hours");
        assert_eq!(describe(&Schedule::Every { minutes: 1 }), "Every minute");
        assert_eq!(describe(&Schedule::Every { minutes: 1440 }), "Every day");
    }
}
