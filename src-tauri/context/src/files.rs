//! How an agent's seven files reach a run (`shared/seeds/openclaw-codex-workspace-bootstrap-files.md`):
//! each in the slot its runtime honours, references only when the runtime session does not hold
//! them yet, and nothing ever cut. Pure: the file texts, the runtime and what its session already
//! holds go in; the plan comes out.
//!
//! - **SOUL.md, IDENTITY.md, USER.md**: the persona layer. Claude Code, Codex and Hermes get it in
//!   the persona section (their instruction slot); Native in its own system prompt
//!   ([`FilePlan::setup`]); OpenClaw reads them from its workspace copy.
//! - **AGENTS.md**: read by the runtime itself where it has a discovery Clawboo can use safely:
//!   Codex as its own home-level AGENTS.md (it reads a project's only in a trusted project, and
//!   the agent's folder stays untrusted), Hermes in the folder it works in, OpenClaw in its
//!   workspace copy. Otherwise it is sent as instructions: Claude Code (its project files,
//!   CLAUDE.md included, stay off because an agent could write them to widen its own
//!   permissions), Native, and Hermes working in a project folder.
//! - **MEMORY.md**: a short pointer when the run has the memory tools; otherwise its content as a
//!   reference.
//! - **BOOTSTRAP.md**: a reference.
//! - **HEARTBEAT.md**: a reference on heartbeat runs only.
//!
//! A run in a project folder or worktree also gets **the repository's own instructions**
//! ([`ProjectFile`]): Claude Code its `CLAUDE.md`, every other runtime its `AGENTS.md`. Hermes
//! reads that itself from the folder it works in; Clawboo sends it to the others as
//! instructions (Claude Code's project settings, hooks and MCP servers stay off; Codex reads a
//! project's AGENTS.md only in a trusted project, and Clawboo keeps the project untrusted). Each
//! within a stated budget; over it, the delivery says so in words (`note`) and the run goes on:
//! the repository's file is the user's project, not the agent's, so it never blocks a run, and
//! it is never cut quietly.
//!
//! References ride in front of the message on the first turn of a runtime session, after a cold
//! resume, and when their content changed; a warm turn whose session holds the same content
//! leaves them out. Every file that reaches the model is held to its budget, and the whole
//! prepared context to [`MAX_PREPARED_BYTES`]: over either, the plan is an error that names the
//! file and the figure, and the run does not start. A file the runtime reads itself is held to
//! that runtime's own limit ([`budget_on`]), never to the budget Clawboo keeps for what it sends,
//! and never stops a run: over that limit, its delivery's `note` says what the runtime does.

use serde::{Deserialize, Serialize};

use clawboo_vocab::error::{Error, Result};
use clawboo_vocab::{thousands, AgentFileName, RuntimeKind};

/// SOUL.md's budget (the seed's persona budget).
pub const SOUL_BUDGET: usize = 4_000;
pub const IDENTITY_BUDGET: usize = 2_000;
pub const USER_BUDGET: usize = 2_000;
/// AGENTS.md's budget where Clawboo sends it (as instructions). Where the runtime reads it
/// itself, it is held to that runtime's own limit instead ([`runtime_limit`]).
pub const AGENTS_BUDGET: usize = 16_000;
/// Codex reads its own (home-level) AGENTS.md whole: `project_doc_max_bytes` bounds only a
/// project's docs (measured with Codex 0.171: a 70,027-byte home AGENTS.md reached the model
/// uncut). Clawboo holds it to the project-doc limit it gives Codex, 64,000 (the adapter's
/// `PROJECT_DOC_MAX_BYTES`, above Codex's 32 KiB default), counted here in characters.
pub const CODEX_AGENTS_LIMIT: usize = 64_000;
/// Hermes cuts each context file it reads (AGENTS.md of its folder) to `context_file_max_chars`,
/// keeping the start and end; Clawboo sets it to this (Hermes' own default floor), so the limit
/// does not move with the model's window.
pub const HERMES_CONTEXT_FILE_LIMIT: usize = 20_000;
/// OpenClaw cuts each workspace bootstrap file to `bootstrapMaxChars`, 20,000 by default
/// (`DEFAULT_BOOTSTRAP_MAX_CHARS` in openclaw 2026.9.6).
pub const OPENCLAW_BOOTSTRAP_FILE_LIMIT: usize = 20_000;
/// The repository's own instructions (CLAUDE.md or AGENTS.md of a project folder), where
/// Clawboo sends them: AGENTS.md's budget.
pub const PROJECT_INSTRUCTIONS_BUDGET: usize = AGENTS_BUDGET;
pub const MEMORY_BUDGET: usize = 8_000;
pub const BOOTSTRAP_BUDGET: usize = 8_000;
pub const HEARTBEAT_BUDGET: usize = 4_000;
/// The most a run's prepared context (instruction slot, text in front of the message, and the
/// message) may weigh, in UTF-8 bytes.
pub const MAX_PREPARED_BYTES: usize = 256 * 1024;

