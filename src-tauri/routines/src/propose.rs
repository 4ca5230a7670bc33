//! A routine an agent proposes (the tool `routine_create`, in the engine's `tools::routine`): the
//! approval that carries it. `Engine::answer_attention` creates the routine on Allow (created
//! by the agent), nothing on Deny or expiry.

use serde::{Deserialize, Serialize};

use super::schedule::{self, Schedule};
use super::types::RoutineInput;
use clawboo_agents::Agents;
use clawboo_attention::{Attention, RequestKind, Source};
use clawboo_store::store::Store;
use clawboo_vocab::error::{Error, Result};

/// What an approved proposal creates, as stored with its request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Proposal {
    pub input: RoutineInput,
    pub creator_agent_id: String,
}

/// Raises the approval for `proposal`, stored with it. Returns the tool's answer for the model.
/// `source` is where the proposing call comes from.
pub fn raise(
    store: &Store,
    agents: &Agents,
    attention: &Attention,
    source: &Source,
    proposal: &Proposal,
    now: i64,
) -> Result<String> {
    let owner = agents.get(proposal.input.agent_id.as_deref().unwrap_or_default())?;
    let input = &proposal.input;
    let whom = if owner.id == proposal.creator_agent_id { "itself".to_owned() } else { format!("@{}", owner.handle) };
    let text =
        format!("New routine \"{}\" for {whom}: {}. Each run: {}", input.name, when(&input.schedule), input.prompt);
    let json = serde_json::to_string(proposal).map_err(|e| Error::Internal(e.to_string()))?;
    let shown = serde_json::to_string_pretty(input).unwrap_or_default();
    let request = attention.raise_routine(source, RequestKind::RoutineProposal, &text, Some(&shown), |id| {
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
