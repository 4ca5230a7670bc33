//! A real runtime's permission question through Attention: Claude Code (the pinned `claude`
//! CLI, approval policy Ask) works as a hidden teammate in team chat against the fake model
//! server. A scripted leader hands it a task; the fake model makes it call its Write tool; the
//! question is an approval in the inbox with its source; Deny keeps the file from being written,
//! "Allow always" on the next hand-off lets it through, and the third goes through without
//! asking. Skipped when the CLI is not installed (see `common::cli`).
#![cfg(unix)]

mod common;

use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::attention::{
    AttentionRequest, AuditAction, Decision, Origin, RequestKind, RequestStatus, UserAnswer,
};
use clawboo_engine::chat::team::{RoomMessage, RoomMessageKind};
use clawboo_engine::chat::RunStatus;
use clawboo_engine::runtimes::{Capabilities, RunChannels, RunEvent, RunResult, Runtime, TurnInput};
use clawboo_engine::secrets::Provider;
use clawboo_engine::Engine;
use clawboo_testkit::{wait_for, Behavior, FakeModelServer, Reply};
use common::Fixture;
use serde_json::json;

const LIMIT: Duration = Duration::from_secs(240);

/// The leader: "delegate <task>" hands the task to @writer (a line of its reply); anything
/// else (the teammate's result) is noted.
struct Leader;

impl Runtime for Leader {
    fn kind(&self) -> RuntimeKind {
        RuntimeKind::Native
    }

    fn capabilities(&self) -> Capabilities {
        clawboo_engine::runtimes::native::CAPABILITIES
    }

    fn run(
        &self,
        input: TurnInput,
        channels: RunChannels,
    ) -> Pin<Box<dyn std::future::Future<Output = clawboo_engine::Result<RunResult>> + Send + '_>> {
        Box::pin(async move {
            let text = match input.message.strip_prefix("delegate ") {
                Some(task) => format!("On it.\n@writer {task}"),
                None => "Noted.".to_owned(),
            };
            channels.emit(RunEvent::TextDelta { text });
            Ok(RunResult::succeeded())
        })
    }
}

struct Setup {
    engine: Engine,
    general: String,
    team_id: String,
    writer: String,
    workspace: PathBuf,
    _fixture: Fixture,
}

/// An engine on `fixture` whose Claude Code runs reach `server`, with the scripted leader.
fn open_engine(fixture: &Fixture, server: &FakeModelServer) -> Engine {
    let (claude, _, _) =
        common::chat_adapter(RuntimeKind::ClaudeCode, server, "sk-fake-attention").expect("claude is installed");
    fixture.open_with(vec![claude, Arc::new(Leader)])
}

/// The team (a scripted leader, a Claude Code writer) and the fake model, which writes into the
/// writer's workspace: the team is made first, on an engine opened only for that, so that the
/// model's script can name the workspace's real path.
fn setup() -> Option<(Setup, FakeModelServer)> {
    let claude = common::cli("claude")?;
    let fixture = Fixture::for_clis().program(RuntimeKind::ClaudeCode, &claude);
    let (team_id, general, writer, workspace) = {
        let placeholder = FakeModelServer::start_blocking(Behavior::text("(unused)"));
        let engine = open_engine(&fixture, &placeholder);
        let agent = |handle: &str, runtime: RuntimeKind, provider: Option<Provider>| NewAgent {
            name: handle.to_uppercase(),
            description: format!("{handle}, who does the {handle} work"),
            model: "claude-sonnet-4-5".into(),
            provider,
            ..common::new_agent(handle, runtime)
        };
        let lead = common::add_agent(&engine, agent("lead", RuntimeKind::Native, None));
        let writer = common::add_agent(&engine, agent("writer", RuntimeKind::ClaudeCode, Some(Provider::Anthropic)));
        let members = [lead, writer.clone()];
        let common::ChatTeam { team, general } =
            common::chat_team(&engine, "Shop", &members, "I am Ada, I run a tea shop.");
        let workspace = engine.agents().workspaces().dir(&writer);
        (team.id, general, writer, workspace)
    };
    let server = FakeModelServer::start_blocking(
        Behavior::text("(unscripted)")
            .when("TASK-3", task(&workspace, 3))
            .when("TASK-2", task(&workspace, 2))
            .when("TASK-1", task(&workspace, 1)),
    );
    let engine = open_engine(&fixture, &server);
    Some((Setup { engine, general, team_id, writer, workspace, _fixture: fixture }, server))
}