/// The limit a runtime that reads AGENTS.md itself holds it to, in characters: a file within
/// it reaches the model whole, so Clawboo's own budget does not apply (it is for what Clawboo
/// sends). None where Clawboo sends AGENTS.md (Claude Code, Native).
pub fn runtime_limit(runtime: RuntimeKind) -> Option<usize> {
    match runtime {
        RuntimeKind::Codex => Some(CODEX_AGENTS_LIMIT),
        RuntimeKind::Hermes => Some(HERMES_CONTEXT_FILE_LIMIT),
        RuntimeKind::Openclaw => Some(OPENCLAW_BOOTSTRAP_FILE_LIMIT),
        RuntimeKind::ClaudeCode | RuntimeKind::Native => None,
    }
}

/// The budget `file` is held to on `route` for `runtime`: AGENTS.md the runtime reads itself is
/// held to the runtime's own limit; everything else to Clawboo's [`budget`] (the persona files
/// keep theirs even where OpenClaw reads them: the seed's persona budget).
pub fn budget_on(runtime: RuntimeKind, file: AgentFileName, route: FileRoute) -> usize {
    match (file, route) {
        (AgentFileName::Agents, FileRoute::Workspace) => runtime_limit(runtime).unwrap_or(AGENTS_BUDGET),
        _ => budget(file),
    }
}

/// The budget of `file`, in characters, where Clawboo sends it.
pub fn budget(file: AgentFileName) -> usize {
    match file {
        AgentFileName::Soul => SOUL_BUDGET,
        AgentFileName::Identity => IDENTITY_BUDGET,
        AgentFileName::User => USER_BUDGET,
        AgentFileName::Agents => AGENTS_BUDGET,
        AgentFileName::Memory => MEMORY_BUDGET,
        AgentFileName::Bootstrap => BOOTSTRAP_BUDGET,
        AgentFileName::Heartbeat => HEARTBEAT_BUDGET,
    }
}

/// The texts of an agent's files as on disk (a missing file is empty).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentFiles {
    texts: Vec<(AgentFileName, String)>,
    /// The files still holding the starting text Clawboo wrote (see [`FileStatus::Unedited`]).
    unedited: Vec<AgentFileName>,
}

impl AgentFiles {
    pub fn with(mut self, file: AgentFileName, text: impl Into<String>) -> Self {
        self.texts.retain(|(f, _)| *f != file);
        self.texts.push((file, text.into()));
        self
    }

    pub fn get(&self, file: AgentFileName) -> &str {
        self.texts.iter().find(|(f, _)| *f == file).map_or("", |(_, t)| t.as_str())
    }

    /// Marks `file` as still holding Clawboo's starting text: Clawboo does not send it (a
    /// runtime that reads it from the workspace itself still does).
    pub fn unedited(mut self, file: AgentFileName) -> Self {
        if !self.unedited.contains(&file) {
            self.unedited.push(file);
        }
        self
    }

    pub fn is_unedited(&self, file: AgentFileName) -> bool {
        self.unedited.contains(&file)
    }
}

/// A file as delivered into a runtime session, by content hash.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Delivered {
    pub file: AgentFileName,
    pub hash: String,
}

/// What the runtime session this turn runs in already holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileSession {
    /// A new session (first turn, after `/reset`, a fresh or branched session, every task run).
    New,
    /// A resumed session, with the references delivered into it.
    Warm(Vec<Delivered>),
    /// A resumed session that may no longer hold what it was given (its carried history was
    /// trimmed past the turn that carried it): everything is sent again.
    ColdResume,
}

