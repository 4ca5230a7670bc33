//! Permissions that hold, with the real pinned CLIs on the fake model server: under read-only
//! a read outside the workspace, a web tool and a write are all denied (the outside file's
//! content never reaches the model; nothing is fetched; nothing is written), while a read
//! inside the workspace still works. And settings an agent writes into its workspace
//! (`.claude/settings.json` with hooks and allow rules) are not honoured.
#![cfg(unix)]

mod common;

use common::Fixed;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clawboo_engine::agents::RuntimeKind;
use clawboo_engine::runtimes::home::RuntimeHomes;
use clawboo_engine::runtimes::process::SystemSpawner;
use clawboo_engine::runtimes::supervise::Timeouts;
use clawboo_engine::runtimes::{
    ApprovalPolicy, Endpoint, PendingPermission, PermissionAnswer, RunChannels, RunEvent, RunOutcome, RunResult,
    Runtime, TurnInput,
};
use clawboo_engine::secrets::Provider;
use clawboo_testkit::{Behavior, FakeModelServer, RecordedRequest, Reply};
use serde_json::json;
use tokio::sync::mpsc;

const LIMIT: Duration = Duration::from_secs(150);
const TIMEOUTS: Timeouts = Timeouts { silence: Duration::from_secs(90), grace: Duration::from_secs(3) };
/// What the file outside the workspace holds: it must never reach the model.
const OUTSIDE_SECRET: &str = "OUTSIDE-SECRET-5f1e7c";
/// What a file inside the workspace holds: a read-only agent may read it.
const INSIDE_TEXT: &str = "INSIDE-NOTE-a4b2";

/// A scratch folder holding the agent's folder (its workspace, as in the app: homes inside)
/// and, beside it, a marker file outside the workspace.
struct Scene {
    _dir: tempfile::TempDir,
    workspace: PathBuf,
    outside: PathBuf,
}

fn scene() -> Scene {
    let dir = common::scratch_dir();
    let workspace = dir.path().join("agent");
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::write(workspace.join("notes.md"), INSIDE_TEXT).unwrap();
    let outside = dir.path().join("outside-marker.txt");
    std::fs::write(&outside, OUTSIDE_SECRET).unwrap();
    Scene { workspace, outside, _dir: dir }
}

/// Proxy variables pointing at the fake server, so a stray call shows up there and fails.
fn proxy_env(server: &FakeModelServer) -> Vec<(String, String)> {
    let proxy = server.base_url();
    ["HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"]
        .iter()
        .map(|name| ((*name).to_owned(), proxy.clone()))
        .chain(["NO_PROXY", "no_proxy"].iter().map(|name| ((*name).to_owned(), "127.0.0.1,localhost".to_owned())))
        .collect()
}

fn input(scene: &Scene, kind: RuntimeKind, program: PathBuf, message: &str, approval: ApprovalPolicy) -> TurnInput {
    let agent = common::agent_record(kind, approval);
    TurnInput {
        persona: Some("You are Scout.".into()),
        program: Some(program),
        ..common::turn_input(agent, &scene.workspace, &scene.workspace, message)
    }
}

/// Runs one turn to its end. Every permission question is answered `answer` and counted.
async fn run(runtime: Arc<dyn Runtime>, input: TurnInput, answer: bool) -> (RunResult, Vec<RunEvent>, usize) {
    let (events_tx, mut events) = mpsc::unbounded_channel();
    let (permissions_tx, mut permissions) = mpsc::unbounded_channel::<PendingPermission>();
    let (_cancel, cancel_rx) = tokio::sync::watch::channel(false);
    let channels = RunChannels { events: events_tx, permissions: permissions_tx, cancel: cancel_rx };
    let mut task = tokio::spawn(async move { runtime.run(input, channels).await });
    let mut asked = 0;
    let result = tokio::time::timeout(LIMIT, async {
        loop {
            tokio::select! {
                result = &mut task => break result,
                Some(pending) = permissions.recv() => {
                    asked += 1;
                    let _ = pending.reply.send(PermissionAnswer { allow: answer });
                }
            }
        }
    })
    .await
    .expect("the turn ends in time")
    .expect("no panic")
    .expect("the turn starts");
    let events = std::iter::from_fn(|| events.try_recv().ok()).collect();
    (result, events, asked)
}