/// What the fake model does for task `n`: write `notes-n.md` in the writer's workspace, then
/// report.
fn task(workspace: &Path, n: u32) -> Vec<Reply> {
    let path = workspace.join(format!("notes-{n}.md"));
    vec![
        Reply::ToolCall {
            name: "Write".into(),
            input: json!({"file_path": path.display().to_string(), "content": format!("notes {n}\n")}),
        },
        Reply::Text(format!("REPORT-{n}: done with the notes as far as I was allowed.")),
    ]
}

impl Setup {
    fn messages(&self) -> Vec<RoomMessage> {
        self.engine.chat().room_page(&self.general, None, 500).unwrap().messages
    }

    /// Hands task `n` to the writer through the leader; the hand-off's card in the room, once
    /// its run has started.
    fn hand_off(&self, n: u32) -> RoomMessage {
        let before = self.messages().last().map_or(0, |m| m.seq);
        self.engine.chat().send_team(&self.general, &format!("delegate TASK-{n} write notes-{n}.md")).unwrap();
        wait_for("the hand-off's run", LIMIT, || {
            self.messages()
                .into_iter()
                .find(|m| m.seq > before && m.kind == RoomMessageKind::Handoff && m.run_id.is_some())
        })
    }

    /// The writer's report on task `n`, once the team is idle.
    fn report(&self, n: u32) -> RoomMessage {
        let needle = format!("REPORT-{n}");
        wait_for(&format!("{needle} and an idle team"), LIMIT, || {
            let messages = self.messages();
            let runs = self.engine.chat().room_runs(&self.general, 100).unwrap();
            let report = messages.iter().find(|m| m.kind == RoomMessageKind::Reply && m.content.contains(&needle));
            report.filter(|_| runs.iter().all(|r| r.status != RunStatus::Running)).cloned()
        })
    }

    fn open_permission(&self) -> AttentionRequest {
        wait_for("the Write approval", LIMIT, || {
            self.engine.attention().open().unwrap().into_iter().find(|r| r.kind == RequestKind::Permission)
        })
    }

    fn activity(&self, run_id: &str) -> Vec<RunEvent> {
        self.engine.chat().run_activity(run_id).unwrap().into_iter().map(|r| r.event).collect()
    }
}

/// The permission answers a run's runtime was given, in order.
fn resolved(events: &[RunEvent]) -> Vec<bool> {
    events
        .iter()
        .filter_map(|e| match e {
            RunEvent::PermissionResolved { allowed, .. } => Some(*allowed),
            _ => None,
        })
        .collect()
}

/// The Write tool's result in a run's events: (output, is_error).
fn write_result(events: &[RunEvent]) -> (String, bool) {
    let call = events.iter().find_map(|e| match e {
        RunEvent::ToolCallStarted { call_id, name, .. } if name == "Write" => Some(call_id.clone()),
        _ => None,
    });
    let call = call.unwrap_or_else(|| panic!("a Write call: {events:#?}"));
    let result = events.iter().find_map(|e| match e {
        RunEvent::ToolResult { call_id, output, is_error } if *call_id == call => Some((output.clone(), *is_error)),
        _ => None,
    });
    result.unwrap_or_else(|| panic!("the Write call's result: {events:#?}"))
}

