//! Connectors in the store and the keychain (run with `scripts/with-test-keyring`): create,
//! update, share, secrets kept out of SQLite, shares gone with their agent, what a run gets
//! and what the context slot names.

mod common;

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::connectors::{ConnectorEntryInput, ConnectorInput, ConnectorKind, RunTransport};
use clawboo_engine::{Engine, ErrorCode};
use common::Fixture;

const SECRET: &str = "s3cret-value-for-the-keychain";

fn open() -> (Engine, Fixture) {
    let fixture = Fixture::new().keychain("connectors");
    (fixture.open(), fixture)
}

fn agent(engine: &Engine, handle: &str) -> String {
    common::add_agent(engine, common::new_agent(handle, RuntimeKind::ClaudeCode))
}

fn entry(key: &str, value: Option<&str>, secret: bool) -> ConnectorEntryInput {
    ConnectorEntryInput { key: key.into(), value: value.map(str::to_owned), secret }
}

fn stdio(name: &str, entries: Vec<ConnectorEntryInput>) -> ConnectorInput {
    ConnectorInput {
        name: name.into(),
        kind: ConnectorKind::Stdio,
        command: "docs-server".into(),
        args: vec!["--port".into(), "0".into()],
        url: String::new(),
        entries,
        enabled: true,
    }
}

/// Whether any file under `dir` holds `needle` (the database, its WAL, logs).
fn found_in(dir: &std::path::Path, needle: &str) -> Vec<std::path::PathBuf> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            found.extend(found_in(&path, needle));
        } else if std::fs::read(&path).is_ok_and(|b| b.windows(needle.len()).any(|w| w == needle.as_bytes())) {
            found.push(path);
        }
    }
    found
}

#[test]
fn a_connector_keeps_its_secrets_in_the_keychain_and_reaches_only_the_agents_it_is_shared_with() {
    let (engine, fixture) = open();
    let scout = agent(&engine, "scout");
    let other = agent(&engine, "other");
    let mut events = engine.events().subscribe();
    let connectors = engine.connectors();

    let made = connectors
        .create(stdio("docs", vec![entry("DOCS_TOKEN", Some(SECRET), true), entry("MODE", Some("fast"), false)]))
        .unwrap();
    let heard = std::iter::from_fn(|| events.try_recv().ok());
    assert!(heard.into_iter().any(|e| e == clawboo_engine::EngineEvent::ConnectorsChanged));
    assert_eq!(made.entries[0].value, None, "a secret's value never comes back");
    assert!(made.entries[0].is_set && made.entries[0].secret);
    assert_eq!(made.entries[1].value.as_deref(), Some("fast"));
    assert!(
        found_in(fixture.path(), SECRET).is_empty(),
        "the secret is in no file: {:?}",
        found_in(fixture.path(), SECRET)
    );

    // Names are unique and never Clawboo's own server.
    let taken = connectors.create(stdio("docs", vec![])).unwrap_err();
    assert_eq!(taken.code(), ErrorCode::Conflict);
    assert_eq!(connectors.create(stdio("clawboo", vec![])).unwrap_err().code(), ErrorCode::InvalidInput);
    assert_eq!(connectors.list().unwrap().len(), 1, "refusals store nothing");

    // Not shared yet: no run gets it. The context slot still names it.
    assert!(connectors.for_run(&scout).connectors.is_empty());
    let slot = connectors.context_for(&scout).unwrap();
    assert_eq!(slot.connected, ["docs"]);
    assert!(!slot.suggested.is_empty() && slot.suggested.len() <= 3);

    connectors.set_shares(&made.id, std::slice::from_ref(&scout)).unwrap();
    let run = connectors.for_run(&scout);
    assert!(run.warnings.is_empty(), "{:?}", run.warnings);
    assert_eq!(run.connectors.len(), 1);
    let RunTransport::Stdio { command, args, env } = &run.connectors[0].transport else { panic!("stdio") };
    assert_eq!((command.as_str(), args.len()), ("docs-server", 2));
    assert!(env.contains(&("DOCS_TOKEN".into(), SECRET.into())), "the run's server gets the secret");
    assert!(!format!("{run:?}").contains(SECRET), "Debug prints no secret");
    assert!(connectors.for_run(&other).connectors.is_empty(), "not shared with the other agent");
    assert_eq!(connectors.context_for(&scout).unwrap().connected, ["docs (shared with you)"]);
    assert_eq!(connectors.context_for(&other).unwrap().connected, ["docs"]);

    // Updating without the secret keeps it; clearing it keeps the connector out of runs, with
    // a warning instead of a failed turn.
    let input = stdio("docs", vec![entry("DOCS_TOKEN", None, true)]);
    let updated = connectors.update(&made.id, input).unwrap();
    assert!(updated.entries[0].is_set);
    connectors.clear_secret(&made.id, "DOCS_TOKEN").unwrap();
    let run = connectors.for_run(&scout);
    assert!(run.connectors.is_empty());
    assert!(run.warnings[0].contains("Connector 'docs' did not start") && run.warnings[0].contains("DOCS_TOKEN"));
    connectors.set_secret(&made.id, "DOCS_TOKEN", "another").unwrap();
    assert_eq!(connectors.for_run(&scout).connectors.len(), 1);
    assert_eq!(connectors.set_secret(&made.id, "MODE", "x").unwrap_err().code(), ErrorCode::NotFound);

    // Disabled: no run gets it, and the slot leaves it out.
    let disabled = ConnectorInput { enabled: false, ..stdio("docs", vec![entry("DOCS_TOKEN", None, true)]) };
    connectors.update(&made.id, disabled).unwrap();
    assert!(connectors.for_run(&scout).connectors.is_empty());
    assert!(connectors.context_for(&scout).unwrap().connected.is_empty());

    // The agent's deletion takes its shares (foreign key cascade).
    engine.delete_agent(&scout).unwrap();
    assert!(connectors.get(&made.id).unwrap().shared_with.is_empty());
    assert_eq!(connectors.set_shares(&made.id, &["nobody".into()]).unwrap_err().code(), ErrorCode::NotFound);

    connectors.delete(&made.id).unwrap();
    assert!(connectors.list().unwrap().is_empty());
    assert_eq!(connectors.get(&made.id).unwrap_err().code(), ErrorCode::NotFound);
}