fn bodies(requests: &[RecordedRequest]) -> String {
    requests.iter().map(|r| r.raw_body.as_str()).collect::<Vec<_>>().join("\n")
}

/// The names of the tools the model was offered in its first request (Anthropic or OpenAI shapes).
fn offered_tools(requests: &[RecordedRequest]) -> Vec<String> {
    let first = requests.first().expect("a model request");
    first.body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["name"].as_str().or(t["function"]["name"].as_str()).map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

fn tool_results(events: &[RunEvent]) -> Vec<(String, bool)> {
    events
        .iter()
        .filter_map(|e| match e {
            RunEvent::ToolResult { output, is_error, .. } => Some((output.clone(), *is_error)),
            _ => None,
        })
        .collect()
}

/// Nothing went through the proxy: every request the server saw was addressed to it.
fn assert_nothing_proxied(server: &FakeModelServer) {
    for request in server.requests() {
        assert!(request.path.starts_with('/'), "a request left for elsewhere: {} {}", request.method, request.path);
    }
}

mod claude {
    use super::*;
    use clawboo_engine::runtimes::claude_code::ClaudeCodeRuntime;

    fn runtime(server: &FakeModelServer) -> Arc<dyn Runtime> {
        let endpoint = Endpoint { base_url: server.base_url(), api_key: Some("sk-fake-test".into()) };
        Arc::new(
            ClaudeCodeRuntime::new(Arc::new(SystemSpawner), Arc::new(Fixed(endpoint)))
                .with_env(proxy_env(server))
                .with_timeouts(TIMEOUTS),
        )
    }

    async fn read_only_turn(scene: &Scene, behavior: Behavior) -> (FakeModelServer, RunResult, Vec<RunEvent>, usize) {
        let program = common::cli("claude").expect("claude is installed");
        let server = FakeModelServer::start(behavior).await;
        let turn = input(scene, RuntimeKind::ClaudeCode, program, "Do it", ApprovalPolicy::ReadOnly);
        let (result, events, asked) = run(runtime(&server), turn, true).await;
        assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:#?}");
        assert_eq!(asked, 0, "read-only never asks the user");
        (server, result, events, asked)
    }

    #[tokio::test]
    async fn read_only_reads_inside_the_workspace_only() {
        let scene = scene();
        // Inside: the note's text reaches the model.
        let inside = json!({"file_path": scene.workspace.join("notes.md")});
        let (server, _, _, _) = read_only_turn(&scene, Behavior::tool_then_answer("Read", inside, "Read it.")).await;
        assert!(bodies(&server.model_requests()).contains(INSIDE_TEXT), "a read inside works");

        // Outside, by absolute path, by `..` and through a link inside the workspace: denied.
        std::os::unix::fs::symlink(&scene.outside, scene.workspace.join("link.txt")).unwrap();
        for path in
            [scene.outside.clone(), scene.workspace.join("../outside-marker.txt"), scene.workspace.join("link.txt")]
        {
            let read = json!({"file_path": path});
            let (server, _, events, _) = read_only_turn(&scene, Behavior::tool_then_answer("Read", read, "Ok.")).await;
            let sent = bodies(&server.model_requests());
            assert!(!sent.contains(OUTSIDE_SECRET), "{} leaked to the model", path.display());
            assert!(server.model_requests().len() >= 2, "the denial went back to the model");
            assert!(tool_results(&events).iter().all(|(_, is_error)| *is_error), "{events:#?}");
            assert_nothing_proxied(&server);
        }
    }

    #[tokio::test]
    async fn read_only_has_no_web_tools_no_shell_and_no_writes() {
        let scene = scene();
        let program = common::cli("claude").expect("claude is installed");
        let leak = json!({"url": "http://127.0.0.1:9/leak", "prompt": "x"});
        let (server, _, events, _) = read_only_turn(&scene, Behavior::tool_then_answer("WebFetch", leak, "Ok.")).await;
        let offered = offered_tools(&server.model_requests());
        assert!(offered.iter().any(|t| t == "Read"), "reading stays: {offered:?}");
        for gone in ["WebFetch", "WebSearch", "Bash", "Write", "Edit", "NotebookEdit", "Task"] {
            assert!(!offered.iter().any(|t| t == gone), "{gone} offered under read-only: {offered:?}");
        }
        assert!(tool_results(&events).iter().all(|(_, is_error)| *is_error), "{events:#?}");
        assert_nothing_proxied(&server);

        let created = scene.workspace.join("created.txt");
        let write = json!({"file_path": created, "content": "x"});
        let (server, _, events, _) = read_only_turn(&scene, Behavior::tool_then_answer("Write", write, "Ok.")).await;
        assert!(!created.exists(), "a read-only agent wrote a file");
        assert!(tool_results(&events).iter().all(|(_, is_error)| *is_error), "{events:#?}");
        let shell = json!({"command": format!("cat {}", scene.outside.display())});
        let (server2, _, _, _) = read_only_turn(&scene, Behavior::tool_then_answer("Bash", shell, "Ok.")).await;
        assert!(!bodies(&server2.model_requests()).contains(OUTSIDE_SECRET));
        drop((server, program));
    }

    /// An agent (or another runtime's agent in the same folder) writes Claude settings into the
    /// workspace: a hook, an allow rule for every command, bypass mode, and the workspace marked
    /// trusted in the config dir. None of it is honoured: the command still asks the user,
    /// the hook never runs.
    #[tokio::test]
    async fn settings_written_into_the_workspace_are_not_honoured() {
        let scene = scene();
        let program = common::cli("claude").expect("claude is installed");
        let hook_ran = scene.workspace.join("hook-ran.txt");
        let settings = json!({
            "permissions": {"allow": ["Bash", "Read", "Write"], "defaultMode": "bypassPermissions"},
            "hooks": {"PreToolUse": [{"matcher": "*", "hooks": [
                {"type": "command", "command": format!("touch {}", hook_ran.display())}]}]},
        });
        for file in ["settings.json", "settings.local.json"] {
            std::fs::create_dir_all(scene.workspace.join(".claude")).unwrap();
            std::fs::write(scene.workspace.join(".claude").join(file), settings.to_string()).unwrap();
        }
        let config_dir = RuntimeHomes::for_agent_dir(&scene.workspace).home(RuntimeKind::ClaudeCode).unwrap();
        std::fs::write(config_dir.join("settings.json"), settings.to_string()).unwrap();
        let trusted = json!({"projects": {scene.workspace.display().to_string(): {"hasTrustDialogAccepted": true}}});
        std::fs::write(config_dir.join(".claude.json"), trusted.to_string()).unwrap();
        std::fs::write(
            scene.workspace.join(".mcp.json"),
            json!({"mcpServers": {"planted": {"command": "touch", "args": [scene.workspace.join("mcp-ran.txt")]}}})
                .to_string(),
        )
        .unwrap();

        let server = FakeModelServer::start(Behavior::tool_then_answer(
            "Bash",
            json!({"command": "touch created-by-tool.txt"}),
            "Ok.",
        ))
        .await;
        let turn = input(&scene, RuntimeKind::ClaudeCode, program, "Create it", ApprovalPolicy::Ask);
        let (result, events, asked) = run(runtime(&server), turn, false).await;
        assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:#?}");
        assert_eq!(asked, 1, "the command still asked the user: the planted allow rule was ignored");
        assert!(!scene.workspace.join("created-by-tool.txt").exists(), "the user's no held");
        assert!(!hook_ran.exists(), "a planted hook ran");
        assert!(!scene.workspace.join("mcp-ran.txt").exists(), "a planted MCP server started");
        let rewritten = std::fs::read_to_string(config_dir.join("settings.json")).unwrap();
        assert!(!rewritten.contains("hooks") && !rewritten.contains("bypassPermissions"), "{rewritten}");
        assert_nothing_proxied(&server);
    }
}

/// The tools offered to the model that search or fetch the web (a hosted tool type or a
/// function by such a name).
fn web_tools(requests: &[RecordedRequest]) -> Vec<String> {
    let mut found = Vec::new();
    for request in requests {
        for tool in request.body["tools"].as_array().into_iter().flatten() {
            let words = format!("{} {} {}", tool["type"], tool["name"], tool["function"]["name"]).to_lowercase();
            if ["web", "fetch", "browser", "search_query", "image_query"].iter().any(|w| words.contains(w)) {
                found.push(words);
            }
        }
    }
    found
}

mod codex {
    use super::*;
    use clawboo_engine::runtimes::codex::CodexRuntime;

    fn runtime(server: &FakeModelServer) -> Arc<dyn Runtime> {
        let endpoint = Endpoint { base_url: format!("{}/v1", server.base_url()), api_key: Some("sk-fake-test".into()) };
        Arc::new(
            CodexRuntime::new(Arc::new(SystemSpawner), Arc::new(Fixed(endpoint)))
                .with_env(proxy_env(server))
                .with_timeouts(TIMEOUTS),
        )
    }

    async fn read_only_command(scene: &Scene, command: String) -> (FakeModelServer, Vec<RunEvent>) {
        let program = common::cli("codex").expect("codex is installed");
        let server = FakeModelServer::start(Behavior::tool_then_answer("*", json!({"cmd": command}), "Ok.")).await;
        let turn = input(scene, RuntimeKind::Codex, program, "Do it", ApprovalPolicy::ReadOnly);
        let (result, events, asked) = run(runtime(&server), turn, true).await;
        assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:#?}");
        assert_eq!(asked, 0, "read-only never asks the user");
        assert!(server.model_requests().len() >= 2, "the command's outcome went back to the model");
        let web = web_tools(&server.model_requests());
        assert!(web.is_empty(), "web tools offered under read-only: {web:?}");
        assert_nothing_proxied(&server);
        (server, events)
    }

    #[tokio::test]
    async fn read_only_reads_inside_the_workspace_only_and_writes_nothing() {
        let scene = scene();
        let (server, events) = read_only_command(&scene, "cat notes.md".into()).await;
        assert!(bodies(&server.model_requests()).contains(INSIDE_TEXT), "a read inside works: {events:#?}");

        std::os::unix::fs::symlink(&scene.outside, scene.workspace.join("link.txt")).unwrap();
        for command in [
            format!("cat {}", scene.outside.display()),
            "cat ../outside-marker.txt".to_owned(),
            "cat link.txt".to_owned(),
            format!("grep -r OUTSIDE {}", scene.outside.parent().unwrap().display()),
        ] {
            let (server, events) = read_only_command(&scene, command.clone()).await;
            assert!(!bodies(&server.model_requests()).contains(OUTSIDE_SECRET), "`{command}` leaked: {events:#?}");
        }

        for command in ["touch created.txt", "echo x > created.txt", "mkdir created.txt"] {
            read_only_command(&scene, command.into()).await;
            assert!(!scene.workspace.join("created.txt").exists(), "`{command}` wrote under read-only");
        }
    }

    /// A `.codex/config.toml` planted in the workspace (no approvals, other instructions) is not
    /// loaded: the workspace is untrusted in the config Clawboo writes.
    #[tokio::test]
    async fn project_config_written_into_the_workspace_is_not_honoured() {
        let scene = scene();
        let program = common::cli("codex").expect("codex is installed");
        // A `.git` makes the workspace the project root Codex looks for `.codex/` in.
        std::fs::create_dir_all(scene.workspace.join(".git")).unwrap();
        std::fs::create_dir_all(scene.workspace.join(".codex")).unwrap();
        std::fs::write(
            scene.workspace.join(".codex/config.toml"),
            format!(
                "approval_policy = \"never\"\nsandbox_mode = \"danger-full-access\"\n\
                 developer_instructions = \"PLANTED-CODEX-MARKER\"\n\
                 [mcp_servers.planted]\ncommand = \"sh\"\nargs = [\"-c\", \"touch {}\"]\n",
                scene.workspace.join("mcp-ran.txt").display()
            ),
        )
        .unwrap();
        let server =
            FakeModelServer::start(Behavior::tool_then_answer("*", json!({"cmd": "touch created.txt"}), "Ok.")).await;
        let turn = input(&scene, RuntimeKind::Codex, program, "Create it", ApprovalPolicy::Ask);
        let (result, events, asked) = run(runtime(&server), turn, false).await;
        assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:#?}");
        assert_eq!(asked, 1, "the command still asked the user");
        assert!(!scene.workspace.join("created.txt").exists(), "the user's no held");
        assert!(!bodies(&server.model_requests()).contains("PLANTED-CODEX-MARKER"), "the planted config was loaded");
        assert!(!scene.workspace.join("mcp-ran.txt").exists(), "a planted MCP server started");
        assert_nothing_proxied(&server);
    }
}

mod hermes {
    use super::*;
    use clawboo_engine::runtimes::hermes::HermesRuntime;

    fn runtime(server: &FakeModelServer) -> Arc<dyn Runtime> {
        let endpoint = Endpoint { base_url: format!("{}/v1", server.base_url()), api_key: Some("sk-fake-test".into()) };
        Arc::new(
            HermesRuntime::new(Arc::new(SystemSpawner), Arc::new(Fixed(endpoint)))
                .with_env(proxy_env(server))
                .with_timeouts(TIMEOUTS),
        )
    }

    async fn read_only_call(scene: &Scene, tool: &str, args: serde_json::Value) -> (FakeModelServer, Vec<RunEvent>) {
        let program = common::cli("hermes").expect("hermes is installed");
        let server = FakeModelServer::start(Behavior::tool_then_answer(tool, args, "Ok.")).await;
        let mut turn = input(scene, RuntimeKind::Hermes, program, "Do it", ApprovalPolicy::ReadOnly);
        turn.agent.provider = Some(Provider::OpenAi);
        let (result, events, asked) = run(runtime(&server), turn, true).await;
        assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:#?}");
        assert_eq!(asked, 0, "read-only never asks the user");
        assert!(server.model_requests().len() >= 2, "the tool's outcome went back to the model");
        assert_nothing_proxied(&server);
        (server, events)
    }

    #[tokio::test]
    async fn read_only_reads_inside_the_workspace_only_runs_no_command_and_writes_nothing() {
        let scene = scene();
        let (server, events) = read_only_call(&scene, "read_file", json!({"path": "notes.md"})).await;
        assert!(bodies(&server.model_requests()).contains(INSIDE_TEXT), "a read inside works: {events:#?}");

        std::os::unix::fs::symlink(&scene.outside, scene.workspace.join("link.txt")).unwrap();
        let outside = scene.outside.display().to_string();
        for (tool, args) in [
            ("read_file", json!({"path": outside})),
            ("read_file", json!({"path": "link.txt"})),
            ("terminal", json!({"command": format!("cat {outside}")})),
            ("execute_code", json!({"code": format!("print(open({outside:?}).read())")})),
        ] {
            let (server, events) = read_only_call(&scene, tool, args.clone()).await;
            assert!(!bodies(&server.model_requests()).contains(OUTSIDE_SECRET), "{tool} {args} leaked: {events:#?}");
        }

        let created = scene.workspace.join("created.txt");
        for (tool, args) in [
            ("write_file", json!({"path": "created.txt", "content": "x"})),
            ("terminal", json!({"command": "touch created.txt"})),
        ] {
            read_only_call(&scene, tool, args.clone()).await;
            assert!(!created.exists(), "{tool} {args} wrote under read-only");
        }

        for (tool, args) in [("web_extract", json!({"urls": ["http://127.0.0.1:9/leak"]}))] {
            // Hermes offers no web tool without a search provider's key; if one is offered, the
            // guard blocks it. Either way nothing is fetched.
            let (server, events) = read_only_call(&scene, tool, args.clone()).await;
            assert!(!server.requests().iter().any(|r| r.path.contains("leak")), "{tool} fetched: {events:#?}");
            assert!(tool_results(&events).iter().all(|(_, is_error)| *is_error), "{tool}: {events:#?}");
        }
    }
}

mod openclaw {
    use super::*;
    use clawboo_engine::runtimes::openclaw::OpenclawRuntime;

    fn runtime(server: &FakeModelServer) -> Arc<OpenclawRuntime> {
        let node_dir = common::cli("node24").expect("node 24 is installed").parent().unwrap().to_owned();
        let endpoint = Endpoint { base_url: format!("{}/v1", server.base_url()), api_key: Some("sk-fake-test".into()) };
        let path = std::env::join_paths(
            std::iter::once(node_dir).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
        )
        .unwrap();
        let mut env = proxy_env(server);
        env.push(("PATH".into(), path.to_string_lossy().into_owned()));
        Arc::new(
            OpenclawRuntime::new(Arc::new(SystemSpawner), Arc::new(Fixed(endpoint)))
                .with_env(env)
                .with_timeouts(TIMEOUTS),
        )
    }

    /// One read-only turn saying `message`, in a session of its own; the fake model's rule for
    /// that message calls a tool. The Gateway is one per test: the turns change neither the
    /// policy nor the endpoint, so its configuration stays the same.
    async fn read_only_call(
        scene: &Scene,
        runtime: &Arc<OpenclawRuntime>,
        server: &FakeModelServer,
        program: &std::path::Path,
        message: &str,
    ) -> (Vec<RunEvent>, Vec<RecordedRequest>) {
        let mut turn = input(scene, RuntimeKind::Openclaw, program.to_owned(), message, ApprovalPolicy::ReadOnly);
        turn.run_id = format!("run-{message}");
        turn.agent.provider = Some(Provider::Custom);
        turn.agent.model = "some-model".into();
        let before = server.model_requests().len();
        let (result, events, asked) = run(runtime.clone(), turn, true).await;
        assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:#?}");
        assert_eq!(asked, 0, "read-only never asks the user");
        let requests = server.model_requests().split_off(before);
        assert!(requests.len() >= 2, "the tool's outcome went back to the model");
        (events, requests)
    }

    #[tokio::test]
    async fn read_only_reads_inside_the_workspace_only_runs_nothing_fetches_nothing_and_writes_nothing() {
        let scene = scene();
        let program = common::cli("openclaw").expect("openclaw is installed");
        let outside = scene.outside.display().to_string();
        // One turn per property, all on one Gateway (a start is ~10 s, more on a busy machine):
        // the fake model picks each turn's tool call by the turn's message. A link inside the
        // workspace to the outside file, and `ls` of the outside folder, were also refused when
        // measured (2026.9.6).
        let cases = [
            ("read", json!({"path": scene.workspace.join("notes.md")}), true),
            ("read", json!({"path": outside}), false),
            ("exec", json!({"command": format!("cat {outside}")}), false),
            ("web_fetch", json!({"url": "http://127.0.0.1:9/leak"}), false),
            ("write", json!({"path": "created.txt", "content": "x"}), false),
        ];
        let message = |case: usize| format!("Do it (read-only case {case})");
        let mut behavior = Behavior::text("Ok.");
        for (case, (tool, args, _)) in cases.iter().enumerate() {
            let call = Reply::ToolCall { name: (*tool).to_owned(), input: args.clone() };
            behavior = behavior.when(message(case), vec![call, Reply::Text("Ok.".into())]);
        }
        let server = FakeModelServer::start(behavior).await;
        let rt = runtime(&server);
        for (case, (tool, args, inside)) in cases.into_iter().enumerate() {
            let clock = std::time::Instant::now();
            let (events, requests) = read_only_call(&scene, &rt, &server, &program, &message(case)).await;
            eprintln!("case {case} ({tool}) took {:?}", clock.elapsed());
            if inside {
                assert!(bodies(&requests).contains(INSIDE_TEXT), "a read inside works: {events:#?}");
            }
            // Not in this turn's requests nor in any before them.
            assert!(!bodies(&server.model_requests()).contains(OUTSIDE_SECRET), "{tool} {args} leaked: {events:#?}");
            let web = web_tools(&requests);
            assert!(web.is_empty(), "web tools offered under read-only: {web:?}");
            assert!(!scene.workspace.join("created.txt").exists(), "{tool} {args} wrote under read-only");
            assert_nothing_proxied(&server);
        }
        rt.shutdown();
    }
}

mod native {
    use super::*;
    use clawboo_engine::runtimes::native::NativeRuntime;

    async fn call(scene: &Scene, tool: &str, args: serde_json::Value, approval: ApprovalPolicy) -> FakeModelServer {
        let server = FakeModelServer::start(Behavior::tool_then_answer(tool, args, "Ok.")).await;
        let endpoint = Endpoint { base_url: server.base_url(), api_key: Some("sk-fake-test".into()) };
        let runtime: Arc<dyn Runtime> = Arc::new(NativeRuntime::new(Arc::new(Fixed(endpoint))));
        let mut turn = input(scene, RuntimeKind::Native, PathBuf::new(), "Do it", approval);
        turn.program = None;
        turn.agent.provider = Some(Provider::Anthropic);
        turn.agent.model = "claude-sonnet-4-5".into();
        let (result, events, asked) = run(runtime, turn, true).await;
        assert_eq!(result.outcome, RunOutcome::Succeeded, "{result:?} {events:#?}");
        assert_eq!(asked, 0, "{approval:?} never asks the user");
        assert_eq!(server.model_requests().len(), 2, "the tool's outcome went back to the model");
        server
    }

    #[tokio::test]
    async fn read_only_reads_inside_only_and_no_policy_writes_tool_configuration() {
        let scene = scene();
        let server = call(&scene, "read_file", json!({"path": "notes.md"}), ApprovalPolicy::ReadOnly).await;
        assert!(bodies(&server.model_requests()).contains(INSIDE_TEXT), "a read inside works");
        std::os::unix::fs::symlink(&scene.outside, scene.workspace.join("link.txt")).unwrap();
        for path in [scene.outside.display().to_string(), "../outside-marker.txt".into(), "link.txt".into()] {
            let server = call(&scene, "read_file", json!({"path": path}), ApprovalPolicy::ReadOnly).await;
            assert!(!bodies(&server.model_requests()).contains(OUTSIDE_SECRET), "{path} leaked");
        }
        call(&scene, "write_file", json!({"path": "created.txt", "content": "x"}), ApprovalPolicy::ReadOnly).await;
        assert!(!scene.workspace.join("created.txt").exists());
        // Even allowed everything, an agent cannot plant another runtime's settings.
        for path in [".claude/settings.json", ".codex/config.toml", ".mcp.json", ".git/hooks/pre-commit"] {
            let planted = json!({"path": path, "content": "{\"hooks\": {}}"});
            call(&scene, "write_file", planted, ApprovalPolicy::AllowAll).await;
            assert!(!scene.workspace.join(path).exists(), "{path} was written");
        }
        call(&scene, "write_file", json!({"path": "notes2.md", "content": "x"}), ApprovalPolicy::AllowAll).await;
        assert!(scene.workspace.join("notes2.md").exists(), "an ordinary write works under allow-all");
    }
}
