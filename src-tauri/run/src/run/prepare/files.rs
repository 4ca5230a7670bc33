//! The I/O around an agent's file plan (`context::files`): reading the files, what a runtime
//! session already holds (`file_deliveries`), and what a
//! one-to-one run was given. Shared by one-to-one chat, team turns and the task runner.

use std::path::Path;
use std::time::SystemTime;

use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde::Serialize;

use super::conversation::{CarriedTurn, Conversation};
use crate::agents::{Agent, Agents, RuntimeKind};
use crate::context::files::{self, AgentFiles, Delivered, FilePlan, FileSession, FilesTurn};
use crate::context::ToolName;
use crate::error::{Error, Result};
use crate::runtimes::native::transcript::{date_line, recent_turns_within, TRANSCRIPT_BUDGET_CHARS};
use crate::runtimes::HistoryMode;
use crate::vocab::AgentFileName;

/// The scratch projection's row among a runtime session's deliveries (`file_deliveries`; chat's
/// recall decides when it goes).
pub const SCRATCH_ITEM: &str = "scratch";

/// An agent's files for one run, with what decides their routes.
pub struct AgentFilesForRun {
    runtime: RuntimeKind,
    files: AgentFiles,
    memory_tools: bool,
    discovers_agents_md: bool,
    unmanaged: bool,
    /// A heartbeat routine's run: HEARTBEAT.md goes with it.
    heartbeat: bool,
    /// The repository's own instructions, for a run in a project folder or worktree.
    project: Option<files::ProjectFile>,
}

impl AgentFilesForRun {
    /// A heartbeat routine's run (HEARTBEAT.md rides along) when `on`.
    pub fn with_heartbeat(mut self, on: bool) -> Self {
        self.heartbeat = on;
        self
    }

    /// A run in the project folder or worktree `folder`: reads the repository's own instructions
    /// there (`context::files::project_file_name`; none is an empty file). Read up to
    /// [`PROJECT_FILE_READ_CAP`] bytes: the count past it is enough to say it is over its budget.
    pub fn in_project(mut self, folder: &Path) -> Self {
        let path = folder.join(files::project_file_name(self.runtime));
        let text = read_capped(&path).unwrap_or_default();
        self.project = Some(files::ProjectFile { folder: folder.display().to_string(), text });
        self
    }

    /// Reads `agent`'s files. `in_workspace`: the run works in the agent's own folder (where a
    /// runtime can discover AGENTS.md); `tools`: Clawboo's tools the run has.
    pub fn read(agents: &Agents, agent: &Agent, in_workspace: bool, tools: &[ToolName]) -> Result<Self> {
        Ok(Self::with_files(agents.files_for_run(agent)?, agent, in_workspace, tools))
    }

    /// Each file's route and budget for `agent`'s runs (the editor's meter): what the files hold
    /// does not change where they go, so none is read.
    pub fn routes(agent: &Agent, in_workspace: bool, tools: &[ToolName]) -> Vec<files::FileRouteInfo> {
        files::routes(&Self::with_files(AgentFiles::default(), agent, in_workspace, tools).turn(&FileSession::New))
    }

    fn with_files(files: AgentFiles, agent: &Agent, in_workspace: bool, tools: &[ToolName]) -> Self {
        // Who reads AGENTS.md itself: Codex, from its own home (the Codex adapter keeps it
        // there, wherever the run works); Hermes, from the folder it works in. Claude Code's
        // project files (CLAUDE.md with them) stay off: Clawboo runs it with `--setting-sources
        // ""`, because an agent can write its own folder and a project settings file there could
        // widen its permissions. So Claude Code gets AGENTS.md as instructions.
        let discovers_agents_md = match agent.runtime {
            RuntimeKind::Codex => true,
            RuntimeKind::Hermes => in_workspace,
            RuntimeKind::ClaudeCode | RuntimeKind::Native | RuntimeKind::Openclaw => false,
        };
        Self {
            runtime: agent.runtime,
            files,
            memory_tools: tools.contains(&ToolName::MemorySearch) && tools.contains(&ToolName::MemoryGet),
            discovers_agents_md,
            unmanaged: agent.runtime == RuntimeKind::Openclaw && agent.openclaw_gateway_url.is_some(),
            heartbeat: false,
            project: None,
        }
    }

