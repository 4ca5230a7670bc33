//! What agents spend (issue #27). Usage is counted **as it is recorded**, in the same
//! transaction: the relay's request ([`record::record_relayed`], called where `run_requests` is
//! written) and a CLI's `Usage` event ([`record::record_cli_usage`], called where `run_events` is
//! written). Each adds to two tables of migration 28: `spend_days` (one row per local day and
//! agent, team, routine, card, runtime, provider, model, billing) and `run_spend` (one per run),
//! and to migration 30's `spend_all_days` (one row per local day: what the overall budget reads).
//! Totals ([`totals`]) read only the per-day tables, so they cost the same at a million requests
//! as at ten.
//!
//! **One model call, one count.** A run granted a relay token ([`record::mark_relayed`], called
//! by the relay when it grants) is counted from the relay's requests, which carry the model and
//! so a price; its CLI's own `Usage` events are not counted again. A run never granted one ran
//! on the user's own CLI sign-in: its `Usage` events are counted as `subscription` — tokens,
//! never money (a CLI's own `cost_usd` is an API-equivalent estimate, not what the user pays).
//!
//! **Money** is integer micro-USD. Prices are micro-USD per million tokens ([`prices`]); a
//! request's cost is rounded to the nearest micro-USD once, when it is recorded, at the price
//! of that moment (a price changed later does not rewrite the past). A model with no known
//! price is counted in tokens (`unpriced_tokens`) and has no cost — never a guessed one.
//!
//! **Tokens** follow the run events' convention: `input_tokens` are those *not* read from the
//! cache, so input + output + cache reads + cache writes is every token once (the relay's
//! OpenAI-style counts, which include cached tokens, are converted).

pub mod backfill;
pub mod page;
pub mod prices;
pub mod record;
mod request_model;
pub mod runs;
mod scope;
#[cfg(test)]
mod tests;
pub mod totals;

pub use jiff::civil::Date;
pub use page::{parse_day, Named, SpendPage, SpendQuery};
pub use prices::{Price, PriceEntry, PriceSource};
pub use record::{Billing, Usage};
pub use runs::{card_runs, run_spend, runs_between, runs_spend, RunSpend};
pub use totals::{by_day, filtered, top, totals, DaySpend, GroupBy, Scope, SpendFilter, SpendScope, TopSpend, Totals};

use jiff::tz::TimeZone;
use jiff::Timestamp;

/// The local calendar day of `ms` (Unix milliseconds), in the system's time zone: the day a
/// request counts for. Spend pages ask by the same days.
pub fn day_of(ms: i64) -> Date {
    let at = Timestamp::from_millisecond(ms).unwrap_or(Timestamp::UNIX_EPOCH);
    TimeZone::system().to_datetime(at).date()
}

/// From the first day anything can have been recorded to the last: a card's or a run's whole
/// spend.
pub fn all_time() -> (Date, Date) {
    (jiff::civil::date(1970, 1, 1), jiff::civil::date(9999, 12, 31))
}

/// Today, locally.
pub fn today() -> Date {
    day_of(clawboo_vocab::clock::now_ms())
}

/// When local day `day` starts (its first millisecond, in the system's time zone): where a
/// day's budget and a "tomorrow" begin. A day the zone skips into starts when it can.
pub fn day_start_ms(day: Date) -> i64 {
    day.to_zoned_datetime(TimeZone::system())
        .or_else(|_| day.to_zoned_datetime(TimeZone::UTC))
        .map_or(0, |start| start.timestamp().as_millisecond())
}
