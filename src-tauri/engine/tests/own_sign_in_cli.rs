//! The user's own CLI sign-in, with the real pinned `claude`, `codex` and `hermes` on the fake
//! model server:
//! a throwaway credentials file in a temporary user home; the request must carry that file's
//! token, the file must still be the same file afterwards (same inode, same bytes), and the
//! agent's homes must hold no copy of it. Skipped when the CLIs are not installed.
//! The adapters and their catalog run on a store of their own, not in a `common::Fixture`
//! engine: the sign-in choice is made on the catalog directly.
#![cfg(unix)]

mod common;

use common::Fixed;

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use clawboo_engine::agents::RuntimeKind;
use clawboo_engine::runtimes::catalog::RuntimeCatalog;
use clawboo_engine::runtimes::claude_code::ClaudeCodeRuntime;
use clawboo_engine::runtimes::codex::CodexRuntime;
use clawboo_engine::runtimes::hermes::HermesRuntime;
use clawboo_engine::runtimes::process::SystemSpawner;
use clawboo_engine::runtimes::signin::{Access, AccessSource, FixedAccess, Resolved, SignInLocator};
use clawboo_engine::runtimes::supervise::Timeouts;
use clawboo_engine::runtimes::{
    ApprovalPolicy, Endpoint, RunChannels, RunEvent, RunOutcome, RunResult, Runtime, TurnInput,
};
use clawboo_engine::store::Store;
use clawboo_engine::ErrorCode;
use clawboo_testkit::{Behavior, FakeModelServer};
use tokio::sync::{mpsc, watch};

const LIMIT: Duration = Duration::from_secs(120);
const TIMEOUTS: Timeouts = Timeouts { silence: Duration::from_secs(60), grace: Duration::from_secs(2) };

const CLAUDE_TOKEN: &str = "sk-ant-oat01-FAKE-OWN-SIGNIN-5d0c1e";
const CLAUDE_REFRESH: &str = "sk-ant-ort01-FAKE-REFRESH-5d0c1e";
/// A ChatGPT-style sign-in: JWTs (unsigned) whose claims carry the account, as `codex login` saves.
const CODEX_ID_TOKEN: &str = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJlbWFpbCI6InVzZXJAZXhhbXBsZS5jb20iLCJleHAiOjQxMDI0NDQ4MDAsImh0dHBzOi8vYXBpLm9wZW5haS5jb20vYXV0aCI6eyJjaGF0Z3B0X3BsYW5fdHlwZSI6InBsdXMiLCJjaGF0Z3B0X2FjY291bnRfaWQiOiJhY2N0LWZha2UtMTIzIiwiY2hhdGdwdF91c2VyX2lkIjoidXNlci1mYWtlIn19.c2ln";
const CODEX_ACCESS_TOKEN: &str = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJleHAiOjQxMDI0NDQ4MDAsImh0dHBzOi8vYXBpLm9wZW5haS5jb20vYXV0aCI6eyJjaGF0Z3B0X3BsYW5fdHlwZSI6InBsdXMiLCJjaGF0Z3B0X2FjY291bnRfaWQiOiJhY2N0LWZha2UtMTIzIiwiY2hhdGdwdF91c2VyX2lkIjoidXNlci1mYWtlIn0sIm1hcmtlciI6IkFDQ0VTUy1GQUtFLTdmM2EifQ.c2ln";
const CODEX_REFRESH: &str = "rt-fake-own-signin-9b1d";
/// A Nous Portal sign-in as `hermes model` saves it: an invoke JWT (unsigned) and a refresh token.
const HERMES_TOKEN: &str = "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJleHAiOjQxMDI0NDQ4MDAsInNjb3BlIjoiaW5mZXJlbmNlOmludm9rZSIsInN1YiI6InVzZXItZmFrZSIsIm1hcmtlciI6Ik5PVVMtQUNDRVNTLUZBS0UtN2YzYSJ9.c2ln";
const HERMES_REFRESH: &str = "nous-rt-fake-own-signin-3c9e";
/// In the user's SSH key: the agent's shell must never read it.
const SSH_KEY: &str = "SECRET-SSH-KEY-own-signin-51f0";
/// In the user's own CLAUDE.md / AGENTS.md / settings: must never reach the model.
const USER_FILES_MARKER: &str = "USER-PRIVATE-CONFIG-MARKER-41c2";