    /// The plan for a turn in `session`; an error when a file is over its budget.
    pub fn plan(&self, session: &FileSession) -> Result<FilePlan> {
        files::plan(&self.turn(session))
    }

    fn turn<'a>(&'a self, session: &'a FileSession) -> FilesTurn<'a> {
        FilesTurn {
            runtime: self.runtime,
            files: &self.files,
            memory_tools: self.memory_tools,
            discovers_agents_md: self.discovers_agents_md,
            unmanaged: self.unmanaged,
            session,
            heartbeat: self.heartbeat,
            project: self.project.as_ref(),
        }
    }
}

/// The most of a repository's instructions file read: far past any budget, so a huge file is
/// still reported as over it without being held in memory whole.
pub const PROJECT_FILE_READ_CAP: u64 = 1024 * 1024;

/// The file's text, up to [`PROJECT_FILE_READ_CAP`] bytes (lossy UTF-8); None when missing.
fn read_capped(path: &Path) -> Option<String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::fs::File::open(path).ok()?.take(PROJECT_FILE_READ_CAP).read_to_end(&mut bytes).ok()?;
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// What the session a turn continues already holds of the agent's files. `resumed`: the runtime
/// session the turn resumes (None: a new one); `carried`: the history Clawboo carries for the
/// runtime (Native), to tell what its trimmed form still holds.
pub fn turn_session(
    conn: &Connection,
    conversation: &Conversation,
    history: HistoryMode,
    resumed: Option<&str>,
    carried: &[CarriedTurn],
) -> Result<FileSession> {
    let key = session_key(history, resumed, conversation.epoch);
    let window = (history == HistoryMode::ClawbooTranscript).then(|| native_window(carried));
    session(conn, &conversation.id, key.as_deref(), window)
}

/// The key of the session a turn runs in, for delivery tracking: the runtime session it
/// resumes, or the conversation epoch when Clawboo carries the history (Native).
fn session_key(history: HistoryMode, resumed: Option<&str>, epoch: i64) -> Option<String> {
    match history {
        HistoryMode::ClawbooTranscript => Some(epoch_key(epoch)),
        HistoryMode::RuntimeSession => resumed.map(str::to_owned),
    }
}

pub fn epoch_key(epoch: i64) -> String {
    format!("epoch:{epoch}")
}

/// What the session behind `key` holds (nothing for a new session). `window`: for a history
/// Clawboo carries (Native), the turns the trimmed history still holds; a delivery made by a run
/// that started none of them is gone from what the model sees, so its file goes again (all gone:
/// a cold resume).
fn session(
    conn: &Connection,
    conversation_id: &str,
    key: Option<&str>,
    window: Option<&[CarriedTurn]>,
) -> Result<FileSession> {
    let Some(key) = key else { return Ok(FileSession::New) };
    let mut stmt = conn.prepare_cached(
        "SELECT file, hash, run_id FROM file_deliveries WHERE conversation_id = ?1 AND session_key = ?2",
    )?;
    let rows = stmt.query_map(params![conversation_id, key], |r| {
        Ok((r.get::<_, String>(0)?, r.get::<_, String>(1)?, r.get::<_, String>(2)?))
    })?;
    let (mut delivered, mut dropped) = (Vec::new(), 0);
    for row in rows {
        let (file, hash, run_id) = row?;
        // A search per delivery (a session holds a few), newest first: no set of every carried
        // run built per send.
        if window.is_some_and(|kept| !kept.iter().rev().any(|t| t.run_id.as_deref() == Some(run_id.as_str()))) {
            dropped += 1;
        } else if let Ok(file) = AgentFileName::parse(&file) {
            delivered.push(Delivered { file, hash });
        }
    }
    Ok(match (delivered.is_empty(), dropped) {
        (true, 0) => FileSession::New,
        (true, _) => FileSession::ColdResume,
        (false, _) => FileSession::Warm(delivered),
    })
}

