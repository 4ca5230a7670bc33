//! First run over real SQLite and the real keychain: detected while nothing but Boo Zero exists
//! and until made or skipped; the starter team proposed for a key only, a CLI only, a custom
//! endpoint, or nothing (then how to add one, and no team); made once with Boo Zero leading.
//! PATH and HOME point at folders the test controls, so the machine's own CLIs do not count.

mod common;

use std::path::Path;
use std::sync::Mutex;

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::onboarding::{StarterRole, StarterTeamInput};
use clawboo_engine::secrets::Provider;
use clawboo_engine::{Engine, ErrorCode};
use common::Fixture;

/// PATH and HOME are the process's: one test at a time sets them.
static ENV: Mutex<()> = Mutex::new(());

/// A machine whose PATH holds only `bin` (and whose HOME is empty), with an engine on a fresh
/// data folder.
struct Machine {
    _env: std::sync::MutexGuard<'static, ()>,
    bin: tempfile::TempDir,
    home: tempfile::TempDir,
    fixture: Fixture,
}

impl Machine {
    fn new() -> Self {
        let env = ENV.lock().unwrap_or_else(|e| e.into_inner());
        let (bin, home) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        std::env::set_var("PATH", bin.path());
        std::env::set_var("HOME", home.path());
        std::env::remove_var("CLAUDE_CONFIG_DIR");
        std::env::remove_var("CODEX_HOME");
        std::env::remove_var("HERMES_HOME");
        Self { _env: env, bin, home, fixture: Fixture::new() }
    }

    /// A `hermes` on PATH that answers `--version`.
    fn with_hermes(self) -> Self {
        write_program(&self.bin.path().join("hermes"), "#!/bin/sh\necho 'Hermes Agent v0.4.1'\n");
        self
    }

    /// The user signed in to Hermes once (`~/.hermes/auth.json` exists; Clawboo never opens it).
    fn with_hermes_sign_in(self) -> Self {
        let dir = self.home.path().join(".hermes");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("auth.json"), "{}").unwrap();
        self
    }

    fn open(&self) -> Engine {
        self.fixture.open()
    }
}