/// Where a file goes for this agent's runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum FileRoute {
    /// The runtime's instruction slot (persona section, Native's system prompt, instructions).
    Instructions,
    /// The runtime reads it from its working folder itself.
    Workspace,
    /// In front of the message when the session does not hold it yet.
    Reference,
    /// A pointer to the memory tools instead of the content.
    MemoryPointer,
    /// Sent on heartbeat runs only.
    Heartbeat,
    /// Nothing reaches the runtime (a user's own OpenClaw Gateway keeps its own files).
    NotSent,
}

/// What this run did with a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    /// Its content (or its pointer) is in this run's input.
    Sent,
    /// The runtime reads it from the workspace itself (checked against its budget).
    ReadByRuntime,
    /// Left out: the runtime session already holds this exact content.
    AlreadyDelivered,
    /// The file is empty: nothing to send.
    Empty,
    /// The file still holds the starting text Clawboo wrote when the agent was made: a
    /// placeholder that says nothing about this agent, so Clawboo does not send it.
    Unedited,
    /// Not for this kind of run (HEARTBEAT.md outside heartbeat runs).
    NotThisRun,
    /// Nothing reaches this runtime.
    NotSent,
}

/// One file in a run's plan, as "What this agent saw" shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct FileDelivery {
    pub file: AgentFileName,
    pub route: FileRoute,
    /// How the file reaches this runtime, in words ("read by Codex from the workspace").
    pub route_label: String,
    pub status: FileStatus,
    pub chars: u32,
    pub budget: u32,
    /// Content hash (FNV-1a, hex): what delivery tracking compares.
    pub hash: String,
    /// A file the runtime reads itself, over that runtime's own limit: what the runtime does with
    /// it, in one line (the run goes on; Clawboo cuts nothing).
    pub note: Option<String>,
}

/// How a file reaches an agent's runtime, for the editor: its route and budget.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct FileRouteInfo {
    pub file: AgentFileName,
    pub route: FileRoute,
    pub route_label: String,
    pub budget: u32,
    /// Whether a file over its budget stops runs (false: its content is not sent, as with
    /// MEMORY.md behind the memory tools' pointer, or the runtime reads it itself and `budget`
    /// is that runtime's own limit).
    pub budget_applies: bool,
}

/// Every file's route and budget for `turn`'s runtime, whatever the files hold.
pub fn routes(turn: &FilesTurn) -> Vec<FileRouteInfo> {
    AgentFileName::ALL
        .into_iter()
        .map(|file| {
            let route = route(turn, file);
            let held_to = budget_on(turn.runtime, file, route);
            FileRouteInfo {
                file,
                route,
                route_label: route_label(turn.runtime, route).to_owned(),
                budget: held_to as u32,
                budget_applies: !matches!(route, FileRoute::MemoryPointer | FileRoute::NotSent)
                    && held_to == budget(file),
            }
        })
        .collect()
}

/// Everything a file plan is made from.
#[derive(Debug, Clone)]
pub struct FilesTurn<'a> {
    pub runtime: RuntimeKind,
    pub files: &'a AgentFiles,
    /// The run has `memory_search` and `memory_get`.
    pub memory_tools: bool,
    /// The runtime reads the agent's AGENTS.md itself this run (Codex always; Hermes when it
    /// works in the agent's own folder). OpenClaw always reads its workspace copy; Native and
    /// Claude Code never do.
    pub discovers_agents_md: bool,
    /// Clawboo does not set this runtime up (a user's own OpenClaw Gateway): nothing is sent.
    pub unmanaged: bool,
    pub session: &'a FileSession,
    /// A heartbeat run (a routine kind): HEARTBEAT.md goes with it.
    pub heartbeat: bool,
    /// The repository's own instructions, when the run works in a project folder or worktree.
    pub project: Option<&'a ProjectFile>,
}

/// The repository's own instructions file ([`project_file_name`]) in the project folder or
/// worktree a run works in, as read (empty when there is none).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectFile {
    /// The folder it was read from.
    pub folder: String,
    pub text: String,
}

/// The file a runtime takes as a repository's own instructions.
pub fn project_file_name(runtime: RuntimeKind) -> &'static str {
    match runtime {
        RuntimeKind::ClaudeCode => "CLAUDE.md",
        RuntimeKind::Codex | RuntimeKind::Hermes | RuntimeKind::Native | RuntimeKind::Openclaw => "AGENTS.md",
    }
}

