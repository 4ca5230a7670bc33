//! Where each part of a team turn's context goes, per runtime, so that nothing piles up in a
//! carried conversation: steady sections (persona, rules, About you, teammates, how to work) in
//! the runtime's own system/developer slot when Clawboo fills it (Claude Code, Codex, Hermes, and
//! Native, which adds them to its system prompt: steady turn to turn, so they stay in the cached
//! prefix; its stored transcript holds bare messages), the turn's sections in front of the
//! message. A runtime that keeps its own session with its own persona (OpenClaw) gets the steady
//! sections in front of the message only when that session does not have them yet.

use serde::Serialize;

use super::setup::SessionSetup;
use crate::context::files::FilePlan;
use crate::context::{Assembled, SectionKind, Stability};
use crate::runtimes::{Capabilities, HistoryMode, PersonaDelivery};

/// Where each part of the assembled context went for this run's runtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum Placement {
    /// Steady sections in the runtime's system/developer slot; the rest in front of the message.
    SystemSlot,
    /// In front of the message; steady sections only when the runtime's session is new or they
    /// changed (its session keeps them).
    OncePerSession,
}

impl Placement {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SystemSlot => "system_slot",
            Self::OncePerSession => "once_per_session",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::SystemSlot, Self::OncePerSession].into_iter().find(|k| k.as_str() == s)
    }
}

/// The runtime's placement, from its capabilities.
pub fn of(capabilities: &Capabilities) -> Placement {
    match (capabilities.persona, capabilities.history) {
        (PersonaDelivery::SentByClawboo, _) | (PersonaDelivery::OwnSetup, HistoryMode::ClawbooTranscript) => {
            Placement::SystemSlot
        }
        (PersonaDelivery::OwnSetup, HistoryMode::RuntimeSession) => Placement::OncePerSession,
    }
}

/// What the turn's input carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    /// For the runtime's system/developer slot.
    pub system: Option<String>,
    /// In front of the message.
    pub preamble: Option<String>,
    /// The steady sections were left out: the resumed session has them.
    pub steady_in_session: bool,
}

pub fn place(placement: Placement, assembled: &Assembled, session_has_steady: bool) -> Placed {
    let non_empty = |s: String| Some(s).filter(|s| !s.trim().is_empty());
    match placement {
        Placement::SystemSlot => Placed {
            system: non_empty(assembled.steady_text()),
            preamble: non_empty(assembled.changing_text()),
            steady_in_session: false,
        },
        Placement::OncePerSession if session_has_steady => {
            Placed { system: None, preamble: non_empty(assembled.changing_text()), steady_in_session: true }
        }
        Placement::OncePerSession => {
            Placed { system: None, preamble: non_empty(assembled.preamble()), steady_in_session: false }
        }
    }
}

/// The fingerprint of the steady sections, one part per section (named as the user knows it),
/// so a session that started with other ones is continued the way its runtime can take a
/// change (see `SetupChange`), and the change is named.
///
/// The persona and instructions sections are fingerprinted by their files instead (`files`), so
/// a change names the file, and AGENTS.md counts even where the runtime reads it itself.
pub fn fingerprint(assembled: &Assembled, files: &FilePlan) -> String {
    let mut setup = SessionSetup::default();
    for section in assembled.sections.iter().filter(|s| s.stability == Stability::Steady) {
        if !matches!(section.kind, SectionKind::Persona | SectionKind::Instructions) {
            setup = setup.with(part_name(section.kind), section.text.as_str());
        }
    }
    setup.with_files(files).fingerprint()
}

fn part_name(kind: SectionKind) -> &'static str {
    match kind {
        SectionKind::Persona => super::setup::PERSONA,
        SectionKind::Instructions => "the instructions",
        SectionKind::WorkspaceFiles => "the workspace files",
        SectionKind::Rules => "the team rules",
        SectionKind::AboutYou => "About you",
        SectionKind::Teammates => "the teammates",
        SectionKind::HowToWork => "how to work",
        SectionKind::Routine => "the routine note",
        SectionKind::Connectors => "the connectors",
        SectionKind::AddressedToYou | SectionKind::Ambient => "waiting items",
        SectionKind::Message => "the message",
        SectionKind::Task => "the task",
        SectionKind::Resume => "where the last attempt left off",
        SectionKind::ToolsNote => "the tools note",
        SectionKind::RuntimeNote => "the runtime note",
        SectionKind::CutOff => "the cut-off warning",
        SectionKind::FailureNote => "the failure note",
        SectionKind::HandoffNote => "the hand-off note",
        SectionKind::Memory => "the memory facts",
    }
}
