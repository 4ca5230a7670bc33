//! What stays the same between requests (the system prompt) and how much of the carried
//! conversation goes with each one.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::runtimes::TranscriptTurn;

/// The carried conversation is cut to its most recent turns totalling at most this many
/// characters.
pub const TRANSCRIPT_BUDGET_CHARS: usize = 240_000;

/// The most recent turns of `turns` whose user and assistant text together fit in
/// `budget_chars` characters. Whole turns are dropped, oldest first; a single turn larger than
/// the budget is dropped too.
pub fn trim_transcript(turns: &[TranscriptTurn], budget_chars: usize) -> &[TranscriptTurn] {
    let kept = recent_turns_within(turns.iter().map(|t| (&*t.user, &*t.assistant)), budget_chars);
    &turns[turns.len() - kept..]
}

/// How many of the most recent turns (each its user and assistant text, oldest first)
/// [`trim_transcript`] keeps, for turns held in another shape.
pub fn recent_turns_within<'a>(
    turns: impl DoubleEndedIterator<Item = (&'a str, &'a str)> + Clone,
    budget_chars: usize,
) -> usize {
    // A text has no more characters than bytes: when the bytes fit, every turn does, and the
    // characters need not be counted (every send would count the whole conversation's).
    let (mut bytes, mut turns_in_all) = (0usize, 0);
    for (user, assistant) in turns.clone() {
        bytes += user.len() + assistant.len();
        turns_in_all += 1;
    }
    if bytes <= budget_chars {
        return turns_in_all;
    }
    let mut total = 0usize;
    let mut kept = 0;
    for (user, assistant) in turns.rev() {
        total += user.chars().count() + assistant.chars().count();
        if total > budget_chars {
            break;
        }
        kept += 1;
    }
    kept
}

/// The system prompt: the agent's setup (its persona layer and instructions), a team turn's
/// steady context, then today's date, without the time of day. The date comes last: it changes
/// every day, and everything before it stays the provider's cached prefix.
pub fn system_prompt(setup: &str, steady: &str, now: SystemTime) -> String {
    let parts: Vec<&str> = [setup.trim(), steady.trim()].into_iter().filter(|p| !p.is_empty()).collect();
    let date = date_line(now);
    if parts.is_empty() {
        date
    } else {
        format!("{}\n\n{date}", parts.join("\n\n"))
    }
}

/// The last line of Native's system prompt (also shown in "What this agent saw").
pub fn date_line(now: SystemTime) -> String {
    format!("Today's date is {} (UTC).", utc_date(now))
}

/// `YYYY-MM-DD` of `time` in UTC.
pub fn utc_date(time: SystemTime) -> String {
    let secs = match time.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_secs() as i64,
        // Before 1970: round down to the whole second.
        Err(e) => -(e.duration().as_secs() as i64) - i64::from(e.duration().subsec_nanos() > 0),
    };
    let (y, m, d) = civil_from_days(secs.div_euclid(86_400));
    format!("{y:04}-{m:02}-{d:02}")
}

/// Days since 1970-01-01 to a proleptic Gregorian (year, month, day); Howard Hinnant's
/// `civil_from_days`.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097); // [0, 146096]
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365; // [0, 399]
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // [0, 365]
    let mp = (5 * doy + 2) / 153; // [0, 11], March first
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn turn(user: &str, assistant: &str) -> TranscriptTurn {
        TranscriptTurn::new(user, assistant)
    }

    #[test]
    fn keeps_the_most_recent_whole_turns_within_the_budget() {
        let turns = [turn("aaaa", "bbbb"), turn("cc", "dd"), turn("e", "f")];
        assert_eq!(trim_transcript(&turns, 100), &turns[..]);
        assert_eq!(trim_transcript(&turns, 14), &turns[..]);
        assert_eq!(trim_transcript(&turns, 13), &turns[1..]);
        assert_eq!(trim_transcript(&turns, 6), &turns[1..]);
        assert_eq!(trim_transcript(&turns, 5), &turns[2..]);
        assert_eq!(trim_transcript(&turns, 1), &[] as &[TranscriptTurn]);
        assert_eq!(trim_transcript(&[], 10), &[] as &[TranscriptTurn]);
    }

    #[test]
    fn counts_characters_not_bytes() {
        let turns = [turn("ééé", "世界"), turn("x", "y")];
        assert_eq!(trim_transcript(&turns, 7), &turns[..]);
        assert_eq!(trim_transcript(&turns, 6), &turns[1..]);
    }

    #[test]
    fn an_oversized_latest_turn_is_dropped_and_older_ones_with_it() {
        let turns = [turn("a", "b"), turn(&"x".repeat(300_000), "y")];
        assert!(trim_transcript(&turns, TRANSCRIPT_BUDGET_CHARS).is_empty());
        let turns = [turn(&"x".repeat(200_000), ""), turn(&"y".repeat(50_000), "")];
        assert_eq!(trim_transcript(&turns, TRANSCRIPT_BUDGET_CHARS), &turns[1..]);
    }

    #[test]
    fn dates_are_civil_utc_dates() {
        let at = |secs: u64| utc_date(UNIX_EPOCH + Duration::from_secs(secs));
        assert_eq!(at(0), "1970-01-01");
        assert_eq!(at(86_399), "1970-01-01");
        assert_eq!(at(86_400), "1970-01-02");
        assert_eq!(at(951_782_400), "2000-02-29");
        assert_eq!(at(1_709_164_800 + 86_399), "2024-02-29");
        assert_eq!(at(1_735_689_599), "2024-12-31");
        assert_eq!(at(1_735_689_600), "2025-01-01");
        assert_eq!(at(4_102_444_800), "2100-01-01");
        assert_eq!(utc_date(UNIX_EPOCH - Duration::from_secs(1)), "1969-12-31");
    }

    #[test]
    fn the_system_prompt_is_the_persona_then_the_date() {
        let now = UNIX_EPOCH + Duration::from_secs(1_735_689_600);
        assert_eq!(system_prompt("You are Scout.\n", "", now), "You are Scout.\n\nToday's date is 2025-01-01 (UTC).");
        assert_eq!(system_prompt("  \n", " ", now), "Today's date is 2025-01-01 (UTC).");
        // The steady context comes before the date, so only the last line changes each day.
        assert_eq!(
            system_prompt("You are Scout.", "## Team rules\n1. Be brief.", now),
            "You are Scout.\n\n## Team rules\n1. Be brief.\n\nToday's date is 2025-01-01 (UTC)."
        );
        assert_eq!(system_prompt("", "## Team rules", now), "## Team rules\n\nToday's date is 2025-01-01 (UTC).");
    }
}
