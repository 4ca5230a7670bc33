//! `routine_create`: an agent proposes a routine; the user decides. The tool never creates
//! anything: it checks what the agent sent, raises an approval carrying the proposal
//! ([`crate::routines::propose`]), and returns at once.
//!
//! Who may propose what: an agent in its one-to-one chat, a routine for itself; a team leader
//! in team chat, for itself or a current member of its team. Routine runs and task runs are
//! never given the tool (hidden work never grants itself work).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::args::ToolArgs;
use super::dispatch::Services;
use super::fields::{Chars, Flag, LongText, Minutes, Trimmed};
use super::{Caller, ToolName};
use crate::attention::Source;
use crate::error::{Error, Result};
use crate::routines::propose::{self, Proposal};
use crate::routines::schedule::{self, Schedule, MAX_INTERVAL_MINUTES};
use crate::routines::types::{RoutineInput, MAX_NAME_CHARS, MAX_PROMPT_CHARS};

/// The longest handle, cron expression, time zone or time `routine_create` takes, in bytes.
const MAX_WORD_BYTES: usize = 200;

/// Propose a routine (scheduled work, each run a Board task in a fresh session), made once the
/// user approves (you are not told). Give one of cron, every_minutes, at.
#[derive(Debug, Deserialize, Serialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RoutineCreate {
    /// Titles each run's card.
    pub name: Chars<MAX_NAME_CHARS>,
    /// What each run does, self-contained.
    pub prompt: LongText<MAX_PROMPT_CHARS>,
    /// A member's handle, if you lead a team (default: yours).
    #[serde(rename = "for", skip_serializing_if = "Option::is_none")]
    pub for_handle: Option<Trimmed<MAX_WORD_BYTES>>,
    /// E.g. "0 9 * * 1-5".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cron: Option<Trimmed<MAX_WORD_BYTES>>,
    /// The cron's IANA zone (default the user's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_zone: Option<Trimmed<MAX_WORD_BYTES>>,
    /// 60 = hourly.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub every_minutes: Option<Minutes<{ MAX_INTERVAL_MINUTES as u64 }>>,
    /// Once, in RFC 3339.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<Trimmed<MAX_WORD_BYTES>>,
    /// Each run also gets HEARTBEAT.md.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub heartbeat: Option<Flag>,
}

impl ToolArgs for RoutineCreate {
    const TOOL: ToolName = ToolName::RoutineCreate;

    fn check(self) -> std::result::Result<Self, String> {
        let schedules = [self.cron.is_some(), self.every_minutes.is_some(), self.at.is_some()];
        if schedules.iter().filter(|given| **given).count() != 1 {
            return Err(format!(
                "{} needs exactly one of \"cron\", \"every_minutes\" and \"at\".",
                Self::TOOL.as_str()
            ));
        }
        Ok(self)
    }
}

/// `routine_create`: the proposal checked against the store, then the approval raised.
pub(super) fn create(services: &Services, caller: &Caller, args: RoutineCreate) -> Result<String> {
    let now = crate::vocab::clock::now_ms();
    let proposal = proposal_of(services, caller, args, now)?;
    let non_empty = |s: &str| (!s.is_empty()).then(|| s.to_owned());
    let source = Source {
        agent_id: caller.agent_id.clone(),
        team_id: non_empty(&caller.team_id),
        room_id: non_empty(&caller.room_id),
        run_id: Some(caller.run_id.clone()),
        card_id: None,
        message_id: None,
    };
    propose::raise(&services.store, &services.agents, &services.attention, &source, &proposal, now)
}

/// The proposal in `args`, checked against the store: the schedule, the sizes, who it is for.
pub fn proposal_of(services: &Services, caller: &Caller, args: RoutineCreate, now: i64) -> Result<Proposal> {
    let name = args.name.0.trim().to_owned();
    let prompt = args.prompt.0.trim().to_owned();
    if name.is_empty() || name.chars().count() > MAX_NAME_CHARS {
        return Err(Error::InvalidInput(format!("`name` is 1 to {MAX_NAME_CHARS} characters.")));
    }
    if prompt.is_empty() || prompt.chars().count() > MAX_PROMPT_CHARS {
        return Err(Error::InvalidInput(format!("`prompt` is 1 to {MAX_PROMPT_CHARS} characters.")));
    }
    let schedule = schedule_of(&args)?;
    schedule::validate(&schedule, now)?;
    let target = args.for_handle.map(|h| h.0).unwrap_or_default();
    let target = target.trim_start_matches('@');
    let agent_id = if target.is_empty() || target == caller.agent_handle {
        caller.agent_id.clone()
    } else {
        // Only a leader in team chat proposes for someone else: a current member of its team.
        if caller.team_id.is_empty() {
            return Err(Error::InvalidInput(
                "In a one-to-one chat you may propose a routine only for yourself.".into(),
            ));
        }
        let team = services.teams.get(&caller.team_id)?;
        let member = team
            .members
            .iter()
            .find(|m| services.agents.get(&m.agent_id).is_ok_and(|a| a.handle == target))
            .ok_or_else(|| Error::InvalidInput(format!("\"{target}\" is not a member of {}.", team.name)))?;
        member.agent_id.clone()
    };
    let heartbeat = args.heartbeat.is_some_and(|h| h.0);
    // Proposed in team chat: the routine reports to that team (the editor's default for a
    // member); the agent is a member, as only members take part in its chat.
    let reports_to_team_id = (!caller.team_id.is_empty()).then(|| caller.team_id.clone());
    Ok(Proposal {
        input: RoutineInput {
            name,
            agent_id: Some(agent_id),
            team_id: None,
            prompt,
            schedule,
            heartbeat,
            reports_to_team_id,
        },
        creator_agent_id: caller.agent_id.clone(),
    })
}

fn schedule_of(args: &RoutineCreate) -> Result<Schedule> {
    match (&args.cron, args.every_minutes, &args.at) {
        (Some(expr), None, None) => {
            let tz = args.time_zone.as_ref().map(|tz| tz.0.clone()).unwrap_or_else(schedule::default_time_zone);
            Ok(Schedule::Cron { expr: expr.0.clone(), tz })
        }
        (None, Some(minutes), None) => Ok(Schedule::Every { minutes: u32::try_from(minutes.0).unwrap_or(u32::MAX) }),
        (None, None, Some(at)) => {
            let at: jiff::Timestamp = at.0.parse().map_err(|_| {
                Error::InvalidSchedule(format!(
                    "`at` is a time with its offset, e.g. \"2026-05-01T09:00:00+02:00\"; \"{}\" is not.",
                    at.0
                ))
            })?;
            Ok(Schedule::Once { at: at.as_millisecond() })
        }
        _ => Err(Error::InvalidSchedule("Give exactly one of `cron`, `every_minutes` and `at`.".into())),
    }
}