/// The turns Native's carried history still holds once trimmed to its budget.
fn native_window(turns: &[CarriedTurn]) -> &[CarriedTurn] {
    let kept = recent_turns_within(turns.iter().map(|t| (&*t.user, &*t.assistant)), TRANSCRIPT_BUDGET_CHARS);
    &turns[turns.len() - kept..]
}

/// After a run completed in the session behind `key`: it holds `delivered` now (and the scratch
/// projection with fingerprint `scratch`, when the run delivered one). Rows of the
/// conversation's other sessions go (a conversation continues one session at a time).
pub fn record(
    tx: &Transaction,
    conversation_id: &str,
    key: &str,
    run_id: &str,
    delivered: &[Delivered],
    scratch: Option<&str>,
    now: i64,
) -> Result<()> {
    tx.prepare_cached("DELETE FROM file_deliveries WHERE conversation_id = ?1 AND session_key != ?2")?
        .execute(params![conversation_id, key])?;
    let mut stmt = tx.prepare_cached(
        "INSERT INTO file_deliveries (conversation_id, session_key, file, hash, run_id, delivered_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (conversation_id, session_key, file) DO UPDATE
         SET hash = excluded.hash, run_id = excluded.run_id, delivered_at = excluded.delivered_at",
    )?;
    for d in delivered {
        stmt.execute(params![conversation_id, key, d.file.as_str(), d.hash, run_id, now])?;
    }
    if let Some(fingerprint) = scratch {
        stmt.execute(params![conversation_id, key, SCRATCH_ITEM, fingerprint, run_id, now])?;
    }
    Ok(())
}

/// After a run whose runtime compacted its session (`RunResult::compacted`): what was delivered
/// into the conversation's session may be gone from it, so nothing is taken as held and the
/// references (BOOTSTRAP.md, MEMORY.md) and the scratch notes go again with the next turn, as
/// after a cold resume.
pub fn forget_deliveries(tx: &Transaction, conversation_id: &str) -> Result<()> {
    tx.prepare_cached("DELETE FROM file_deliveries WHERE conversation_id = ?1")?.execute([conversation_id])?;
    Ok(())
}

/// What a completed run leaves its session holding: recorded when the run ends.
#[derive(Debug, Clone, Default)]
pub struct PendingDeliveries {
    /// Native's epoch key; `None` for a runtime session (its id is known when the run ends).
    pub key: Option<String>,
    pub delivered: Vec<Delivered>,
    /// The scratch projection's fingerprint, when this turn delivered it into a kept session.
    pub scratch: Option<String>,
}

impl PendingDeliveries {
    pub fn new(history: HistoryMode, epoch: i64, plan: &FilePlan) -> Self {
        Self {
            key: (history == HistoryMode::ClawbooTranscript).then(|| epoch_key(epoch)),
            delivered: plan.delivered_references(),
            scratch: None,
        }
    }

    /// With the scratch projection this turn delivers (see `recall`).
    pub fn with_scratch(mut self, scratch: Option<String>) -> Self {
        self.scratch = scratch;
        self
    }

    /// Records them, once a run completed in `session` (the runtime's, when it reported one).
    pub fn record(
        &self,
        tx: &Transaction,
        conversation_id: &str,
        session: Option<&str>,
        run_id: &str,
        now: i64,
    ) -> Result<()> {
        match self.key.as_deref().or(session) {
            Some(key) => record(tx, conversation_id, key, run_id, &self.delivered, self.scratch.as_deref(), now),
            None => Ok(()),
        }
    }
}