/// The repository's own instructions in a run, as "What this agent saw" shows them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ProjectFileDelivery {
    /// `CLAUDE.md` or `AGENTS.md`.
    pub name: String,
    /// The project folder or worktree it is in.
    pub folder: String,
    pub route: FileRoute,
    /// How it reaches this runtime, in words.
    pub route_label: String,
    pub status: FileStatus,
    pub chars: u32,
    pub budget: u32,
    /// Over its budget: what happened instead, in one line (it is never cut quietly).
    pub note: Option<String>,
}

/// Where each part of the files goes in this run. Empty strings are left out by the caller.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilePlan {
    /// Native's own system prompt (persona layer and instructions), before its date line.
    pub setup: String,
    /// The persona section (Claude Code, Codex, Hermes).
    pub persona: String,
    /// AGENTS.md when the runtime does not read it itself, and the MEMORY.md pointer (every
    /// runtime but Native, which has them in `setup`).
    pub instructions: String,
    /// The references this turn carries, in front of the message.
    pub references: String,
    pub files: Vec<FileDelivery>,
    /// The repository's own instructions, when the run works in a project folder.
    pub project: Option<ProjectFileDelivery>,
}

impl FilePlan {
    /// Native's setup as its input carries it (None when there is none).
    pub fn setup_slot(&self) -> Option<String> {
        let setup = self.setup.trim();
        (!setup.is_empty()).then(|| setup.to_owned())
    }

    /// The references this turn delivers (to record once the session holds them).
    pub fn delivered_references(&self) -> Vec<Delivered> {
        self.files
            .iter()
            .filter(|f| f.route == FileRoute::Reference && f.status == FileStatus::Sent)
            .map(|f| Delivered { file: f.file, hash: f.hash.clone() })
            .collect()
    }

    /// `(file, hash)` of what a runtime session starts with (instructions and what the runtime
    /// reads itself), for the session-setup fingerprint: a change there is a setup change.
    ///
    /// MEMORY.md behind its pointer counts by the pointer, not by its text: the session holds the
    /// pointer, so editing MEMORY.md changes nothing it was given.
    pub fn setup_parts(&self) -> Vec<(&'static str, &str)> {
        self.files
            .iter()
            .filter(|f| matches!(f.status, FileStatus::Sent | FileStatus::ReadByRuntime))
            .filter_map(|f| match f.route {
                FileRoute::Instructions | FileRoute::Workspace => Some((f.file.as_str(), f.hash.as_str())),
                FileRoute::MemoryPointer => Some((f.file.as_str(), MEMORY_POINTER_PART)),
                FileRoute::Reference | FileRoute::Heartbeat | FileRoute::NotSent => None,
            })
            .collect()
    }
}

/// The plan for one run, or [`Error::ContextTooLarge`] naming every file over its budget. A
/// file the runtime reads itself, over that runtime's own limit, never blocks: its delivery's
/// note says what the runtime does with it.
pub fn plan(turn: &FilesTurn) -> Result<FilePlan> {
    let files: Vec<FileDelivery> = AgentFileName::ALL.iter().map(|&file| delivery(turn, file)).collect();
    let over: Vec<String> = files
        .iter()
        .filter(|f| reaches_model(f) && f.chars as usize > f.budget as usize && f.note.is_none())
        .map(|f| {
            format!(
                "{} has {} characters, over its budget of {} ({})",
                f.file,
                thousands(f.chars as usize),
                thousands(f.budget as usize),
                f.route_label
            )
        })
        .collect();
    if !over.is_empty() {
        return Err(Error::ContextTooLarge(format!(
            "{}. Shorten it in the agent's Details > Agent Files; nothing was sent.",
            over.join("; ")
        )));
    }
    let sent = |file: AgentFileName| {
        files.iter().find(|f| f.file == file).filter(|f| f.status == FileStatus::Sent).map(|f| f.route)
    };
    let text = |file: AgentFileName| turn.files.get(file).trim();

    let persona_layer = persona_layer(turn, &sent);
    let mut instructions = Vec::new();
    if sent(AgentFileName::Agents) == Some(FileRoute::Instructions) {
        instructions.push(format!("## Operating instructions (AGENTS.md)\n{}", text(AgentFileName::Agents)));
    }
    if sent(AgentFileName::Memory) == Some(FileRoute::MemoryPointer) {
        instructions.push(MEMORY_POINTER.to_owned());
    }
    let project = turn.project.map(|p| project_delivery(turn, p));
    if let Some((delivery, file)) = project.as_ref().zip(turn.project) {
        if delivery.status == FileStatus::Sent {
            instructions.push(format!(
                "## The project's instructions ({})\nThe repository's own {}, from the folder you work in ({}):\n\n{}",
                delivery.name,
                delivery.name,
                delivery.folder,
                file.text.trim()
            ));
        }
    }
    let mut references = Vec::new();
    for (file, heading) in [
        (AgentFileName::Bootstrap, "### BOOTSTRAP.md (first-run instructions)"),
        (AgentFileName::Memory, "### MEMORY.md (your durable notes)"),
        (AgentFileName::Heartbeat, "### HEARTBEAT.md (this heartbeat's checks)"),
    ] {
        if matches!(sent(file), Some(FileRoute::Reference | FileRoute::Heartbeat)) {
            references.push(format!("{heading}\n{}", text(file)));
        }
    }
    let references =
        if references.is_empty() { String::new() } else { format!("{REFERENCES_HEAD}\n\n{}", references.join("\n\n")) };

    let (setup, persona, instructions) = match turn.runtime {
        RuntimeKind::Native => {
            let parts: Vec<String> = persona_layer.into_iter().chain(instructions).collect();
            (parts.join("\n\n"), String::new(), String::new())
        }
        _ => {
            let persona = persona_layer
                .map(|layer| format!("## Persona\nThis is your persona (your SOUL.md). Be this agent.\n\n{layer}"))
                .unwrap_or_default();
            (String::new(), persona, instructions.join("\n\n"))
        }
    };
    Ok(FilePlan { setup, persona, instructions, references, files, project })
}