fn write_program(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn boo_zero_id(engine: &Engine) -> String {
    engine.boo_zero().info().unwrap().agent_id
}

#[test]
fn with_nothing_available_the_proposal_says_how_to_get_a_runtime_and_makes_no_team() {
    let machine = Machine::new();
    let engine = machine.open();
    let state = engine.onboarding().state().unwrap();
    assert!(state.first_run && !state.finished, "{state:?}");

    let proposal = engine.block_on(engine.onboarding().proposal()).unwrap();
    assert!(!proposal.ready && proposal.members.is_empty(), "{proposal:?}");
    let fixes: Vec<(RuntimeKind, &str)> = proposal.missing.iter().map(|m| (m.kind, m.fix.as_str())).collect();
    assert!(fixes.contains(&(RuntimeKind::ClaudeCode, "npm install -g @anthropic-ai/claude-code")), "{fixes:?}");
    assert!(fixes.contains(&(RuntimeKind::Codex, "npm install -g @openai/codex")), "{fixes:?}");
    assert!(fixes.iter().any(|(k, fix)| *k == RuntimeKind::Native && fix.contains("Settings > API keys")), "{fixes:?}");

    let refused = engine.block_on(engine.onboarding().create_starter_team(StarterTeamInput::default())).unwrap_err();
    assert_eq!(refused.code(), ErrorCode::RuntimeNotFound);
    assert!(refused.to_string().contains("Settings > API keys"), "{refused}");
    assert!(engine.teams().list().unwrap().is_empty());
    assert_eq!(engine.agents().list().unwrap().len(), 1, "only Boo Zero");

    // Skipped: never a first run again, here or after a restart.
    let state = engine.onboarding().finish().unwrap();
    assert!(!state.first_run && state.finished);
    drop(engine);
    assert!(!machine.open().onboarding().state().unwrap().first_run);
}

#[test]
fn an_agent_of_the_users_own_ends_the_first_run() {
    let machine = Machine::new();
    let engine = machine.open();
    common::add_agent(&engine, NewAgent { name: "Mine".into(), ..common::new_agent("mine", RuntimeKind::Native) });
    let state = engine.onboarding().state().unwrap();
    assert!(!state.first_run && !state.finished, "{state:?}");
}

#[test]
fn a_key_only_makes_a_native_team_led_by_boo_zero_once() {
    let machine = Machine::new();
    let engine = machine.open();
    // Boo Zero was made before any key: Native without a provider, which cannot run.
    let boo = engine.agents().get(&boo_zero_id(&engine)).unwrap();
    assert_eq!((boo.runtime, boo.provider), (RuntimeKind::Native, None));
    engine.secrets().set_api_key(Provider::Anthropic, "sk-ant-onboarding-test").unwrap();

    let proposal = engine.block_on(engine.onboarding().proposal()).unwrap();
    assert!(proposal.ready && !proposal.needs_model, "{proposal:?}");
    assert_eq!(proposal.providers, vec![Provider::Anthropic]);
    let roles: Vec<_> = proposal.members.iter().map(|m| (m.role, m.handle.as_str(), m.runtime, m.provider)).collect();
    let native = (RuntimeKind::Native, Some(Provider::Anthropic));
    assert_eq!(
        roles,
        vec![
            (StarterRole::Leader, boo.handle.as_str(), native.0, native.1),
            (StarterRole::Researcher, "researcher", native.0, native.1),
            (StarterRole::Builder, "builder", native.0, native.1),
        ]
    );

    let input = StarterTeamInput { team_name: Some(" Tea shop ".into()), ..Default::default() };
    let team = engine.block_on(engine.onboarding().create_starter_team(input)).unwrap();
    assert_eq!(team.name, "Tea shop");
    assert_eq!(team.leader_id.as_deref(), Some(boo.id.as_str()));
    assert_eq!(team.members.len(), 3);
    let boo = engine.agents().get(&boo.id).unwrap();
    assert_eq!((boo.runtime, boo.provider, boo.model.as_str()), (native.0, native.1, "claude-sonnet-4-5"));
    for (handle, heading) in [("researcher", "# Researcher"), ("builder", "# Builder")] {
        let agent = engine.agents().list().unwrap().into_iter().find(|a| a.handle == handle).unwrap();
        assert!(team.is_member(&agent.id));
        assert_eq!((agent.runtime, agent.provider), native);
        assert!(engine.agents().read_file(&agent.id, "SOUL.md").unwrap().content.starts_with(heading));
    }
    let state = engine.onboarding().state().unwrap();
    assert!(!state.first_run && state.finished);
    assert_eq!(state.starter_team_id.as_deref(), Some(team.id.as_str()));

    // Twice (a double click, a second window): the same team, nothing new made.
    let again = engine.block_on(engine.onboarding().create_starter_team(StarterTeamInput::default())).unwrap();
    assert_eq!(again.id, team.id);
    assert_eq!(engine.teams().list().unwrap().len(), 1);
    assert_eq!(engine.agents().list().unwrap().len(), 3);
}

#[test]
fn a_found_hermes_with_no_sign_in_and_no_key_is_not_offered_and_says_how() {
    let machine = Machine::new().with_hermes();
    let engine = machine.open();
    let proposal = engine.block_on(engine.onboarding().proposal()).unwrap();
    assert!(!proposal.ready && proposal.members.is_empty(), "{proposal:?}");
    let hermes = proposal.missing.iter().find(|m| m.kind == RuntimeKind::Hermes).expect("Hermes said missing");
    assert_eq!(hermes.reason, "it has no sign-in and no key");
    assert!(hermes.fix.contains("hermes auth") && hermes.fix.contains("Settings > API keys"), "{hermes:?}");
}

#[test]
fn a_cli_only_runs_the_whole_team_and_about_you_makes_its_chat_ready() {
    let machine = Machine::new().with_hermes().with_hermes_sign_in();
    let engine = machine.open();
    let proposal = engine.block_on(engine.onboarding().proposal()).unwrap();
    assert!(proposal.ready, "{proposal:?}");
    assert_eq!(proposal.runtimes, vec![RuntimeKind::Hermes]);
    assert!(proposal.members.iter().all(|m| m.runtime == RuntimeKind::Hermes && m.provider.is_none()));
    assert!(proposal.missing.iter().any(|m| m.kind == RuntimeKind::Native), "no key is said to be missing");

    let input = StarterTeamInput { about_you: Some("I am Ada; I run a tea shop.".into()), ..Default::default() };
    let team = engine.block_on(engine.onboarding().create_starter_team(input)).unwrap();
    assert_eq!(team.about_you, "I am Ada; I run a tea shop.");
    let boo = engine.agents().get(&boo_zero_id(&engine)).unwrap();
    assert_eq!(boo.runtime, RuntimeKind::Hermes);
    assert_eq!(team.leader_id.as_deref(), Some(boo.id.as_str()));
}

#[test]
fn a_custom_endpoint_needs_the_model_named() {
    let machine = Machine::new();
    let engine = machine.open();
    engine.secrets().set_base_url(Provider::Custom, Some("http://127.0.0.1:11434/v1")).unwrap();
    let proposal = engine.block_on(engine.onboarding().proposal()).unwrap();
    assert!(proposal.ready && proposal.needs_model, "{proposal:?}");

    let refused = engine.block_on(engine.onboarding().create_starter_team(StarterTeamInput::default())).unwrap_err();
    assert_eq!(refused.code(), ErrorCode::InvalidInput);
    assert!(engine.teams().list().unwrap().is_empty());

    let input = StarterTeamInput { model: Some("llama3.1".into()), ..Default::default() };
    let team = engine.block_on(engine.onboarding().create_starter_team(input)).unwrap();
    for member in &team.members {
        let agent = engine.agents().get(&member.agent_id).unwrap();
        assert_eq!((agent.provider, agent.model.as_str()), (Some(Provider::Custom), "llama3.1"));
    }
}
