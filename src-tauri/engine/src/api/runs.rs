//! Runs as the local API shows them. An API run is a task of the task runner: its id is the
//! task's claim (the id of its first run), and it spans that run and the fix rounds and fresh
//! sessions that continue it (each an attempt with its own run id and events).

use std::sync::Arc;

use rusqlite::{params, Connection};
use serde::{Deserialize, Serialize};

use super::LocalApiParts;
use crate::board::records::{run_from_row, RUN_COLUMNS};
use crate::board::{self, ActivityKind, CardRun, CardRunKind, CardRunStatus, CardStatus, CommentKind, NewCard};
use crate::error::{Error, Result};
use crate::runner::StartOptions;

/// Runs listed when no `limit` is given, and the most ever listed.
pub const DEFAULT_LIST: u32 = 50;
pub const MAX_LIST: u32 = 500;

/// `POST /api/runtimes/:agent/run`'s body. Unknown fields are refused: a misspelled
/// `disableMemoryAutoInject` must not quietly give the run the memory it was meant to lack.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StartRequest {
    pub task: String,
    pub title: Option<String>,
    #[serde(default)]
    pub disable_memory_auto_inject: bool,
    pub team_id: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Started {
    pub run_id: String,
    pub card_id: String,
    pub card_number: u32,
    pub agent_id: String,
    /// Waiting for a free slot (at most "runs at once" go together).
    pub queued: bool,
    pub status: ApiRunStatus,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ApiRunStatus {
    /// Claimed, waiting for a free slot.
    Queued,
    Running,
    Ended,
}

/// How an ended run went, read from where it left its card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum RunOutcome {
    /// The agent finished: the card went to In review (or Done, its check passing).
    Succeeded,
    /// The card went to Blocked: the run failed, its check kept failing, or it waits for the
    /// user's answer (`reason` says which).
    Blocked,
    /// Stopped by the user (through the API or the app) before it finished.
    Cancelled,
    /// Cut off when Clawboo quit; the card's next run is told so.
    Interrupted,
}

#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ApiRunCard {
    pub id: String,
    pub number: u32,
    pub title: String,
    /// Where the card is now.
    pub status: CardStatus,
}

#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ApiRunAttempt {
    pub run_id: String,
    pub attempt: u32,
    pub kind: CardRunKind,
    pub status: CardRunStatus,
    pub reason: Option<String>,
    pub started_at: i64,
    pub finished_at: Option<i64>,
    /// Its tokens and cost (`None` before any usage was recorded).
    pub spend: Option<crate::spend::RunSpend>,
}

#[derive(Debug, Clone, PartialEq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ApiRun {
    pub run_id: String,
    pub status: ApiRunStatus,
    /// When ended.
    pub outcome: Option<RunOutcome>,
    /// The column the run left its card in, and why (when ended).
    pub ended_in: Option<CardStatus>,
    pub reason: Option<String>,
    pub agent_id: Option<String>,
    pub agent_handle: Option<String>,
    pub card: ApiRunCard,
    /// The first attempt's start (none while queued).
    pub started_at: Option<i64>,
    pub finished_at: Option<i64>,
    pub attempts: Vec<ApiRunAttempt>,
    /// Tokens and cost of every attempt together.
    pub spend: crate::spend::Totals,
    /// The agent's final reply as posted on the card (detail only, once there is one).
    pub report: Option<String>,
}

impl ApiRun {
    /// Every attempt's run id, in order.
    pub fn attempt_ids(&self) -> Vec<String> {
        self.attempts.iter().map(|a| a.run_id.clone()).collect()
    }
}

/// The agent named by `key`: its id, else its handle (`@` optional, any case).
pub fn find_agent(parts: &LocalApiParts, key: &str) -> Result<crate::agents::Agent> {
    let key = key.trim();
    match parts.agents.get(key) {
        Ok(agent) => return Ok(agent),
        Err(Error::NotFound(_)) => {}
        Err(e) => return Err(e),
    }
    let handle = key.trim_start_matches('@');
    parts
        .agents
        .list()?
        .into_iter()
        .find(|a| a.handle.eq_ignore_ascii_case(handle))
        .ok_or_else(|| Error::NotFound(format!("An agent with the id or handle “{key}”")))
}

