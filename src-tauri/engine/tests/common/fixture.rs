//! The one engine set-up every engine test starts from: a data folder of its own, the engine
//! opened on it (with built-in or scripted runtimes), and agents and teams made the way the app
//! makes them. Tests differ only in what they pass in: runtimes, a CLI's program, a keychain
//! service, a config tweak.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::runtimes::native::NativeRuntime;
use clawboo_engine::runtimes::{ApprovalPolicy, Endpoint, Runtime};
use clawboo_engine::teams::{NewTeam, Team};
use clawboo_engine::{Engine, EngineConfig};

/// A data folder and how to open engines on it. Open as often as the test restarts the app:
/// every engine sees the same data (and the same keychain service). The folder goes when the
/// fixture is dropped, so keep it alive as long as its engines.
pub struct Fixture {
    folder: tempfile::TempDir,
    keychain_service: Option<String>,
    programs: Vec<(RuntimeKind, PathBuf)>,
    tweak: Option<fn(&mut EngineConfig)>,
}

impl Fixture {
    /// A fresh folder under the system's temp folder.
    pub fn new() -> Self {
        let folder = tempfile::Builder::new().prefix("clawboo-test-").tempdir().expect("create a temp folder");
        Self::in_folder(folder)
    }

    /// A fresh folder outside /tmp, for engines that run real CLIs (Codex refuses to set up its
    /// helpers under /tmp).
    pub fn for_clis() -> Self {
        Self::in_folder(super::scratch_dir())
    }

    /// [`Fixture::for_clis`] running the installed CLIs of `kinds`, and their adapters pointed
    /// at `server` with the fake key `key`. None: one is not installed (the test skips).
    pub fn for_clis_on(
        kinds: &[RuntimeKind],
        server: &clawboo_testkit::FakeModelServer,
        key: &str,
    ) -> Option<(Self, Vec<Arc<dyn Runtime>>)> {
        let mut fixture = Self::for_clis();
        let mut runtimes = Vec::new();
        for &kind in kinds {
            let (runtime, program, _) = super::chat_adapter(kind, server, key)?;
            if let Some(program) = program {
                fixture = fixture.program(kind, Path::new(&program));
            }
            runtimes.push(runtime);
        }
        Some((fixture, runtimes))
    }

    fn in_folder(folder: tempfile::TempDir) -> Self {
        Self { folder, keychain_service: None, programs: Vec::new(), tweak: None }
    }

    /// API keys go under a keychain service no other test uses (`test` names it), for tests that
    /// store keys (run under `scripts/with-test-keyring`).
    pub fn keychain(mut self, test: &str) -> Self {
        self.keychain_service = Some(clawboo_testkit::unique_keychain_service(test));
        self
    }

    /// Every engine opened runs `kind` with this program (a real CLI or a stand-in script).
    pub fn program(mut self, kind: RuntimeKind, program: &Path) -> Self {
        self.programs.push((kind, program.to_owned()));
        self
    }

    /// A change to the config beyond the folder and keychain (shorter server limits, say).
    pub fn tweak(mut self, tweak: fn(&mut EngineConfig)) -> Self {
        self.tweak = Some(tweak);
        self
    }

    /// The fixture's folder: the data folder is `data` in it; the rest is the test's own
    /// (stand-in programs, a user's home, a project).
    pub fn path(&self) -> &Path {
        self.folder.path()
    }

    /// Where the engine keeps its data (created when the engine opens).
    pub fn data_dir(&self) -> PathBuf {
        self.folder.path().join("data")
    }

    /// The config every engine of this fixture opens with.
    pub fn config(&self) -> EngineConfig {
        let mut config = EngineConfig::for_dir(self.data_dir());
        if let Some(service) = &self.keychain_service {
            config.keychain_service = service.clone();
        }
        if let Some(tweak) = self.tweak {
            tweak(&mut config);
        }
        config
    }

    /// The engine with its built-in runtimes, as the app opens it.
    pub fn open(&self) -> Engine {
        self.open_with(Vec::new())
    }

    /// The engine with `runtimes` in place of the built-in ones of the same kind.
    pub fn open_with(&self, runtimes: Vec<Arc<dyn Runtime>>) -> Engine {
        self.try_open_with(runtimes).expect("the engine opens")
    }

    /// Opening, for tests of opening itself (a folder in use, a folder that is not one).
    pub fn try_open_with(&self, runtimes: Vec<Arc<dyn Runtime>>) -> clawboo_engine::Result<Engine> {
        let engine = Engine::open_with(self.config(), runtimes)?;
        for (kind, program) in &self.programs {
            let program = program.display().to_string();
            engine.block_on(engine.runtimes().set_custom_path(*kind, Some(&program))).expect("the program is accepted");
        }
        Ok(engine)
    }
}

impl Default for Fixture {
    fn default() -> Self {
        Self::new()
    }
}

/// An agent as most tests make it: named after its handle, asking before tools, no model or
/// provider. Change what the test needs with `NewAgent { model: …, ..new_agent(…) }`.
pub fn new_agent(handle: &str, runtime: RuntimeKind) -> NewAgent {
    NewAgent {
        name: handle.into(),
        handle: handle.into(),
        description: String::new(),
        tint: "#336699".into(),
        runtime,
        model: String::new(),
        approval_policy: ApprovalPolicy::Ask,
        provider: None,
    }
}

/// Makes the agent; its id.
pub fn add_agent(engine: &Engine, agent: NewAgent) -> String {
    engine.agents().create(agent).expect("the agent is made").id
}

/// A team of `members` (ids) whose leader is left to the default (the first member).
pub fn add_team(engine: &Engine, name: &str, members: &[&String]) -> String {
    let member_ids = members.iter().map(|m| (*m).clone()).collect();
    engine.teams().create(NewTeam { name: name.into(), member_ids, leader_id: None }).expect("the team is made").id
}

/// A team ready for team chat: led by its first member, the user introduced (`about_you`).
pub fn chat_team(engine: &Engine, name: &str, members: &[String], about_you: &str) -> ChatTeam {
    let new = NewTeam { name: name.into(), member_ids: members.to_vec(), leader_id: Some(members[0].clone()) };
    let team = engine.teams().create(new).expect("the team is made");
    engine.teams().set_about_you(&team.id, about_you).expect("About you is set");
    let general = team.rooms.iter().find(|r| r.is_general).expect("a General room").id.clone();
    ChatTeam { general, team }
}

/// A team made by [`chat_team`] and the id of its General room.
pub struct ChatTeam {
    pub team: Team,
    pub general: String,
}

/// Native pointed at the fake model server with the fake key `key` (`base_url` is the server's,
/// with `/v1` for OpenAI-style providers).
pub fn native_runtime(base_url: String, key: &str) -> Arc<NativeRuntime> {
    Arc::new(NativeRuntime::new(Arc::new(super::Fixed(Endpoint { base_url, api_key: Some(key.into()) }))))
}
