//! A team to assemble turns for, and the rendering the golden snapshots use.

use clawboo_engine::agents::{AgentFileName, RuntimeKind};
use clawboo_engine::chat::team::notices;
use clawboo_engine::context::files::{self, AgentFiles, FilePlan, FileSession, FilesTurn};
use clawboo_engine::context::{
    Assembled, Connectors, Member, PeerPost, RoutineNote, TeamTurn, ToolName, TurnKind, TurnMessage, WaitingItem,
    WaitingKind,
};

pub const RUNTIMES: [RuntimeKind; 5] =
    [RuntimeKind::ClaudeCode, RuntimeKind::Codex, RuntimeKind::Hermes, RuntimeKind::Openclaw, RuntimeKind::Native];

pub const ALL_TOOLS: [ToolName; 4] = [ToolName::Handoff, ToolName::PeerPost, ToolName::PeerRead, ToolName::AskUser];

/// Owns everything a [`TeamTurn`] borrows. Defaults: a leader's turn in General on `runtime`,
/// all tools, rules, About you, two waiting items and a peer post, the user's message.
pub struct Fixture {
    pub runtime: RuntimeKind,
    pub persona: String,
    pub rules: Vec<String>,
    pub about_you: String,
    pub room_name: String,
    pub is_general: bool,
    pub me: String,
    pub members: Vec<Member>,
    pub kind: TurnKind,
    pub tools: Vec<ToolName>,
    pub routine: Option<RoutineNote>,
    pub connectors: Option<Connectors>,
    pub waiting: Vec<WaitingItem>,
    pub peer_posts: Vec<PeerPost>,
    pub message: TurnMessage,
}

pub fn member(handle: &str, name: &str, runtime: RuntimeKind, role: &str, is_leader: bool) -> Member {
    Member { handle: handle.into(), name: name.into(), runtime, role: role.into(), is_leader }
}

pub fn item(id: &str, kind: WaitingKind, from: Option<&str>, text: &str) -> WaitingItem {
    WaitingItem { id: id.into(), kind, from: from.map(Into::into), text: text.into() }
}

pub fn post(id: &str, author: &str, text: &str) -> PeerPost {
    PeerPost { id: id.into(), author: author.into(), text: text.into() }
}

impl Fixture {
    pub fn leader(runtime: RuntimeKind) -> Self {
        Self {
            runtime,
            persona: "You are Lea, a calm planner. You keep answers short.".into(),
            rules: vec!["Answer in English.".into(), "Never push to main.\nOpen a pull request instead.".into()],
            about_you: "I am Sam, I run a small bakery and want a website.".into(),
            room_name: "General".into(),
            is_general: true,
            me: "lead".into(),
            members: vec![
                member("lead", "Lea", runtime, "Plans and answers the user", true),
                member("ada", "Ada", RuntimeKind::Codex, "Writes and edits the docs", false),
                member("bo", "Bo", RuntimeKind::Native, "Checks numbers\n  and sources", false),
                member("cy", "Cy", RuntimeKind::Hermes, "", false),
            ],
            kind: TurnKind::Leader,
            tools: ALL_TOOLS.to_vec(),
            routine: None,
            connectors: None,
            waiting: vec![
                item(
                    "w1",
                    WaitingKind::Alert,
                    None,
                    &notices::card_commented(12, "Price list", "the user", "Please add the rye loaf."),
                ),
                item("w2", WaitingKind::Notice, None, &notices::member_joined("bo")),
            ],
            peer_posts: vec![post("p1", "ada", "Draft of the menu page is in docs/menu.md.")],
            message: TurnMessage::User("Plan the bakery website: pages and who does what.".into()),
        }
    }

    /// `me` (Ada, running on `runtime`) addressed by the user with `@ada`.
    pub fn mentioned(runtime: RuntimeKind) -> Self {
        let mut f = Self::leader(RuntimeKind::ClaudeCode);
        f.become_member("ada", runtime);
        f.kind = TurnKind::Mentioned;
        f.tools = vec![ToolName::PeerPost, ToolName::PeerRead];
        f.persona = "You are Ada. You write plain, friendly copy.".into();
        f.message = TurnMessage::User("@ada what tone should the home page have?".into());
        f
    }

    /// `me` (Ada, running on `runtime`) on a task @lead handed out.
    pub fn teammate(runtime: RuntimeKind) -> Self {
        let mut f = Self::mentioned(runtime);
        f.kind = TurnKind::Teammate { from: "lead".into() };
        f.waiting = vec![item("w3", WaitingKind::Notice, None, &notices::rule_added(3))];
        f.message = TurnMessage::Task("Write the home page copy: 3 short paragraphs, warm tone.".into());
        f
    }