/// Exactly what a one-to-one run was given ("What this agent saw").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ChatRunContext {
    pub run_id: String,
    /// The runtime's instruction slot, when Clawboo filled it (Native: its system prompt
    /// before the date line).
    pub system_text: Option<String>,
    /// The text in front of the message (workspace files, recalled notes), when any.
    pub preamble: Option<String>,
    /// Where each agent file went and whether this run carried it.
    pub files: Vec<files::FileDelivery>,
    /// Titled parts of the preamble worth checking one by one (Boo Zero's rules and each
    /// mentioned team's brief, cards, memory and chat); empty for other runs.
    pub sections: Vec<crate::context::boo_zero::ContextSection>,
    pub created_at: i64,
}

pub fn insert_context(tx: &Transaction, context: &ChatRunContext) -> Result<()> {
    tx.prepare_cached(
        "INSERT INTO chat_run_contexts (run_id, system_text, preamble, files, sections, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
    )?
    .execute(params![
        context.run_id,
        context.system_text,
        context.preamble,
        serde_json::to_string(&context.files).map_err(|e| Error::Internal(e.to_string()))?,
        serde_json::to_string(&context.sections).map_err(|e| Error::Internal(e.to_string()))?,
        context.created_at
    ])?;
    Ok(())
}

pub fn context(conn: &Connection, run_id: &str) -> Result<Option<ChatRunContext>> {
    let row = conn
        .query_row(
            "SELECT system_text, preamble, files, sections, created_at FROM chat_run_contexts WHERE run_id = ?1",
            [run_id],
            |r| {
                Ok((
                    r.get::<_, Option<String>>(0)?,
                    r.get::<_, Option<String>>(1)?,
                    r.get::<_, String>(2)?,
                    r.get::<_, String>(3)?,
                    r.get(4)?,
                ))
            },
        )
        .optional()?;
    let Some((system_text, preamble, files, sections, created_at)) = row else { return Ok(None) };
    let files = serde_json::from_str(&files)
        .map_err(|_| Error::Internal(format!("the stored context of run {run_id} has a bad file list")))?;
    let sections = serde_json::from_str(&sections)
        .map_err(|_| Error::Internal(format!("the stored context of run {run_id} has bad sections")))?;
    Ok(Some(ChatRunContext { run_id: run_id.to_owned(), system_text, preamble, files, sections, created_at }))
}

/// Native's setup (None for other runtimes), and the instruction slot as "What this agent saw"
/// shows it: the setup, then what Clawboo put in the runtime's own slot (then, on Native, the
/// date line its system prompt ends with).
pub struct Slots {
    pub setup: Option<String>,
    pub shown_system: Option<String>,
}

/// The run's [`Slots`], once its prepared context (setup, instruction slot, text in front of the
/// message, the message) is within `context::files::MAX_PREPARED_BYTES`.
pub fn slots(
    runtime: RuntimeKind,
    files: &FilePlan,
    system: Option<&str>,
    preamble: Option<&str>,
    message: &str,
) -> Result<Slots> {
    let (system, preamble) = (system.unwrap_or(""), preamble.unwrap_or(""));
    files::check_prepared(&[&files.setup, system, preamble, message])?;
    // Native ends its system prompt with today's date when the request goes out, moments from
    // now: shown as of now (the same day but for a run started on the stroke of midnight).
    let date = match runtime {
        RuntimeKind::Native => date_line(SystemTime::now()),
        _ => String::new(),
    };
    Ok(Slots { setup: files.setup_slot(), shown_system: join_nonempty(&[&files.setup, system, &date]) })
}

/// The non-empty parts, trimmed and joined by a blank line; None when all are empty.
pub fn join_nonempty(parts: &[&str]) -> Option<String> {
    let kept: Vec<&str> = parts.iter().map(|p| p.trim()).filter(|p| !p.is_empty()).collect();
    (!kept.is_empty()).then(|| kept.join("\n\n"))
}