/// What happens to the repository's own instructions in this run: read by the runtime (Hermes),
/// sent as instructions within [`PROJECT_INSTRUCTIONS_BUDGET`], or, over it, not sent, saying so.
fn project_delivery(turn: &FilesTurn, project: &ProjectFile) -> ProjectFileDelivery {
    let name = project_file_name(turn.runtime);
    let text = project.text.trim();
    let chars = text.chars().count();
    let route = if turn.unmanaged {
        FileRoute::NotSent
    } else if turn.runtime == RuntimeKind::Hermes {
        FileRoute::Workspace
    } else {
        FileRoute::Instructions
    };
    let budget = match route {
        FileRoute::Workspace => runtime_limit(turn.runtime).unwrap_or(PROJECT_INSTRUCTIONS_BUDGET),
        _ => PROJECT_INSTRUCTIONS_BUDGET,
    };
    let over = chars > budget;
    let (status, note) = match route {
        FileRoute::NotSent => (FileStatus::NotSent, None),
        _ if text.is_empty() => (FileStatus::Empty, None),
        FileRoute::Workspace if over => (
            FileStatus::ReadByRuntime,
            Some(format!(
                "{name} has {} characters, over {}'s own limit of {}: {} reads its start and end and leaves out the \
                 middle. Shorten it in the project to have it read whole.",
                thousands(chars),
                turn.runtime.label(),
                thousands(budget),
                turn.runtime.label()
            )),
        ),
        FileRoute::Workspace => (FileStatus::ReadByRuntime, None),
        _ if over => (
            FileStatus::NotSent,
            Some(format!(
                "{name} has {} characters, over its budget of {}: not sent (Clawboo does not cut it). Shorten it in \
                 the project to have it sent.",
                thousands(chars),
                thousands(budget)
            )),
        ),
        _ => (FileStatus::Sent, None),
    };
    ProjectFileDelivery {
        name: name.to_owned(),
        folder: project.folder.clone(),
        route,
        route_label: project_route_label(turn.runtime, route).to_owned(),
        status,
        chars: u32::try_from(chars).unwrap_or(u32::MAX),
        budget: budget as u32,
        note,
    }
}

/// How the repository's own instructions reach `runtime`, in words.
pub fn project_route_label(runtime: RuntimeKind, route: FileRoute) -> &'static str {
    match (route, runtime) {
        (FileRoute::Workspace, _) => "read by Hermes from the folder it works in",
        (FileRoute::NotSent, _) => "not sent: this agent's own OpenClaw Gateway keeps its own files",
        (_, RuntimeKind::ClaudeCode) => {
            "sent by Clawboo as instructions (Claude Code's own project settings, hooks and MCP servers stay off)"
        }
        (_, RuntimeKind::Codex) => {
            "sent by Clawboo as developer instructions (Codex reads a project's AGENTS.md only in a trusted project; \
             Clawboo keeps it untrusted)"
        }
        (_, RuntimeKind::Native) => "sent by Clawboo as instructions in the system prompt",
        (_, RuntimeKind::Openclaw) => "sent by Clawboo as instructions with the message",
        (_, RuntimeKind::Hermes) => "sent by Clawboo as instructions",
    }
}