/// An endpoint source that counts the grants it hands to runs (a relay's grant marks a run as
/// relayed; asking whether a key exists is not a grant).
struct Granting {
    endpoint: Endpoint,
    runs: std::sync::Mutex<Vec<String>>,
}

impl Granting {
    fn taken(&self) -> usize {
        self.runs.lock().unwrap().len()
    }
}

impl clawboo_engine::runtimes::EndpointSource for Granting {
    fn endpoint(&self, _provider: clawboo_engine::secrets::Provider, run_id: &str) -> clawboo_engine::Result<Endpoint> {
        if !run_id.is_empty() {
            self.runs.lock().unwrap().push(run_id.to_owned());
        }
        Ok(self.endpoint.clone())
    }
}

/// A temporary user home with a sign-in, an agent folder and a workspace.
struct Setup {
    _dir: tempfile::TempDir,
    user_home: PathBuf,
    agent_dir: PathBuf,
    workspace: PathBuf,
}

fn setup() -> Setup {
    let dir = common::scratch_dir();
    let user_home = dir.path().join("user");
    let agent_dir = dir.path().join("agent");
    let workspace = agent_dir.join("workspace");
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::create_dir_all(&user_home).unwrap();
    Setup { user_home, agent_dir, workspace, _dir: dir }
}

fn write_private(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600)).unwrap();
}

fn claude_sign_in(user_home: &Path) -> PathBuf {
    let file = user_home.join(".claude/.credentials.json");
    let credentials = serde_json::json!({"claudeAiOauth": {
        "accessToken": CLAUDE_TOKEN, "refreshToken": CLAUDE_REFRESH, "expiresAt": 4_102_444_800_000_u64,
        "scopes": ["user:inference", "user:profile", "user:sessions:claude_code"], "subscriptionType": "max"}});
    write_private(&file, &credentials.to_string());
    // The user's other Claude files, which an agent must not get.
    std::fs::write(user_home.join(".claude/CLAUDE.md"), format!("Always say {USER_FILES_MARKER}.")).unwrap();
    let settings = serde_json::json!({"env": {"USER_MARKER": USER_FILES_MARKER}, "model": USER_FILES_MARKER});
    std::fs::write(user_home.join(".claude/settings.json"), settings.to_string()).unwrap();
    file
}

fn codex_sign_in(user_home: &Path) -> PathBuf {
    let file = user_home.join(".codex/auth.json");
    let auth = serde_json::json!({
        "auth_mode": "chatgpt", "OPENAI_API_KEY": null,
        "tokens": {"id_token": CODEX_ID_TOKEN, "access_token": CODEX_ACCESS_TOKEN,
                   "refresh_token": CODEX_REFRESH, "account_id": "acct-fake-123"},
        "last_refresh": "2099-01-01T00:00:00Z"});
    write_private(&file, &serde_json::to_string_pretty(&auth).unwrap());
    std::fs::write(user_home.join(".codex/AGENTS.md"), format!("Always say {USER_FILES_MARKER}.")).unwrap();
    std::fs::write(user_home.join(".codex/config.toml"), format!("model = \"{USER_FILES_MARKER}\"\n")).unwrap();
    file
}

fn hermes_sign_in(user_home: &Path) -> PathBuf {
    let file = user_home.join(".hermes/auth.json");
    let auth = serde_json::json!({
        "version": 1, "active_provider": "nous",
        "providers": {"nous": {
            "portal_base_url": "https://portal.nousresearch.com",
            "inference_base_url": "https://inference-api.nousresearch.com/v1",
            "client_id": "hermes-cli", "scope": "inference:invoke", "token_type": "Bearer",
            "access_token": HERMES_TOKEN, "refresh_token": HERMES_REFRESH,
            "obtained_at": "2026-12-01T00:00:00+00:00", "expires_at": "2100-01-01T00:00:00+00:00",
            "expires_in": 3600, "agent_key": null, "agent_key_expires_at": null}}});
    write_private(&file, &serde_json::to_string_pretty(&auth).unwrap());
    std::fs::write(user_home.join(".hermes/config.yaml"), format!("model: {{default: {USER_FILES_MARKER}}}\n"))
        .unwrap();
    std::fs::write(user_home.join(".hermes/SOUL.md"), format!("Always say {USER_FILES_MARKER}.")).unwrap();
    file
}

