//! Counting usage as it is recorded: one call per relayed request or CLI `Usage` event, inside
//! the caller's transaction (the one that stores the request or the event).

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::scope::{self, RunScope};
use super::{day_of, prices};
use clawboo_vocab::error::Result;

/// Tokens of one model call (or of one CLI report). `input_tokens` excludes cache reads and
/// writes, as in the run events.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cache_read_tokens: u64,
    pub cache_write_tokens: u64,
}

impl Usage {
    /// Every token once.
    pub fn tokens(&self) -> u64 {
        self.input_tokens + self.output_tokens + self.cache_read_tokens + self.cache_write_tokens
    }

    /// From the relay's reading of an answer, whose input count follows the provider's API:
    /// Anthropic's excludes cache reads; OpenAI-style APIs (OpenAI, OpenRouter, a custom
    /// endpoint) include them.
    pub fn from_provider_counts(
        provider: &str,
        input: Option<u64>,
        output: Option<u64>,
        cache_read: Option<u64>,
        cache_write: Option<u64>,
    ) -> Self {
        let cache_read = cache_read.unwrap_or(0);
        let input = input.unwrap_or(0);
        Usage {
            input_tokens: if provider == "anthropic" { input } else { input.saturating_sub(cache_read) },
            output_tokens: output.unwrap_or(0),
            cache_read_tokens: cache_read,
            cache_write_tokens: cache_write.unwrap_or(0),
        }
    }
}

/// Who pays, as far as Clawboo can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum Billing {
    /// A key Clawboo holds, through the relay: priced when the model's price is known.
    Api,
    /// The user's own CLI sign-in: tokens, "on your subscription".
    Subscription,
}

impl Billing {
    pub fn as_str(self) -> &'static str {
        match self {
            Billing::Api => "api",
            Billing::Subscription => "subscription",
        }
    }

    pub fn parse(s: &str) -> Self {
        if s == "subscription" {
            Billing::Subscription
        } else {
            Billing::Api
        }
    }
}

/// The relay granted run `run_id` a token: from now on its spend is the relay's to count.
pub fn mark_relayed(conn: &Connection, run_id: &str) -> Result<()> {
    conn.prepare_cached("INSERT OR IGNORE INTO spend_relayed_runs (run_id) VALUES (?1)")?.execute([run_id])?;
    Ok(())
}

/// Whether run `run_id` was granted a relay token.
pub fn is_relayed(conn: &Connection, run_id: &str) -> Result<bool> {
    let mut stmt = conn.prepare_cached("SELECT 1 FROM spend_relayed_runs WHERE run_id = ?1")?;
    Ok(stmt.query_row([run_id], |_| Ok(())).optional()?.is_some())
}

/// Counts one request the relay forwarded for `run_id` at `at` (Unix ms), priced now. Returns
/// its cost in micro-USD, `None` when the model has no known price.
pub fn record_relayed(
    conn: &Connection,
    run_id: &str,
    at: i64,
    provider: &str,
    model: &str,
    usage: &Usage,
) -> Result<Option<i64>> {
    let cost = prices::price_of(conn, provider, model)?.map(|p| p.cost_micros(usage));
    add(conn, &Line { run_id, at, provider, model: Some(model), billing: Billing::Api, usage, cost })?;
    Ok(cost)
}

/// Counts a CLI's `Usage` event of `run_id`, unless the relay counts that run (see the crate
/// notes). Returns whether it was counted.
pub fn record_cli_usage(conn: &Connection, run_id: &str, at: i64, usage: &Usage) -> Result<bool> {
    if is_relayed(conn, run_id)? {
        return Ok(false);
    }
    add(conn, &Line { run_id, at, provider: "", model: None, billing: Billing::Subscription, usage, cost: None })?;
    Ok(true)
}

struct Line<'a> {
    run_id: &'a str,
    at: i64,
    provider: &'a str,
    /// `None`: the agent's configured model (a CLI's report names none).
    model: Option<&'a str>,
    billing: Billing,
    usage: &'a Usage,
    cost: Option<i64>,
}