/// The prepared context of a run (`parts`: instruction slot, text in front of the message, the
/// message) within [`MAX_PREPARED_BYTES`], or an error with the figure.
pub fn check_prepared(parts: &[&str]) -> Result<()> {
    let bytes: usize = parts.iter().map(|p| p.len()).sum();
    if bytes > MAX_PREPARED_BYTES {
        return Err(Error::ContextTooLarge(format!(
            "This run's prepared context is {} bytes, over the maximum of {} ({} KiB). Shorten the agent's files \
             or the message; nothing was sent.",
            thousands(bytes),
            thousands(MAX_PREPARED_BYTES),
            MAX_PREPARED_BYTES / 1024
        )));
    }
    Ok(())
}

const REFERENCES_HEAD: &str = "## Workspace files\nFrom your workspace, sent once per session and again when \
     they change: keep them in mind for the rest of this conversation.";

/// The setup part of MEMORY.md while only its pointer is sent.
const MEMORY_POINTER_PART: &str = "pointer";

const MEMORY_POINTER: &str = "## Memory\nYour MEMORY.md is not pasted here. When durable memory is relevant, \
     read it with `memory_get` (id \"MEMORY.md\") and search shared memory with `memory_search`.";

/// SOUL.md, then IDENTITY.md and USER.md under their own headings, when sent as instructions.
fn persona_layer(turn: &FilesTurn, sent: &dyn Fn(AgentFileName) -> Option<FileRoute>) -> Option<String> {
    let mut parts = Vec::new();
    for (file, heading) in [
        (AgentFileName::Soul, None),
        (AgentFileName::Identity, Some("### Your identity (IDENTITY.md)")),
        (AgentFileName::User, Some("### About the user (USER.md)")),
    ] {
        if sent(file) != Some(FileRoute::Instructions) {
            continue;
        }
        let text = turn.files.get(file).trim();
        parts.push(match heading {
            Some(heading) => format!("{heading}\n{text}"),
            None => text.to_owned(),
        });
    }
    (!parts.is_empty()).then(|| parts.join("\n\n"))
}

fn delivery(turn: &FilesTurn, file: AgentFileName) -> FileDelivery {
    let text = turn.files.get(file).trim();
    let route = route(turn, file);
    // Of the text as on disk: a one-to-one session's stored SOUL.md fingerprint stays valid.
    let hash = hash(turn.files.get(file));
    let status = match route {
        FileRoute::NotSent => FileStatus::NotSent,
        FileRoute::Heartbeat if !turn.heartbeat => FileStatus::NotThisRun,
        _ if text.is_empty() => FileStatus::Empty,
        FileRoute::Workspace => FileStatus::ReadByRuntime,
        _ if turn.files.is_unedited(file) => FileStatus::Unedited,
        FileRoute::Instructions | FileRoute::MemoryPointer | FileRoute::Heartbeat => FileStatus::Sent,
        FileRoute::Reference => match turn.session {
            FileSession::Warm(delivered) if delivered.iter().any(|d| d.file == file && d.hash == hash) => {
                FileStatus::AlreadyDelivered
            }
            _ => FileStatus::Sent,
        },
    };
    let chars = text.chars().count();
    let held_to = budget_on(turn.runtime, file, route);
    // Held to the runtime's own limit, not Clawboo's budget: past it, the runtime's doing.
    let own_limit = held_to != budget(file);
    let note = (status == FileStatus::ReadByRuntime && own_limit && chars > held_to)
        .then(|| past_own_limit(turn.runtime, file, chars, held_to));
    FileDelivery {
        file,
        route,
        route_label: route_label(turn.runtime, route).to_owned(),
        status,
        chars: u32::try_from(chars).unwrap_or(u32::MAX),
        budget: held_to as u32,
        hash,
        note,
    }
}