#[test]
fn claude_codes_write_waits_in_the_inbox_deny_keeps_the_file_away_and_allow_always_lets_it_through() {
    let Some((s, server)) = setup() else { return };

    // Task 1: the question is in the inbox with its source; the user denies it.
    let card = s.hand_off(1);
    let run = card.run_id.clone().unwrap();
    let asked = s.open_permission();
    assert_eq!(
        (asked.origin, asked.agent_id.as_str(), asked.tool.as_deref()),
        (Origin::Team, s.writer.as_str(), Some("Write"))
    );
    assert_eq!(asked.team_id.as_deref(), Some(s.team_id.as_str()));
    assert_eq!(asked.room_id.as_deref(), Some(s.general.as_str()));
    assert_eq!(asked.run_id.as_deref(), Some(run.as_str()), "the teammate's run on the hand-off");
    assert!(asked.input.as_deref().unwrap_or_default().contains("notes-1.md"), "{:?}", asked.input);
    assert!(asked.expires_at.is_some());
    assert_eq!(s.engine.chat().run(&run).unwrap().status, RunStatus::Running, "Claude Code waits for the user");
    let denied = s.engine.answer_attention(&asked.id, UserAnswer::Decision { decision: Decision::Deny }).unwrap();
    assert_eq!((denied.status, denied.decision), (RequestStatus::Answered, Some(Decision::Deny)));
    let report = s.report(1);
    assert_eq!(report.run_id.as_deref(), Some(run.as_str()));
    let events = s.activity(&run);
    assert_eq!(resolved(&events), [false], "the run was told no");
    let (output, is_error) = write_result(&events);
    assert!(is_error, "the denied Write failed: {output}");
    assert!(!s.workspace.join("notes-1.md").exists(), "nothing was written");
    assert!(s.engine.attention().grants().unwrap().is_empty());

    // Task 2: Allow always.
    let run = s.hand_off(2).run_id.unwrap();
    let asked = s.open_permission();
    assert_eq!((asked.run_id.as_deref(), asked.tool.as_deref()), (Some(run.as_str()), Some("Write")));
    s.engine.answer_attention(&asked.id, UserAnswer::Decision { decision: Decision::AllowAlways }).unwrap();
    s.report(2);
    let events = s.activity(&run);
    assert_eq!(resolved(&events), [true]);
    assert!(!write_result(&events).1, "{events:#?}");
    assert_eq!(std::fs::read_to_string(s.workspace.join("notes-2.md")).unwrap(), "notes 2\n");
    let grants = s.engine.attention().grants().unwrap();
    assert_eq!(grants.len(), 1);
    assert_eq!((grants[0].agent_id.as_str(), grants[0].tool.as_str()), (s.writer.as_str(), "Write"));

    // Task 3: the same call goes through without asking anyone.
    let run = s.hand_off(3).run_id.unwrap();
    s.report(3);
    assert!(s.engine.attention().open().unwrap().is_empty(), "nothing waited in the inbox");
    let events = s.activity(&run);
    assert_eq!(resolved(&events), [true]);
    assert_eq!(std::fs::read_to_string(s.workspace.join("notes-3.md")).unwrap(), "notes 3\n");
    let history = s.engine.attention().history(None, 10).unwrap();
    let granted = history.iter().find(|r| r.run_id.as_deref() == Some(run.as_str())).expect("kept in the history");
    assert_eq!((granted.status, granted.decision), (RequestStatus::Answered, Some(Decision::AllowAlways)));
    let audit = s.engine.attention().audit(Some(&granted.id), None, 10).unwrap();
    assert_eq!((audit[0].actor.as_str(), audit[0].action), ("clawboo", AuditAction::AllowedByGrant));
    assert_eq!(history.iter().filter(|r| r.kind == RequestKind::Permission).count(), 3, "one per Write");
    assert!(server.requests().iter().all(|r| r.path.starts_with('/')), "nothing went through the proxy");
}