#[test]
fn an_http_connector_carries_its_headers() {
    let (engine, _fixture) = open();
    let scout = agent(&engine, "scout");
    let input = ConnectorInput {
        name: "web".into(),
        kind: ConnectorKind::Http,
        command: "ignored".into(),
        args: vec!["ignored".into()],
        url: "https://mcp.example.com/mcp".into(),
        entries: vec![entry("Authorization", Some("Bearer abc"), true)],
        enabled: true,
    };
    let made = engine.connectors().create(input).unwrap();
    assert!(made.command.is_empty() && made.args.is_empty(), "the other kind's fields are cleared");
    engine.connectors().share(&made.id, &scout, true).unwrap();
    let run = engine.connectors().for_run(&scout);
    let RunTransport::Http { url, headers } = &run.connectors[0].transport else { panic!("http") };
    assert_eq!(url, "https://mcp.example.com/mcp");
    assert_eq!(headers, &[("Authorization".to_owned(), "Bearer abc".to_owned())]);
    engine.connectors().share(&made.id, &scout, false).unwrap();
    assert!(engine.connectors().for_run(&scout).connectors.is_empty());
    engine.connectors().delete(&made.id).unwrap();
}

/// Records each turn's input and answers "ok".
#[derive(Default)]
struct Recording {
    inputs: std::sync::Mutex<Vec<clawboo_engine::runtimes::TurnInput>>,
}

impl clawboo_engine::runtimes::Runtime for Recording {
    fn kind(&self) -> RuntimeKind {
        RuntimeKind::Native
    }

    fn capabilities(&self) -> clawboo_engine::runtimes::Capabilities {
        use clawboo_engine::runtimes::*;
        Capabilities {
            streams_text: true,
            context_window: Some(200_000),
            history: HistoryMode::ClawbooTranscript,
            persona: PersonaDelivery::OwnSetup,
            setup_change: SetupChange::AppliedOnResume,
            team_history: TeamHistory { leader: TurnHistory::ContinueRoom, teammate: TurnHistory::Fresh },
        }
    }

    fn run(
        &self,
        input: clawboo_engine::runtimes::TurnInput,
        channels: clawboo_engine::runtimes::RunChannels,
    ) -> std::pin::Pin<
        Box<dyn std::future::Future<Output = clawboo_engine::Result<clawboo_engine::runtimes::RunResult>> + Send + '_>,
    > {
        self.inputs.lock().unwrap().push(input);
        Box::pin(async move {
            channels.emit(clawboo_engine::runtimes::RunEvent::TextDelta { text: "ok".into() });
            Ok(clawboo_engine::runtimes::RunResult::succeeded())
        })
    }
}