fn proxies(server: &FakeModelServer) -> Vec<(String, String)> {
    let base = server.base_url();
    ["HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"]
        .iter()
        .map(|name| ((*name).to_owned(), base.clone()))
        .chain(["NO_PROXY", "no_proxy"].iter().map(|name| ((*name).to_owned(), "127.0.0.1,localhost".to_owned())))
        .collect()
}

fn own_sign_in(user_home: &Path) -> Arc<dyn AccessSource> {
    Arc::new(FixedAccess { choice: None, locator: SignInLocator::for_home(user_home) })
}

fn input(s: &Setup, kind: RuntimeKind, program: PathBuf) -> TurnInput {
    let agent = common::agent_record(kind, ApprovalPolicy::Ask);
    TurnInput {
        persona: Some("You are Scout.".into()),
        program: Some(program),
        ..common::turn_input(agent, &s.workspace, &s.agent_dir, "Hello")
    }
}

async fn run(runtime: Arc<dyn Runtime>, input: TurnInput) -> (RunResult, Vec<RunEvent>) {
    let (events_tx, mut events) = mpsc::unbounded_channel();
    let (permissions_tx, _permissions) = mpsc::unbounded_channel();
    let (_cancel, cancel_rx) = watch::channel(false);
    let channels = RunChannels { events: events_tx, permissions: permissions_tx, cancel: cancel_rx };
    let result = tokio::time::timeout(LIMIT, runtime.run(input, channels)).await.expect("the turn ends in time");
    let events = std::iter::from_fn(|| events.try_recv().ok()).collect();
    (result.expect("the turn starts"), events)
}