    /// The leader gets one batch of results.
    pub fn results(runtime: RuntimeKind) -> Self {
        let mut f = Self::leader(runtime);
        f.waiting.clear();
        f.peer_posts.clear();
        f.message = TurnMessage::Results(vec![
            clawboo_engine::context::TaskResult {
                from: "ada".into(),
                task: "Write the home page copy: 3 short paragraphs.\nWarm tone.".into(),
                reply: "Here is the copy:\n\nFresh bread every morning…".into(),
                failed: false,
            },
            clawboo_engine::context::TaskResult {
                from: "bo".into(),
                task: "Check the prices list".into(),
                reply: "Stopped: the run hit its turn limit.".into(),
                failed: true,
            },
        ]);
        f
    }

    /// `me` (Ada, running on `runtime`) goes on with the task @lead handed it: the results of
    /// the work it handed out for it came back (a chain).
    pub fn chain(runtime: RuntimeKind) -> Self {
        let mut f = Self::teammate(runtime);
        f.tools = vec![ToolName::Handoff, ToolName::PeerPost, ToolName::PeerRead];
        f.message = TurnMessage::TaskResults {
            task: "Write the home page copy: 3 short paragraphs, warm tone.".into(),
            results: vec![clawboo_engine::context::TaskResult {
                from: "bo".into(),
                task: "Check the opening hours on the old site".into(),
                reply: "Mon–Sat 7:00–18:00, closed Sundays.".into(),
                failed: false,
            }],
        };
        f
    }

    /// The leader's turn in the room "Design", whose members are the leader and Ada only.
    pub fn room(runtime: RuntimeKind) -> Self {
        let mut f = Self::leader(runtime);
        f.room_name = "Design".into();
        f.is_general = false;
        f.members.retain(|m| m.handle == "lead" || m.handle == "ada");
        f
    }

    fn become_member(&mut self, handle: &str, runtime: RuntimeKind) {
        self.me = handle.into();
        self.runtime = runtime;
        for m in &mut self.members {
            if m.handle == handle {
                m.runtime = runtime;
            }
        }
    }

    pub fn turn<'a>(&'a self, files: &'a FilePlan) -> TeamTurn<'a> {
        TeamTurn {
            runtime: self.runtime,
            files,
            rules: &self.rules,
            about_you: &self.about_you,
            team_name: "Bakery",
            room_name: &self.room_name,
            is_general: self.is_general,
            me: &self.me,
            members: &self.members,
            kind: self.kind.clone(),
            tools: &self.tools,
            routine: self.routine.as_ref(),
            connectors: self.connectors.as_ref(),
            waiting: &self.waiting,
            peer_posts: &self.peer_posts,
            message: &self.message,
        }
    }

    pub fn assemble(&self) -> Assembled {
        let plan = soul_only_plan(self.runtime, &self.persona, &self.tools).expect("SOUL.md within its budget");
        clawboo_engine::context::team_turn(&self.turn(&plan))
    }
}

/// The file plan of an agent whose only file is a SOUL.md holding `persona`, in a new session
/// in its own folder.
pub fn soul_only_plan(runtime: RuntimeKind, persona: &str, tools: &[ToolName]) -> clawboo_engine::Result<FilePlan> {
    let files = AgentFiles::default().with(AgentFileName::Soul, persona);
    files::plan(&FilesTurn {
        runtime,
        files: &files,
        memory_tools: tools.contains(&ToolName::MemorySearch) && tools.contains(&ToolName::MemoryGet),
        discovers_agents_md: true,
        unmanaged: false,
        session: &FileSession::New,
        heartbeat: false,
        project: None,
    })
}

/// The assembled turn as reviewed in a snapshot: each section under a visible boundary with its
/// place, stability, size and budget, then what was delivered and what waits.
pub fn render(a: &Assembled) -> String {
    let mut out = String::new();
    for s in &a.sections {
        let budget = s.budget.map(|b| format!(" / budget {b}")).unwrap_or_default();
        let cut = s.cut_from.map(|c| format!(", cut from {c}")).unwrap_or_default();
        out.push_str(&format!(
            "════ {:?} · {} · {:?} · {} chars{budget}{cut} ════\n",
            s.kind, s.title, s.stability, s.chars
        ));
        out.push_str(&s.text);
        out.push('\n');
    }
    out.push_str(&format!("════ delivered: {:?}\n════ deferred: {:?}\n", a.delivered, a.deferred));
    out
}