/// The line for a file the runtime reads itself, over the runtime's own limit: the run goes on,
/// and what the runtime does with the rest is said, never left to guess.
fn past_own_limit(runtime: RuntimeKind, file: AgentFileName, chars: usize, limit: usize) -> String {
    let label = runtime.label();
    let what = match runtime {
        // Both keep the file's head and tail (OpenClaw's `trimBootstrapContent`, Hermes'
        // `context_file_max_chars`).
        RuntimeKind::Hermes | RuntimeKind::Openclaw => {
            format!("{label} reads its start and end and leaves out the middle")
        }
        _ => format!("{label} reads it itself and may leave out what is past its limit"),
    };
    format!(
        "{file} has {} characters, over {label}'s own limit of {}: the run went on, and {what} (Clawboo cuts \
         nothing). Shorten it to have it read whole.",
        thousands(chars),
        thousands(limit)
    )
}

/// Whether the file's content reaches the model in this run (so its budget applies).
fn reaches_model(f: &FileDelivery) -> bool {
    match f.status {
        FileStatus::Sent | FileStatus::ReadByRuntime | FileStatus::AlreadyDelivered => {
            f.route != FileRoute::MemoryPointer
        }
        FileStatus::Empty | FileStatus::Unedited | FileStatus::NotThisRun | FileStatus::NotSent => false,
    }
}

/// Where `file` goes for this run's runtime.
pub fn route(turn: &FilesTurn, file: AgentFileName) -> FileRoute {
    if turn.unmanaged {
        return FileRoute::NotSent;
    }
    let openclaw = turn.runtime == RuntimeKind::Openclaw;
    match file {
        AgentFileName::Soul | AgentFileName::Identity | AgentFileName::User if openclaw => FileRoute::Workspace,
        AgentFileName::Soul | AgentFileName::Identity | AgentFileName::User => FileRoute::Instructions,
        AgentFileName::Agents if openclaw => FileRoute::Workspace,
        AgentFileName::Agents
            if turn.discovers_agents_md && matches!(turn.runtime, RuntimeKind::Codex | RuntimeKind::Hermes) =>
        {
            FileRoute::Workspace
        }
        AgentFileName::Agents => FileRoute::Instructions,
        AgentFileName::Memory if turn.memory_tools => FileRoute::MemoryPointer,
        AgentFileName::Memory | AgentFileName::Bootstrap => FileRoute::Reference,
        AgentFileName::Heartbeat => FileRoute::Heartbeat,
    }
}

/// How a route reaches `runtime`, in the words the editor and "What this agent saw" use.
pub fn route_label(runtime: RuntimeKind, route: FileRoute) -> &'static str {
    match (route, runtime) {
        (FileRoute::Instructions, RuntimeKind::ClaudeCode) => {
            "sent as instructions every turn (appended to Claude Code's system prompt)"
        }
        (FileRoute::Instructions, RuntimeKind::Codex) => {
            "sent as developer instructions each session; a change starts a fresh one"
        }
        (FileRoute::Instructions, RuntimeKind::Hermes) => {
            "sent as instructions each session (Hermes' SOUL.md); a change branches the session"
        }
        (FileRoute::Instructions, RuntimeKind::Native) => "sent as instructions in the system prompt of every request",
        (FileRoute::Instructions, RuntimeKind::Openclaw) => "sent as instructions once per session, with the message",
        (FileRoute::Workspace, RuntimeKind::Codex) => {
            "read by Codex as its own AGENTS.md (Clawboo keeps it in step, in Codex's private home)"
        }
        (FileRoute::Workspace, RuntimeKind::Hermes) => "read by Hermes from the workspace",
        (FileRoute::Workspace, RuntimeKind::Openclaw) => "read by OpenClaw from its workspace copy",
        (FileRoute::Workspace, RuntimeKind::ClaudeCode | RuntimeKind::Native) => "read from the workspace",
        (FileRoute::Reference, _) => "sent with the message on a new session, and again when it changes",
        (FileRoute::MemoryPointer, _) => "pointer only: memory tools on (memory_get / memory_search)",
        (FileRoute::Heartbeat, _) => "sent on heartbeat runs only",
        (FileRoute::NotSent, _) => "not sent: this agent's own OpenClaw Gateway keeps its own files",
    }
}

/// FNV-1a of `text`, 16 hex digits. Stable across builds and platforms, as it is stored.
pub fn hash(text: &str) -> String {
    let h = text.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    format!("{h:016x}")
}
