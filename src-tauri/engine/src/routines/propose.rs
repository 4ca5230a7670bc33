//! `routine_create`: an agent proposes a routine; the user decides. The tool never creates
//! anything: it checks what the agent sent (untrusted), raises an approval carrying the
//! proposal, and returns at once. `Engine::answer_attention` creates the routine on Allow
//! (created by the agent), nothing on Deny or expiry.
//!
//! Who may propose what: an agent in its one-to-one chat, a routine for itself; a team leader
//! in team chat, for itself or a current member of its team. Routine runs and task runs are
//! never given the tool (hidden work never grants itself work).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::schedule::{self, Schedule};
use super::types::{RoutineInput, MAX_NAME_CHARS, MAX_PROMPT_CHARS};
use crate::agents::Agents;
use crate::attention::{Attention, RequestKind, Source};
use crate::error::{Error, Result};
use crate::store::Store;
use crate::teams::Teams;
use crate::tools::Caller;

/// What an approved proposal creates, as stored with its request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proposal {
    pub input: RoutineInput,
    pub creator_agent_id: String,
}

/// The proposal in `args` (checked by `tools::specs::check_args`), checked again here against
/// the store: the schedule, the sizes, who it is for.
pub fn proposal_of(
    agents: &Agents,
    teams: Option<&Teams>,
    caller: &Caller,
    args: &Value,
    now: i64,
) -> Result<Proposal> {
    let text = |field: &str| args.get(field).and_then(Value::as_str).map(str::trim).unwrap_or("").to_owned();
    let name = text("name");
    let prompt = text("prompt");
    if name.is_empty() || name.chars().count() > MAX_NAME_CHARS {
        return Err(Error::InvalidInput(format!("`name` is 1 to {MAX_NAME_CHARS} characters.")));
    }
    if prompt.is_empty() || prompt.chars().count() > MAX_PROMPT_CHARS {
        return Err(Error::InvalidInput(format!("`prompt` is 1 to {MAX_PROMPT_CHARS} characters.")));
    }
    let schedule = schedule_of(args)?;
    schedule::validate(&schedule, now)?;
    let target = text("for");
    let target = target.trim_start_matches('@');
    let agent_id = if target.is_empty() || target == caller.agent_handle {
        caller.agent_id.clone()
    } else {
        // Only a leader in team chat proposes for someone else: a current member of its team.
        let teams = teams.filter(|_| !caller.team_id.is_empty()).ok_or_else(|| {
            Error::InvalidInput("In a one-to-one chat you may propose a routine only for yourself.".into())
        })?;
        let team = teams.get(&caller.team_id)?;
        let member = team
            .members
            .iter()
            .find(|m| agents.get(&m.agent_id).is_ok_and(|a| a.handle == target))
            .ok_or_else(|| Error::InvalidInput(format!("\"{target}\" is not a member of {}.", team.name)))?;
        member.agent_id.clone()
    };
    let heartbeat = args.get("heartbeat").and_then(Value::as_bool).unwrap_or(false);
    Ok(Proposal {
        input: RoutineInput { name, agent_id: Some(agent_id), team_id: None, prompt, schedule, heartbeat },
        creator_agent_id: caller.agent_id.clone(),
    })
}

fn schedule_of(args: &Value) -> Result<Schedule> {
    let cron = args.get("cron").and_then(Value::as_str);
    let every = args.get("every_minutes").and_then(Value::as_u64);
    let at = args.get("at").and_then(Value::as_str);
    match (cron, every, at) {
        (Some(expr), None, None) => {
            let tz = args
                .get("time_zone")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .unwrap_or_else(schedule::default_time_zone);
            Ok(Schedule::Cron { expr: expr.to_owned(), tz })
        }
        (None, Some(minutes), None) => Ok(Schedule::Every { minutes: u32::try_from(minutes).unwrap_or(u32::MAX) }),
        (None, None, Some(at)) => {
            let at: jiff::Timestamp = at.trim().parse().map_err(|_| {
                Error::InvalidSchedule(format!(
                    "`at` is a time with its offset, e.g. \"2026-05-01T09:00:00+02:00\"; \"{at}\" is not."
                ))
            })?;
            Ok(Schedule::Once { at: at.as_millisecond() })
        }
        _ => Err(Error::InvalidSchedule("Give exactly one of `cron`, `every_minutes` and `at`.".into())),
    }
}

/// Raises the approval for `proposal`, stored with it. Returns the tool's answer for the model.
pub fn raise(
    store: &Store,
    agents: &Agents,
    attention: &Attention,
    caller: &Caller,
    proposal: &Proposal,
    now: i64,
) -> Result<String> {
    let owner = agents.get(proposal.input.agent_id.as_deref().unwrap_or_default())?;
    let non_empty = |s: &str| (!s.is_empty()).then(|| s.to_owned());
    let source = Source {
        agent_id: caller.agent_id.clone(),
        team_id: non_empty(&caller.team_id),
        room_id: non_empty(&caller.room_id),
        run_id: Some(caller.run_id.clone()),
        card_id: None,
        message_id: None,
    };
    let input = &proposal.input;
    let whom = if owner.id == caller.agent_id { "itself".to_owned() } else { format!("@{}", owner.handle) };
    let text =
        format!("New routine \"{}\" for {whom}: {}. Each run: {}", input.name, when(&input.schedule), input.prompt);
    let json = serde_json::to_string(proposal).map_err(|e| Error::Internal(e.to_string()))?;
    let shown = serde_json::to_string_pretty(input).unwrap_or_default();
    let request = attention.raise_routine(&source, RequestKind::RoutineProposal, &text, Some(&shown), |id| {
        store.write(|tx| super::store::insert_request(tx, id, "proposal", None, Some(&json), now))
    })?;
    Ok(format!(
        "Proposed: the routine \"{}\" waits for the user's approval ({}). Nothing runs until they allow it; you will \
         not be told here. Do not propose it again.",
        input.name, request.id
    ))
}

fn when(schedule: &Schedule) -> String {
    match schedule {
        Schedule::Once { at } => match jiff::Timestamp::from_millisecond(*at) {
            Ok(ts) => format!("once at {ts}"),
            Err(_) => "once".into(),
        },
        other => schedule::describe(other),
    }
}