/// Makes the card (To do, assigned to the agent, marked as started through the API) and starts
/// its task. When the start is refused, the card is deleted again: a retry makes no duplicate.
pub fn start(parts: &LocalApiParts, agent_key: &str, request: StartRequest) -> Result<Started> {
    let agent = find_agent(parts, agent_key)?;
    let task = request.task.trim();
    if task.is_empty() {
        return Err(Error::InvalidInput("The task is empty: say what the agent is to do in \"task\".".into()));
    }
    let title = match request.title.as_deref().map(str::trim) {
        Some("") => {
            return Err(Error::InvalidInput("The title is empty; leave it out to use the task's first line.".into()))
        }
        Some(title) => title.to_owned(),
        None => board::title_from_task(task),
    };
    let new = NewCard {
        title,
        description: task.to_owned(),
        assignee_id: Some(agent.id.clone()),
        team_id: request.team_id.map(|t| t.trim().to_owned()).filter(|t| !t.is_empty()),
        status: Some(CardStatus::Todo),
        priority: None,
        depends_on: Vec::new(),
        check_command: None,
        project_folder: None,
    };
    let card = parts.board.create_from_api(new, task)?;
    let options = StartOptions { disable_memory_auto_inject: request.disable_memory_auto_inject };
    match parts.runner.start(&card.id, options) {
        Ok(started) => Ok(Started {
            run_id: started.run_id,
            card_id: card.id,
            card_number: card.number,
            agent_id: agent.id,
            queued: started.queued,
            status: if started.queued { ApiRunStatus::Queued } else { ApiRunStatus::Running },
        }),
        Err(e) => {
            if let Err(undo) = parts.board.delete(&card.id) {
                tracing::warn!(card = card.number, error = %undo, "a card stays after its run was refused");
            }
            Err(e)
        }
    }
}

/// The run `run_id` (a task's first run, or a task still queued).
pub fn get(parts: &LocalApiParts, run_id: &str, with_report: bool) -> Result<ApiRun> {
    let run_id = run_id.trim();
    let not_found = || Error::NotFound(format!("Task run {run_id}"));
    if let Some(first) = parts.board.run(run_id)? {
        if first.kind != CardRunKind::Run {
            return Err(Error::NotFound(format!(
                "Run {run_id} continues an earlier task run of its card (or is a team hand-off), so it is not a task \
                 run of its own; look for the card's task run"
            )));
        }
        return view(parts, &first.card_id, run_id, with_report);
    }
    // Claimed and not started yet (waiting for a slot, about to record its first run), or
    // stopped before it started: only the card's claim names it.
    let claimed = serde_json::to_string(&ActivityKind::Claimed { run_id: run_id.to_owned() })
        .map_err(|e| Error::Internal(e.to_string()))?;
    if let Some(card_id) = parts.store.read(|c| card_claimed_by(c, &claimed))? {
        return view(parts, &card_id, run_id, with_report);
    }
    Err(not_found())
}

/// The newest task runs first (waiting ones before them), at most `limit`.
pub fn list(parts: &LocalApiParts, limit: u32) -> Result<Vec<ApiRun>> {
    let limit = limit.clamp(1, MAX_LIST);
    let mut runs = Vec::new();
    let (_, queued) = parts.runner.active();
    for card_id in queued.iter().rev() {
        if let Some(claim) = parts.board.get(card_id)?.claimed_by_run {
            runs.push(view(parts, card_id, &claim, false)?);
        }
    }
    let firsts = parts.store.read(|c| newest_firsts(c, limit))?;
    for (card_id, run_id) in firsts {
        match view(parts, &card_id, &run_id, false) {
            Ok(run) => runs.push(run),
            // Its card was deleted meanwhile.
            Err(Error::NotFound(_)) => {}
            Err(e) => return Err(e),
        }
    }
    runs.truncate(limit as usize);
    Ok(runs)
}

fn card_claimed_by(conn: &Connection, claimed: &str) -> Result<Option<String>> {
    use rusqlite::OptionalExtension;
    Ok(conn
        .query_row("SELECT card_id FROM card_activity WHERE activity = ?1 LIMIT 1", [claimed], |r| r.get(0))
        .optional()?)
}

fn newest_firsts(conn: &Connection, limit: u32) -> Result<Vec<(String, String)>> {
    let mut stmt = conn.prepare_cached(
        "SELECT card_id, run_id FROM card_runs WHERE kind = 'run' ORDER BY started_at DESC, rowid DESC LIMIT ?1",
    )?;
    let rows = stmt.query_map(params![limit], |r| Ok((r.get(0)?, r.get(1)?)))?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// The attempts of the task whose first run is `first` on its card: that run and the fix rounds
/// and fresh sessions after it, up to the card's next task.
fn attempts(conn: &Connection, card_id: &str, first: &str) -> Result<Vec<CardRun>> {
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {RUN_COLUMNS} FROM card_runs WHERE card_id = ?1 ORDER BY started_at, attempt, rowid"
    ))?;
    let rows = stmt.query_map([card_id], run_from_row)?.collect::<rusqlite::Result<Vec<_>>>()?;
    let Some(at) = rows.iter().position(|r| r.run_id == first) else { return Ok(Vec::new()) };
    let mut task = vec![rows[at].clone()];
    task.extend(
        rows[at + 1..].iter().take_while(|r| matches!(r.kind, CardRunKind::Fix | CardRunKind::Rotation)).cloned(),
    );
    Ok(task)
}