/// Adds one line to the run's row, its day's row, and the day's total.
fn add(conn: &Connection, line: &Line<'_>) -> Result<()> {
    let usage = line.usage;
    let unpriced = if line.billing == Billing::Api && line.cost.is_none() { usage.tokens() } else { 0 };
    let day = day_of(line.at).to_string();
    // The run's scope is read once, when its first usage is counted; later lines reuse it.
    let updated = conn
        .prepare_cached(
            "UPDATE run_spend SET requests = requests + 1,
                 input_tokens = input_tokens + ?1, output_tokens = output_tokens + ?2,
                 cache_read_tokens = cache_read_tokens + ?3, cache_write_tokens = cache_write_tokens + ?4,
                 cost_micros = CASE WHEN ?5 IS NULL THEN cost_micros ELSE COALESCE(cost_micros, 0) + ?5 END,
                 unpriced_tokens = unpriced_tokens + ?6
             WHERE run_id = ?7
             RETURNING agent_id, team_id, routine_id, card_id, runtime, model",
        )?
        .query_row(
            params![
                usage.input_tokens as i64,
                usage.output_tokens as i64,
                usage.cache_read_tokens as i64,
                usage.cache_write_tokens as i64,
                line.cost,
                unpriced as i64,
                line.run_id
            ],
            |r| {
                Ok(RunScope {
                    agent_id: r.get(0)?,
                    team_id: r.get(1)?,
                    routine_id: r.get(2)?,
                    card_id: r.get(3)?,
                    runtime: r.get(4)?,
                    // The model the run was first counted under.
                    agent_model: r.get(5)?,
                })
            },
        )
        .optional()?;
    let (scope, model) = match updated {
        Some(scope) => {
            let model = line.model.map_or_else(|| scope.agent_model.clone(), str::to_owned);
            (scope, model)
        }
        None => {
            let scope = scope::of_run(conn, line.run_id)?;
            let model = line.model.map_or_else(|| scope.agent_model.clone(), str::to_owned);
            conn.prepare_cached(
                "INSERT INTO run_spend (run_id, day, at, agent_id, team_id, routine_id, card_id, runtime, provider,
                     model, billing, requests, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
                     cost_micros, unpriced_tokens)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, 1, ?12, ?13, ?14, ?15, ?16, ?17)",
            )?
            .execute(params![
                line.run_id,
                day,
                line.at,
                scope.agent_id,
                scope.team_id,
                scope.routine_id,
                scope.card_id,
                scope.runtime,
                line.provider,
                model,
                line.billing.as_str(),
                usage.input_tokens as i64,
                usage.output_tokens as i64,
                usage.cache_read_tokens as i64,
                usage.cache_write_tokens as i64,
                line.cost,
                unpriced as i64,
            ])?;
            (scope, model)
        }
    };
    conn.prepare_cached(
        "INSERT INTO spend_days (day, agent_id, team_id, routine_id, card_id, runtime, provider, model, billing,
             requests, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_micros, unpriced_tokens)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, 1, ?10, ?11, ?12, ?13, ?14, ?15)
         ON CONFLICT (day, agent_id, team_id, routine_id, card_id, runtime, provider, model, billing) DO UPDATE SET
             requests = requests + 1,
             input_tokens = input_tokens + excluded.input_tokens,
             output_tokens = output_tokens + excluded.output_tokens,
             cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
             cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
             cost_micros = CASE WHEN excluded.cost_micros IS NULL THEN cost_micros
                                ELSE COALESCE(cost_micros, 0) + excluded.cost_micros END,
             unpriced_tokens = unpriced_tokens + excluded.unpriced_tokens",
    )?
    .execute(params![
        day,
        scope.agent_id,
        scope.team_id,
        scope.routine_id,
        scope.card_id,
        scope.runtime,
        line.provider,
        model,
        line.billing.as_str(),
        usage.input_tokens as i64,
        usage.output_tokens as i64,
        usage.cache_read_tokens as i64,
        usage.cache_write_tokens as i64,
        line.cost,
        unpriced as i64,
    ])?;
    let subscription = if line.billing == Billing::Subscription { usage.tokens() } else { 0 };
    conn.prepare_cached(
        "INSERT INTO spend_all_days (day, requests, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
             cost_micros, unpriced_tokens, subscription_tokens)
         VALUES (?1, 1, ?2, ?3, ?4, ?5, COALESCE(?6, 0), ?7, ?8)
         ON CONFLICT (day) DO UPDATE SET
             requests = requests + 1,
             input_tokens = input_tokens + excluded.input_tokens,
             output_tokens = output_tokens + excluded.output_tokens,
             cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens,
             cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
             cost_micros = cost_micros + excluded.cost_micros,
             unpriced_tokens = unpriced_tokens + excluded.unpriced_tokens,
             subscription_tokens = subscription_tokens + excluded.subscription_tokens",
    )?
    .execute(params![
        day,
        usage.input_tokens as i64,
        usage.output_tokens as i64,
        usage.cache_read_tokens as i64,
        usage.cache_write_tokens as i64,
        line.cost,
        unpriced as i64,
        subscription as i64,
    ])?;
    Ok(())
}