#[test]
fn every_kind_of_run_gets_the_agents_connectors_and_team_turns_name_them_all() {
    use clawboo_engine::chat::RunStatus;
    use clawboo_testkit::wait_for;
    use std::time::Duration;

    let fixture = Fixture::new().keychain("connectors-runs");
    let runtime = std::sync::Arc::new(Recording::default());
    let engine = fixture.open_with(vec![runtime.clone()]);
    let new = |handle: &str| NewAgent { model: "m".into(), ..common::new_agent(handle, RuntimeKind::Native) };
    let lead = common::add_agent(&engine, new("lead"));
    let scout = common::add_agent(&engine, new("scout"));
    let docs = engine.connectors().create(stdio("docs", vec![])).unwrap();
    engine.connectors().set_shares(&docs.id, std::slice::from_ref(&lead)).unwrap();
    // Shared with the leader too, but its secret is not set: left out, with a warning.
    let locked = engine.connectors().create(stdio("locked", vec![entry("TOKEN", None, true)])).unwrap();
    engine.connectors().set_shares(&locked.id, std::slice::from_ref(&lead)).unwrap();
    engine.connectors().create(stdio("web", vec![])).unwrap();
    let inputs = || runtime.inputs.lock().unwrap().clone();

    // One-to-one.
    let run = engine.chat().send(&lead, "hello").unwrap().run.unwrap();
    wait_for("the chat run", Duration::from_secs(20), || {
        let page = engine.chat().history_page(&lead, None, 50).unwrap();
        page.runs.into_iter().find(|r| r.id == run.id && r.status == RunStatus::Succeeded)
    });
    let names =
        |i: &clawboo_engine::runtimes::TurnInput| i.connectors.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
    assert_eq!(names(&inputs()[0]), ["docs"]);
    let activity = engine.chat().run_activity(&run.id).unwrap();
    let warned = activity.iter().any(|r| {
        matches!(&r.event, clawboo_engine::runtimes::RunEvent::Warning { message }
            if message.contains("Connector 'locked' did not start") && message.contains("TOKEN"))
    });
    assert!(warned, "{activity:#?}");

    // A team turn the user reads: the slot names every enabled connector, marking the agent's
    // own, and a few the user could add; the run gets only the agent's.
    let team = engine
        .teams()
        .create(clawboo_engine::teams::NewTeam {
            name: "Launch".into(),
            member_ids: vec![lead.clone(), scout.clone()],
            leader_id: Some(lead.clone()),
        })
        .unwrap();
    engine.teams().set_about_you(&team.id, "I am Ada.").unwrap();
    let general = team.rooms.iter().find(|r| r.is_general).unwrap().id.clone();
    engine.chat().send_team(&general, "plan the launch").unwrap();
    let turn = wait_for("the leader's team turn", Duration::from_secs(20), || {
        inputs().into_iter().find(|i| i.message.contains("plan the launch"))
    });
    assert_eq!(names(&turn), ["docs"]);
    // Steady (it changes only when the user adds or shares one): in the runtime's system slot.
    let preamble = turn.preamble.clone().unwrap_or_default();
    assert!(!preamble.contains("## Connectors"), "{preamble}");
    let slot = [turn.persona.clone(), turn.setup.clone()].into_iter().flatten().collect::<Vec<_>>().join("\n");
    assert!(slot.contains("## Connectors"), "{slot}");
    assert!(slot.contains("docs (shared with you), locked (shared with you), web."), "{slot}");
    assert!(slot.contains("The user could add: github, filesystem, fetch."), "{slot}");

    // A task run on the Board: the agent's connectors too.
    engine.connectors().set_shares(&docs.id, &[lead.clone(), scout.clone()]).unwrap();
    let card = engine
        .board()
        .create(
            clawboo_engine::board::Actor::User,
            clawboo_engine::board::NewCard {
                title: "Check the docs".into(),
                description: String::new(),
                assignee_id: Some(scout.clone()),
                team_id: None,
                status: None,
                priority: None,
                depends_on: Vec::new(),
                check_command: None,
                project_folder: None,
            },
        )
        .unwrap();
    // Started by the Board's watch or here, whichever comes first.
    let _ = engine.runner().start(&card.id, clawboo_engine::runner::StartOptions::default());
    let task = wait_for("the task run", Duration::from_secs(20), || {
        inputs().into_iter().find(|i| i.agent.id == scout && i.message.contains("Check the docs"))
    });
    assert_eq!(names(&task), ["docs"]);
}