fn agent_of(conn: &Connection, run_id: &str) -> Result<Option<(String, Option<String>)>> {
    use rusqlite::OptionalExtension;
    Ok(conn
        .query_row(
            "SELECT r.agent_id, a.handle FROM runs r LEFT JOIN agents a ON a.id = r.agent_id WHERE r.id = ?1",
            [run_id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?)
}

fn view(parts: &LocalApiParts, card_id: &str, claim: &str, with_report: bool) -> Result<ApiRun> {
    let detail = parts.board.detail(card_id)?;
    let card = &detail.card;
    let attempts = parts.store.read(|c| attempts(c, card_id, claim))?;
    let holding = card.claimed_by_run.as_deref() == Some(claim);
    let going = attempts.iter().any(|a| a.status == CardRunStatus::Running);
    let status = if !(holding || going) {
        ApiRunStatus::Ended
    } else if attempts.is_empty() && parts.runner.active().1.iter().any(|c| c == card_id) {
        ApiRunStatus::Queued
    } else {
        ApiRunStatus::Running
    };
    let (agent_id, agent_handle) = match attempts.first() {
        Some(first) => parts.store.read(|c| agent_of(c, &first.run_id))?.map_or((None, None), |(id, h)| (Some(id), h)),
        None => {
            let handle = card.assignee_id.as_deref().and_then(|id| parts.agents.get(id).ok()).map(|a| a.handle);
            (card.assignee_id.clone(), handle)
        }
    };
    // The move that ended the claim: recorded just before its release, in the same transaction.
    let release = detail
        .activity
        .iter()
        .position(|a| matches!(&a.activity, ActivityKind::Released { run_id } if run_id == claim));
    let ending = release.and_then(|at| at.checked_sub(1)).and_then(|at| match &detail.activity[at].activity {
        ActivityKind::Moved { from: CardStatus::InProgress, to, reason } => Some((*to, reason.clone())),
        _ => None,
    });
    let last = attempts.last();
    let (outcome, ended_in, reason) = if status == ApiRunStatus::Ended {
        let (to, moved_reason) = ending.unzip();
        let outcome = match (to, last.map(|a| a.status)) {
            (_, Some(CardRunStatus::Interrupted)) => RunOutcome::Interrupted,
            (Some(CardStatus::InReview | CardStatus::Done), _) => RunOutcome::Succeeded,
            (Some(CardStatus::Blocked), _) => RunOutcome::Blocked,
            (_, Some(CardRunStatus::Failed)) => RunOutcome::Blocked,
            _ => RunOutcome::Cancelled,
        };
        let reason = moved_reason.flatten().or_else(|| last.and_then(|a| a.reason.clone()));
        (Some(outcome), to, reason)
    } else {
        (None, None, None)
    };
    let ids: Vec<&str> = attempts.iter().map(|a| a.run_id.as_str()).collect();
    let spent =
        parts.store.read(|c| ids.iter().map(|id| crate::spend::run_spend(c, id)).collect::<Result<Vec<_>>>())?;
    let report = with_report
        .then(|| {
            detail
                .comments
                .iter()
                .rev()
                .find(|c| c.kind == CommentKind::Report && c.run_id.as_deref().is_some_and(|r| ids.contains(&r)))
                .map(|c| c.text.clone())
        })
        .flatten();
    Ok(ApiRun {
        run_id: claim.to_owned(),
        status,
        outcome,
        ended_in,
        reason,
        agent_id,
        agent_handle,
        card: ApiRunCard { id: card.id.clone(), number: card.number, title: card.title.clone(), status: card.status },
        started_at: attempts.first().map(|a| a.started_at),
        finished_at: if status == ApiRunStatus::Ended { last.and_then(|a| a.finished_at) } else { None },
        spend: spent.iter().flatten().fold(crate::spend::Totals::default(), |sum, run| sum.plus_run(run)),
        attempts: attempts
            .into_iter()
            .zip(spent)
            .map(|(a, spend)| ApiRunAttempt {
                run_id: a.run_id,
                attempt: a.attempt,
                kind: a.kind,
                status: a.status,
                reason: a.reason,
                started_at: a.started_at,
                finished_at: a.finished_at,
                spend,
            })
            .collect(),
        report,
    })
}

/// Stops the run: a waiting one leaves the queue, a going one is stopped (its card back in To do).
pub fn cancel(parts: &LocalApiParts, runner: &Arc<crate::runner::Runner>, run_id: &str) -> Result<ApiRun> {
    let run = get(parts, run_id, false)?;
    if run.status == ApiRunStatus::Ended {
        return Err(Error::RunNotActive(format!("Task run {} has already ended.", run.run_id)));
    }
    runner.cancel(&run.card.id)?;
    get(parts, run_id, false)
}