fn reply_of(events: &[RunEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            RunEvent::TextDelta { text } | RunEvent::Message { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// Every regular file under `dir` (links are not followed) that contains `needle`.
fn files_containing(dir: &Path, needle: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let meta = std::fs::symlink_metadata(entry.path()).unwrap();
            if meta.is_dir() {
                stack.push(entry.path());
            } else if meta.is_file() {
                let bytes = std::fs::read(entry.path()).unwrap_or_default();
                if bytes.windows(needle.len()).any(|w| w == needle.as_bytes()) {
                    found.push(entry.path());
                }
            }
        }
    }
    found
}

/// Whatever did not go to the fake server directly was a refused tunnel to `host` (no other
/// host was tried, and nothing reached the internet).
fn assert_only_tunnels_to(server: &FakeModelServer, host: &str) {
    for request in server.requests().into_iter().filter(|r| !r.path.starts_with('/')) {
        assert_eq!((request.method.as_str(), request.path.as_str()), ("CONNECT", host));
    }
}

/// The user's credentials file is the same file with the same bytes.
struct Untouched {
    path: PathBuf,
    inode: u64,
    bytes: Vec<u8>,
}

impl Untouched {
    fn note(path: &Path) -> Self {
        Self {
            path: path.to_owned(),
            inode: std::fs::metadata(path).unwrap().ino(),
            bytes: std::fs::read(path).unwrap(),
        }
    }

    fn check(&self) {
        let meta = std::fs::symlink_metadata(&self.path).unwrap();
        assert!(meta.is_file(), "still a regular file");
        assert_eq!(meta.ino(), self.inode, "the user's file was not replaced");
        assert_eq!(std::fs::read(&self.path).unwrap(), self.bytes, "the user's file is unchanged");
    }
}

#[tokio::test]
async fn claude_code_uses_the_users_own_sign_in_where_it_lives() {
    let Some(program) = common::cli("claude") else { return };
    let s = setup();
    let credentials = claude_sign_in(&s.user_home);
    let before = Untouched::note(&credentials);
    let server = FakeModelServer::start(Behavior::text("Signed in.")).await;
    let mut env = proxies(&server);
    // Own sign-in calls Anthropic itself; the test sends it to the fake server instead.
    env.push(("ANTHROPIC_BASE_URL".into(), server.base_url()));
    let endpoint = Endpoint { base_url: server.base_url(), api_key: None };
    let runtime = ClaudeCodeRuntime::new(Arc::new(SystemSpawner), Arc::new(Fixed(endpoint)))
        .with_access(own_sign_in(&s.user_home))
        .with_env(env)
        .with_timeouts(TIMEOUTS);

    let spec = runtime.command(&input(&s, RuntimeKind::ClaudeCode, program.clone())).unwrap();
    assert!(spec.env.iter().all(|(k, v)| k != "ANTHROPIC_API_KEY" && !v.contains(CLAUDE_TOKEN)), "no token in env");
    let (result, events) = run(Arc::new(runtime), input(&s, RuntimeKind::ClaudeCode, program)).await;
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:#?}");
    assert_eq!(reply_of(&events), "Signed in.");

    let requests = server.model_requests();
    assert!(!requests.is_empty());
    for request in &requests {
        assert_eq!(request.header("authorization"), Some(format!("Bearer {CLAUDE_TOKEN}").as_str()));
        assert_eq!(request.header("x-api-key"), None);
        assert!(!request.raw_body.contains(USER_FILES_MARKER), "the user's CLAUDE.md and settings stay out");
    }
    // Signed in, Claude Code also calls api.anthropic.com for the account (not through
    // ANTHROPIC_BASE_URL); here that goes to the fake proxy, which refuses it.
    assert_only_tunnels_to(&server, "api.anthropic.com:443");
    before.check();
    let homes = s.agent_dir.join(".clawboo");
    assert!(files_containing(&homes, CLAUDE_TOKEN).is_empty(), "no copy of the token in the agent's homes");
    assert!(files_containing(&homes, CLAUDE_REFRESH).is_empty());
}

#[tokio::test]
async fn codex_uses_the_users_own_chatgpt_sign_in_through_a_link() {
    let Some(program) = common::cli("codex") else { return };
    let s = setup();
    let auth = codex_sign_in(&s.user_home);
    let before = Untouched::note(&auth);
    let server = FakeModelServer::start(Behavior::text("Signed in.")).await;
    let endpoint = Endpoint { base_url: format!("{}/v1", server.base_url()), api_key: None };
    let runtime = CodexRuntime::new(Arc::new(SystemSpawner), Arc::new(Fixed(endpoint)))
        .with_access(own_sign_in(&s.user_home))
        .with_sign_in_base_url(Some(format!("{}/v1", server.base_url())))
        .with_env(proxies(&server))
        .with_timeouts(TIMEOUTS);

    let (result, events) = run(Arc::new(runtime), input(&s, RuntimeKind::Codex, program)).await;
    let seen: Vec<String> = server.requests().iter().map(|r| format!("{} {}", r.method, r.path)).collect();
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:#?} {seen:?}");
    assert_eq!(reply_of(&events), "Signed in.");

    let requests: Vec<_> = server.model_requests().into_iter().filter(|r| r.method == "POST").collect();
    assert!(!requests.is_empty(), "{:#?}", server.requests());
    for request in &requests {
        assert_eq!(request.header("authorization"), Some(format!("Bearer {CODEX_ACCESS_TOKEN}").as_str()));
        assert_eq!(request.header("chatgpt-account-id"), Some("acct-fake-123"));
        assert!(!request.raw_body.contains(USER_FILES_MARKER), "the user's AGENTS.md and config stay out");
    }
    // Codex also asks the ChatGPT backend for account details; the fake proxy refuses it.
    assert_only_tunnels_to(&server, "chatgpt.com:443");
    before.check();
    let link = s.agent_dir.join(".clawboo").join(RuntimeKind::Codex.as_str()).join("auth.json");
    assert_eq!(std::fs::read_link(&link).unwrap(), auth, "the agent's auth.json is a link to the user's");
    let homes = s.agent_dir.join(".clawboo");
    assert!(files_containing(&homes, CODEX_ACCESS_TOKEN).is_empty(), "no copy of the token in the agent's homes");
    assert!(files_containing(&homes, CODEX_REFRESH).is_empty());
}

/// Hermes on the user's Nous Portal sign-in, in Clawboo's sandbox, allowed everything: the
/// model has its shell read the user's SSH key, the other CLIs' sign-ins and the user's own
/// Hermes settings; none of that reaches it, while the requests carry the user's token.
#[tokio::test]
async fn hermes_uses_the_users_own_sign_in_through_links_and_its_shell_reads_nothing_else() {
    let Some(program) = common::cli("hermes") else { return };
    let s = setup();
    let auth = hermes_sign_in(&s.user_home);
    codex_sign_in(&s.user_home);
    claude_sign_in(&s.user_home);
    write_private(&s.user_home.join(".ssh/id_ed25519"), SSH_KEY);
    let u = s.user_home.display();
    let script = format!(
        "echo INSIDE-OK; cat {u}/.ssh/id_ed25519 {u}/.codex/auth.json {u}/.claude/.credentials.json \
         {u}/.hermes/config.yaml {u}/.hermes/SOUL.md 2>/dev/null; echo SEEN: $(ls -A {u} {u}/.hermes 2>&1); \
         echo SCRIPT-END"
    );
    std::fs::write(s.workspace.join("look.sh"), script).unwrap();
    let server = FakeModelServer::start(Behavior::tool_then_answer(
        "*",
        serde_json::json!({"command": "sh ./look.sh"}),
        "Signed in.",
    ))
    .await;
    // No key for the agent's provider: automatic picks the sign-in.
    let endpoint = Endpoint { base_url: format!("{}/v1", server.base_url()), api_key: None };
    let runtime = HermesRuntime::new(Arc::new(SystemSpawner), Arc::new(Fixed(endpoint)))
        .with_access(own_sign_in(&s.user_home))
        .with_sign_in_base_url(Some(format!("{}/v1", server.base_url())))
        .with_env(proxies(&server))
        .with_timeouts(TIMEOUTS);
    let mut turn = input(&s, RuntimeKind::Hermes, program);
    turn.agent.approval_policy = ApprovalPolicy::AllowAll;
    turn.approval = ApprovalPolicy::AllowAll;
    turn.agent.provider = Some(clawboo_engine::secrets::Provider::OpenAi);
    let spec = runtime.prepare(&turn).unwrap();
    assert!(
        spec.env.iter().all(|(k, v)| k != "CLAWBOO_HERMES_API_KEY" && !v.contains(HERMES_TOKEN)),
        "no key, no token in env"
    );

    let (result, events) = run(Arc::new(runtime), turn).await;
    let seen: Vec<String> = server.requests().iter().map(|r| format!("{} {}", r.method, r.path)).collect();
    assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:#?} {seen:?}");
    assert_eq!(reply_of(&events).trim(), "Signed in.");
    let tool_output: String = events
        .iter()
        .filter_map(|e| match e {
            RunEvent::ToolResult { output, .. } => Some(output.as_str()),
            _ => None,
        })
        .collect();
    assert!(tool_output.contains("INSIDE-OK") && tool_output.contains("SCRIPT-END"), "the command ran: {tool_output}");
    // Of the user's home the shell sees only what Hermes needs: its sign-in and lock.
    assert!(
        tool_output.contains(&format!("SEEN: {u}: .hermes {u}/.hermes: auth.json auth.lock shared")),
        "{tool_output}"
    );

    let requests: Vec<_> = server.model_requests().into_iter().filter(|r| r.method == "POST").collect();
    assert!(!requests.is_empty(), "{seen:?}");
    let model_saw: String = requests.iter().map(|r| r.raw_body.as_str()).collect();
    for request in &requests {
        assert_eq!(request.header("authorization"), Some(format!("Bearer {HERMES_TOKEN}").as_str()));
    }
    for secret in [SSH_KEY, CODEX_ACCESS_TOKEN, CODEX_REFRESH, CLAUDE_TOKEN, CLAUDE_REFRESH, USER_FILES_MARKER] {
        assert!(!model_saw.contains(secret), "{secret} reached the model: {tool_output}");
        assert!(!tool_output.contains(secret), "{secret} reached the agent's shell: {tool_output}");
    }
    // The user's file is still theirs, where it was, with their sign-in (Hermes may add its
    // own bookkeeping to it, as in a terminal); the agent's home has links, no copy.
    let meta = std::fs::symlink_metadata(&auth).unwrap();
    assert!(meta.is_file(), "still a regular file");
    assert!(std::fs::read_to_string(&auth).unwrap().contains(HERMES_REFRESH));
    let hermes_home = s.agent_dir.join(".clawboo").join(RuntimeKind::Hermes.as_str()).join(".hermes");
    assert_eq!(std::fs::read_link(hermes_home.join("auth.json")).unwrap(), auth);
    assert_eq!(std::fs::read_link(hermes_home.join("auth.lock")).unwrap(), s.user_home.join(".hermes/auth.lock"));
    // Hermes' shared Nous store is the user's too.
    assert!(std::fs::read_to_string(s.user_home.join(".hermes/shared/nous_auth.json"))
        .unwrap()
        .contains(HERMES_REFRESH));
    let homes = s.agent_dir.join(".clawboo");
    let copies = files_containing(&homes, HERMES_TOKEN);
    assert!(copies.is_empty(), "no copy of the token in the agent's homes: {copies:?}");
    assert!(files_containing(&homes, HERMES_REFRESH).is_empty());
}

#[tokio::test]
async fn neither_a_key_nor_a_sign_in_fails_before_starting_with_the_fix() {
    let s = setup();
    let endpoint = Endpoint { base_url: "http://127.0.0.1:9".into(), api_key: None };
    let runtime = ClaudeCodeRuntime::new(Arc::new(SystemSpawner), Arc::new(Fixed(endpoint.clone())))
        .with_access(own_sign_in(&s.user_home));
    let err = runtime.command(&input(&s, RuntimeKind::ClaudeCode, PathBuf::from("/nowhere/claude"))).unwrap_err();
    assert_eq!(err.code(), ErrorCode::SignInMissing);
    assert_eq!(
        err.to_string(),
        "Claude Code has no API key in Clawboo and no sign-in was found in ~/.claude/.credentials.json: run `claude` once in a terminal and log in, or add an Anthropic key in Settings > API keys."
    );
    let runtime =
        CodexRuntime::new(Arc::new(SystemSpawner), Arc::new(Fixed(endpoint))).with_access(own_sign_in(&s.user_home));
    let err = runtime.prepare(&input(&s, RuntimeKind::Codex, PathBuf::from("/nowhere/codex"))).err().unwrap();
    assert_eq!(err.code(), ErrorCode::SignInMissing);
    assert!(err.to_string().contains("~/.codex/auth.json"), "{err}");
}

#[tokio::test]
async fn a_stored_key_wins_unless_own_sign_in_is_chosen_and_the_choice_is_kept() {
    let s = setup();
    claude_sign_in(&s.user_home);
    let auth = codex_sign_in(&s.user_home);
    let store = Arc::new(Store::open(&s.agent_dir.join("clawboo.db")).unwrap());
    let catalog = Arc::new(RuntimeCatalog::new(store).with_sign_in_locator(SignInLocator::for_home(&s.user_home)));
    let endpoint = Endpoint { base_url: "http://127.0.0.1:9".into(), api_key: Some("sk-fake-key".into()) };
    let grants = Arc::new(Granting { endpoint, runs: Default::default() });
    let claude = ClaudeCodeRuntime::new(Arc::new(SystemSpawner), grants.clone()).with_access(catalog.clone());
    let codex = CodexRuntime::new(Arc::new(SystemSpawner), grants.clone()).with_access(catalog.clone());
    // A `claude` that only answers `--help` (the command is built, never run).
    let claude_program = s.agent_dir.join("claude");
    std::fs::write(&claude_program, "#!/bin/sh\necho '  --output-format <format>  Output format'\n").unwrap();
    std::fs::set_permissions(&claude_program, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let claude_input = input(&s, RuntimeKind::ClaudeCode, claude_program);
    let codex_input = input(&s, RuntimeKind::Codex, PathBuf::from("/nowhere/codex"));
    let codex_link = s.agent_dir.join(".clawboo").join(RuntimeKind::Codex.as_str()).join("auth.json");
    let var = |env: &[(String, String)], name: &str| env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());

    // Automatic: the key, because one is stored.
    assert_eq!(catalog.access_choice(RuntimeKind::ClaudeCode).unwrap(), None);
    let env = claude.command(&claude_input).unwrap().env;
    assert_eq!(var(&env, "ANTHROPIC_API_KEY").as_deref(), Some("sk-fake-key"));
    assert_eq!(var(&env, "CLAUDE_SECURESTORAGE_CONFIG_DIR"), None);

    assert_eq!(grants.taken(), 1, "the key's run was granted an endpoint");

    // Own sign-in chosen: no key anywhere, the credentials where they are, and no grant asked
    // for (a grant would count the run as relayed and its tokens would not be on the
    // subscription).
    catalog.set_access(RuntimeKind::ClaudeCode, Some(Access::OwnSignIn)).unwrap();
    catalog.set_access(RuntimeKind::Codex, Some(Access::OwnSignIn)).unwrap();
    let env = claude.command(&claude_input).unwrap().env;
    assert_eq!(var(&env, "ANTHROPIC_API_KEY"), None);
    assert_eq!(var(&env, "ANTHROPIC_BASE_URL"), None, "its own endpoint, not the one for keys");
    assert_eq!(var(&env, "CLAUDE_SECURESTORAGE_CONFIG_DIR"), Some(s.user_home.join(".claude").display().to_string()));
    let (spec, _) = codex.prepare(&codex_input).unwrap();
    assert!(spec.env.iter().all(|(_, v)| v != "sk-fake-key"), "no key in Codex's environment");
    assert_eq!(std::fs::read_link(&codex_link).unwrap(), auth);
    assert_eq!(grants.taken(), 1, "no grant for a run on the user's own sign-in");

    // Back to the key: the link goes, the user's file stays.
    catalog.set_access(RuntimeKind::Codex, Some(Access::ApiKey)).unwrap();
    codex.prepare(&codex_input).unwrap();
    assert!(std::fs::symlink_metadata(&codex_link).is_err(), "no link left in the agent's home");
    assert!(auth.is_file());
    assert!(matches!(catalog.resolve(RuntimeKind::Codex, true), Ok(Resolved::ApiKey)));

    // Native and OpenClaw have no choice; OpenClaw's refusal says why and what to do instead.
    let err = catalog.set_access(RuntimeKind::Openclaw, Some(Access::OwnSignIn)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    assert!(err.to_string().contains("your own Gateway"), "{err}");
    assert_eq!(catalog.set_access(RuntimeKind::Native, None).unwrap_err().code(), ErrorCode::InvalidInput);
}

/// Hermes: a key for the agent's provider wins when automatic, the sign-in when chosen (linked,
/// no key in the environment), and back to the key the links go.
#[tokio::test]
async fn hermes_chooses_like_the_others_and_its_links_follow_the_choice() {
    let s = setup();
    let auth = hermes_sign_in(&s.user_home);
    let store = Arc::new(Store::open(&s.agent_dir.join("clawboo.db")).unwrap());
    let catalog = Arc::new(RuntimeCatalog::new(store).with_sign_in_locator(SignInLocator::for_home(&s.user_home)));
    let endpoint = Endpoint { base_url: "http://127.0.0.1:9/v1".into(), api_key: Some("sk-fake-key".into()) };
    let hermes = HermesRuntime::new(Arc::new(SystemSpawner), Arc::new(Fixed(endpoint))).with_access(catalog.clone());
    let mut turn = input(&s, RuntimeKind::Hermes, PathBuf::from("/nowhere/hermes"));
    turn.agent.provider = Some(clawboo_engine::secrets::Provider::OpenAi);
    let hermes_home = s.agent_dir.join(".clawboo").join(RuntimeKind::Hermes.as_str()).join(".hermes");
    let has_key =
        |env: &[(String, String)]| env.iter().any(|(k, v)| k == "CLAWBOO_HERMES_API_KEY" && v == "sk-fake-key");

    assert!(has_key(&hermes.prepare(&turn).unwrap().env), "automatic: the stored key");
    assert!(std::fs::symlink_metadata(hermes_home.join("auth.json")).is_err());

    catalog.set_access(RuntimeKind::Hermes, Some(Access::OwnSignIn)).unwrap();
    let spec = hermes.prepare(&turn).unwrap();
    assert!(spec.env.iter().all(|(_, v)| v != "sk-fake-key"), "no key in Hermes' environment");
    assert_eq!(std::fs::read_link(hermes_home.join("auth.json")).unwrap(), auth);
    let config = std::fs::read_to_string(hermes_home.join("config.yaml")).unwrap();
    assert!(
        !config.contains("provider") && !config.contains("base_url"),
        "Hermes takes its signed-in provider: {config}"
    );

    catalog.set_access(RuntimeKind::Hermes, Some(Access::ApiKey)).unwrap();
    assert!(has_key(&hermes.prepare(&turn).unwrap().env));
    assert!(std::fs::symlink_metadata(hermes_home.join("auth.json")).is_err(), "no link left");
    assert!(std::fs::symlink_metadata(hermes_home.join("auth.lock")).is_err(), "no link left");
    assert!(auth.is_file(), "the user's file stays");

    // No key and no sign-in: the fix, before anything starts.
    catalog.set_access(RuntimeKind::Hermes, None).unwrap();
    std::fs::remove_file(&auth).unwrap();
    let keyless = HermesRuntime::new(
        Arc::new(SystemSpawner),
        Arc::new(Fixed(Endpoint { base_url: "http://127.0.0.1:9/v1".into(), api_key: None })),
    )
    .with_access(catalog.clone());
    let err = keyless.prepare(&turn).unwrap_err();
    assert_eq!(err.code(), ErrorCode::SignInMissing);
    assert!(err.to_string().contains("~/.hermes/auth.json") && err.to_string().contains("`hermes model`"), "{err}");
}
