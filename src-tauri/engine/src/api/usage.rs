//! `GET /api/usage?scope=all|agent|team|routine|card&id=…&from=YYYY-MM-DD&to=YYYY-MM-DD`: tokens
//! and money of one scope over local days (both included; `from` defaults to the first day
//! anything can have been recorded, `to` to today). An agent is named by its id or handle.

use serde::Serialize;

use super::{runs, LocalApiParts};
use crate::error::{Error, Result};
use crate::spend::{self, Scope, Totals};

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub scope: Scope,
    pub from: String,
    pub to: String,
    pub totals: Totals,
    /// Every token once.
    pub tokens: u64,
    /// `totals.costMicros` in dollars ("0.012345"); excludes `unpricedTokens` and
    /// `subscriptionTokens`, which carry no price.
    pub cost_usd: String,
    /// Prompt tokens read from the cache, 0..=1.
    pub cache_read_share: f64,
}

/// `get(key)` is a query parameter, decoded.
pub fn answer(parts: &LocalApiParts, get: impl Fn(&str) -> Option<String>) -> Result<Usage> {
    let id = get("id").map(|i| i.trim().to_owned()).filter(|i| !i.is_empty());
    let need_id = |kind: &str| {
        id.clone().ok_or_else(|| Error::InvalidInput(format!("Add &id= with the {kind}'s id for scope={kind}.")))
    };
    let scope = match get("scope").as_deref().map(str::trim).unwrap_or("all") {
        "all" | "" => Scope::All,
        "agent" => Scope::Agent(runs::find_agent(parts, &need_id("agent")?)?.id),
        "team" => Scope::Team(need_id("team")?),
        "routine" => Scope::Routine(need_id("routine")?),
        "card" => Scope::Card(need_id("card")?),
        other => {
            return Err(Error::InvalidInput(format!(
                "“{other}” is not a scope: use all, agent, team, routine or card."
            )))
        }
    };
    let (first, _) = spend::all_time();
    let from = get("from").map(|d| spend::parse_day(&d)).transpose()?.unwrap_or(first);
    let to = get("to").map(|d| spend::parse_day(&d)).transpose()?.unwrap_or_else(spend::today);
    if from > to {
        return Err(Error::InvalidInput("from comes after to.".into()));
    }
    let totals = parts.store.read(|c| spend::totals(c, &scope, from, to))?;
    Ok(Usage {
        scope,
        from: from.to_string(),
        to: to.to_string(),
        tokens: totals.tokens(),
        cost_usd: spend::page::dollars(totals.cost_micros),
        cache_read_share: totals.cache_read_share(),
        totals,
    })
}
