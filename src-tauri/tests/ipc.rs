//! Real commands through Tauri's IPC layer (mock runtime, no display): what the UI receives,
//! including the error shape `{ code, message }`.

// The engine tests' shared set-up: a data folder and the engine opened on it as the app opens it.
#[path = "../engine/tests/common/mod.rs"]
mod common;

use clawboo_engine::{Engine, EngineConfig};
use clawboo_lib::{specta_builder, AppState};
use common::Fixture;
use serde_json::{json, Value};
use tauri::test::{get_ipc_response, mock_builder, mock_context, noop_assets, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::{Manager, WebviewWindowBuilder};

fn app_with(state: AppState) -> (tauri::App<tauri::test::MockRuntime>, tauri::WebviewWindow<tauri::test::MockRuntime>) {
    let builder = specta_builder::<tauri::test::MockRuntime>();
    let app = mock_builder().invoke_handler(builder.invoke_handler()).build(mock_context(noop_assets())).unwrap();
    app.manage(state);
    let window = WebviewWindowBuilder::new(&app, "main", Default::default()).build().unwrap();
    (app, window)
}

fn invoke(window: &tauri::WebviewWindow<tauri::test::MockRuntime>, cmd: &str, args: Value) -> Result<Value, Value> {
    get_ipc_response(
        window,
        InvokeRequest {
            cmd: cmd.into(),
            callback: tauri::ipc::CallbackFn(0),
            error: tauri::ipc::CallbackFn(1),
            url: "tauri://localhost".parse().unwrap(),
            body: tauri::ipc::InvokeBody::Json(args),
            headers: Default::default(),
            invoke_key: INVOKE_KEY.to_string(),
        },
    )
    .map(|body| body.deserialize::<Value>().unwrap())
}

#[test]
fn agents_and_files_through_ipc() {
    let fixture = Fixture::new();
    let (_app, window) = app_with(AppState::new(fixture.try_open_with(Vec::new())));

    let agent = invoke(
        &window,
        "create_agent",
        json!({"input": {"name": "Scout", "handle": "scout", "description": "", "tint": "#112233",
                          "runtime": "claude-code", "model": "", "approvalPolicy": "ask", "provider": null}}),
    )
    .unwrap();
    assert_eq!(agent["handle"], "scout");
    assert_eq!(agent["runtime"], "claude-code");
    let id = agent["id"].as_str().unwrap();

    let saved =
        invoke(&window, "write_agent_file", json!({"agentId": id, "name": "SOUL.md", "content": "hi"})).unwrap();
    assert_eq!(saved["name"], "SOUL.md");
    assert_eq!(std::fs::read_to_string(fixture.data_dir().join(format!("agents/{id}/SOUL.md"))).unwrap(), "hi");

    let forbidden = invoke(&window, "read_agent_file", json!({"agentId": id, "name": "../clawboo.db"})).unwrap_err();
    assert_eq!(forbidden["code"], "forbidden_file_name");
    assert!(forbidden["message"].as_str().unwrap().contains("../clawboo.db"));

    let duplicate = invoke(
        &window,
        "create_agent",
        json!({"input": {"name": "Again", "handle": "SCOUT", "description": "", "tint": "#112233",
                          "runtime": "codex", "model": "", "approvalPolicy": "ask", "provider": null}}),
    )
    .unwrap_err();
    assert_eq!(duplicate["code"], "duplicate_handle");
}

#[test]
fn an_engine_that_did_not_start_answers_every_command_with_its_reason() {
    let fixture = Fixture::new();
    let blocker = fixture.path().join("file-not-folder");
    std::fs::write(&blocker, "x").unwrap();
    let (_app, window) = app_with(AppState::new(Engine::open(EngineConfig::for_dir(blocker))));
    for cmd in ["list_agents", "app_info", "list_providers"] {
        let err = invoke(&window, cmd, json!({})).unwrap_err();
        assert_eq!(err["code"], "engine_unavailable", "{cmd}");
        assert!(err["message"].as_str().unwrap().contains("file-not-folder"), "{cmd}: {err}");
    }
}

#[test]
fn commands_sent_while_the_engine_opens_wait_for_it() {
    let fixture = Fixture::new();
    let (state, opening) = AppState::opening();
    let (_app, window) = app_with(state);
    let engine = fixture.try_open_with(Vec::new()).map(std::sync::Arc::new);
    // The engine arrives after the command was sent, as when the page loads faster than it opens.
    let opener = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(300));
        opening.finish(engine);
    });
    let agents = invoke(&window, "list_agents", json!({})).unwrap();
    assert!(agents.is_array(), "{agents}");
    opener.join().unwrap();
    let info = invoke(&window, "app_info", json!({})).unwrap();
    assert!(info["dataDir"].as_str().unwrap().ends_with("data"), "{info}");
}

#[test]
fn an_opening_that_stops_midway_answers_every_command_with_engine_unavailable() {
    let (state, opening) = AppState::opening();
    let (_app, window) = app_with(state);
    // The opener went away without handing over an engine (its thread panicked).
    drop(opening);
    for cmd in ["list_agents", "app_info"] {
        let err = invoke(&window, cmd, json!({})).unwrap_err();
        assert_eq!(err["code"], "engine_unavailable", "{cmd}");
    }
}

#[test]
fn an_openclaw_agents_gateway_through_ipc_shows_no_token() {
    let fixture = Fixture::new();
    let (_app, window) = app_with(AppState::new(fixture.try_open_with(Vec::new())));
    let agent = invoke(
        &window,
        "create_agent",
        json!({"input": {"name": "Claw", "handle": "claw", "description": "", "tint": "#112233",
                          "runtime": "openclaw", "model": "", "approvalPolicy": "ask", "provider": null}}),
    )
    .unwrap();
    assert_eq!(agent["openclawGatewayUrl"], Value::Null);
    let id = agent["id"].as_str().unwrap();
    let status = invoke(&window, "get_openclaw_gateway", json!({"agentId": id})).unwrap();
    assert_eq!(status, json!({"url": null, "tokenSet": false}));

    let refused = invoke(
        &window,
        "set_openclaw_gateway",
        json!({"agentId": id, "input": {"url": "ws://203.0.113.7:18789", "token": "tok-secretish"}}),
    )
    .unwrap_err();
    assert_eq!(refused["code"], "invalid_input");
    assert!(refused["message"].as_str().unwrap().contains("wss://"));
    assert!(!refused.to_string().contains("tok-secretish"));
}

#[test]
fn memory_through_ipc_the_user_is_the_author_and_refusals_keep_their_code() {
    let fixture = Fixture::new();
    let (_app, window) = app_with(AppState::new(fixture.try_open_with(Vec::new())));

    let saved = invoke(
        &window,
        "memory_save",
        json!({"input": {"text": "Deploys go out on Mondays.", "scope": {"kind": "global"}, "tags": ["release"]}}),
    )
    .unwrap();
    assert_eq!(saved["existing"], false);
    assert_eq!(saved["fact"]["author"], json!({"kind": "user"}));
    let id = saved["fact"]["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("m-"), "{id}");

    let secret = invoke(
        &window,
        "memory_save",
        json!({"input": {"text": "key sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789", "scope": {"kind": "global"}}}),
    )
    .unwrap_err();
    assert_eq!(secret["code"], "invalid_input");
    assert!(!secret.to_string().contains("abcdefghijklmnop"), "the refusal repeats the secret: {secret}");

    let edited =
        invoke(&window, "memory_edit", json!({"id": id, "edit": {"text": "Deploys go out on Fridays.", "tags": null}}))
            .unwrap();
    assert_eq!(edited["version"], 2);
    invoke(&window, "memory_delete", json!({"id": id})).unwrap();
    let live = invoke(
        &window,
        "memory_list",
        json!({"filter": {"query": null, "scope": null, "author": "user", "includeDeleted": false, "limit": null}}),
    )
    .unwrap();
    assert_eq!(live, json!([]));
    let restored = invoke(&window, "memory_restore", json!({"id": id})).unwrap();
    assert_eq!(restored["deleted"], false);

    let detail = invoke(&window, "memory_detail", json!({"id": id})).unwrap();
    let changes: Vec<&str> =
        detail["versions"].as_array().unwrap().iter().map(|v| v["change"].as_str().unwrap()).collect();
    assert_eq!(changes, ["created", "edited", "deleted", "restored"]);
    assert_eq!(detail["versions"][1]["by"], json!({"kind": "user"}));

    let found = invoke(&window, "memory_search", json!({"query": "Fridays"})).unwrap();
    assert_eq!(found["top"][0]["fact"]["id"], id.as_str());

    let unknown = invoke(&window, "memory_detail", json!({"id": "m-0000"})).unwrap_err();
    assert_eq!(unknown["code"], "not_found");

    let note =
        invoke(&window, "scratch_add", json!({"scope": {"kind": "global"}, "text": "Quiet hours after 6pm."})).unwrap();
    let all = invoke(&window, "scratch_all", json!({})).unwrap();
    assert_eq!(all[0]["id"], note["id"]);
    let session = invoke(
        &window,
        "scratch_add",
        json!({"scope": {"kind": "session", "conversation_id": "c-1"}, "text": "Mine."}),
    )
    .unwrap_err();
    assert_eq!(session["code"], "invalid_input");
    assert_eq!(invoke(&window, "promotions", json!({})).unwrap(), json!([]));
    let undecidable = invoke(&window, "decide_promotion", json!({"id": "p-missing", "approve": true})).unwrap_err();
    assert_eq!(undecidable["code"], "not_found");
}

#[test]
fn the_board_through_ipc_null_clears_a_field_and_refusals_keep_their_code() {
    let fixture = Fixture::new();
    let (_app, window) = app_with(AppState::new(fixture.try_open_with(Vec::new())));

    let card = invoke(
        &window,
        "board_create",
        json!({"card": {"title": "Ship the beta", "assigneeId": null, "teamId": null, "status": null,
                        "priority": "high", "checkCommand": "npm test", "projectFolder": null}}),
    )
    .unwrap();
    assert_eq!(
        (card["number"].as_u64(), &card["status"], &card["priority"]),
        (Some(1), &json!("todo"), &json!("high"))
    );
    let id = card["id"].as_str().unwrap().to_string();

    // A field left out stays; `null` clears it.
    let edit = |edit: Value| invoke(&window, "board_edit", json!({"id": id, "edit": edit})).unwrap();
    let kept = edit(json!({"title": "Ship the beta!", "description": null, "priority": null, "dependsOn": null}));
    assert_eq!((&kept["title"], &kept["checkCommand"]), (&json!("Ship the beta!"), &json!("npm test")));
    let cleared =
        edit(json!({"title": null, "description": null, "priority": null, "dependsOn": null, "checkCommand": null}));
    assert_eq!(cleared["checkCommand"], Value::Null);

    let refused = invoke(&window, "board_move", json!({"id": id, "to": "done", "reason": null, "position": null}));
    let refused = refused.unwrap_err();
    assert_eq!(refused["code"], "invalid_input");
    assert!(refused["message"].as_str().unwrap().contains("To do"), "{refused}");
    let blocked = invoke(
        &window,
        "board_move",
        json!({"id": id, "to": "blocked", "reason": "Waiting on design", "position": null}),
    )
    .unwrap();
    assert_eq!(blocked["blockedReason"], "Waiting on design");

    invoke(&window, "board_comment", json!({"id": id, "text": "Design is late."})).unwrap();
    let detail = invoke(&window, "board_card", json!({"id": id})).unwrap();
    assert_eq!(detail["comments"][0]["author"], json!({"kind": "user"}));
    assert_eq!(invoke(&window, "board_runs", json!({"id": id})).unwrap(), json!([]));
    let listed =
        invoke(&window, "board_list", json!({"filter": {"teamId": null, "assigneeId": null, "status": "blocked"}}));
    assert_eq!(listed.unwrap().as_array().unwrap().len(), 1);
    invoke(&window, "board_delete", json!({"id": id})).unwrap();
    assert_eq!(invoke(&window, "board_card", json!({"id": id})).unwrap_err()["code"], "not_found");
}

#[test]
fn attention_through_ipc_counts_lists_refuses_the_wrong_answer_and_keeps_its_audit() {
    let fixture = Fixture::new();
    let (app, window) = app_with(AppState::new(fixture.try_open_with(Vec::new())));
    app.manage(clawboo_lib::tray::TrayWatch::default());
    let agent = invoke(
        &window,
        "create_agent",
        json!({"input": {"name": "Ada", "handle": "ada", "description": "", "tint": "#123456",
                         "runtime": "native", "model": "m", "approvalPolicy": "ask", "provider": null}}),
    )
    .unwrap();
    let agent_id = agent["id"].as_str().unwrap().to_string();
    let engine = app.state::<AppState>().engine_if_open().expect("opened");
    let source = clawboo_engine::attention::Source { agent_id: agent_id.clone(), ..Default::default() };
    let asked = engine.attention().raise_question(&source, "Which region should we ship to first?").unwrap();

    let tray = invoke(&window, "tray_state", json!({})).unwrap();
    assert_eq!((tray["open"].as_u64(), tray["questions"].as_u64()), (Some(1), Some(1)));
    assert_eq!(tray["tooltip"], "Clawboo: 1 request needs you");
    assert_eq!(tray["newest"][0]["requestId"], json!(asked.id));
    assert_eq!(tray["newest"][0]["label"], "Ada asks: Which region should we ship to first?");
    let open = invoke(&window, "attention_open", json!({})).unwrap();
    assert_eq!(
        (&open[0]["kind"], &open[0]["origin"], &open[0]["agentName"]),
        (&json!("question"), &json!("chat"), &json!("Ada"))
    );

    let wrong = invoke(
        &window,
        "attention_answer",
        json!({"id": asked.id, "answer": {"type": "decision", "decision": "allow_always"}}),
    )
    .unwrap_err();
    assert_eq!(wrong["code"], "invalid_input", "{wrong}");
    let empty = invoke(&window, "attention_answer", json!({"id": asked.id, "answer": {"type": "text", "text": "  "}}));
    assert_eq!(empty.unwrap_err()["code"], "invalid_input");
    assert_eq!(invoke(&window, "tray_state", json!({})).unwrap()["open"], 1, "a refused answer changes nothing");

    let refused = invoke(&window, "attention_set_settings", json!({"settings": {"approvalExpiryHours": 0}}));
    assert_eq!(refused.unwrap_err()["code"], "invalid_input");
    let set = invoke(&window, "attention_set_settings", json!({"settings": {"approvalExpiryHours": 48}})).unwrap();
    assert_eq!(set["approvalExpiryHours"], 48);
    assert_eq!(invoke(&window, "attention_settings", json!({})).unwrap()["approvalExpiryHours"], 48);
    assert_eq!(invoke(&window, "attention_grants", json!({})).unwrap(), json!([]));
    let unknown = invoke(&window, "attention_revoke_grant", json!({"id": "g-none"})).unwrap_err();
    assert_eq!(unknown["code"], "not_found");

    let audit =
        invoke(&window, "attention_audit", json!({"requestId": asked.id, "before": null, "limit": 10})).unwrap();
    assert_eq!((&audit[0]["actor"], &audit[0]["action"]), (&json!("@ada"), &json!("raised")));
    invoke(&window, "attention_viewing", json!({"viewing": {"kind": "team", "teamId": "t-1"}})).unwrap();
    invoke(&window, "attention_viewing", json!({"viewing": null})).unwrap();
    let gone = invoke(&window, "answer_permission", json!({"runId": "no-run", "requestId": "p1", "decision": "deny"}))
        .unwrap_err();
    assert_eq!(gone["code"], "not_found");

    // History pages by a cursor: two more at once, three pages of one, none skipped or repeated.
    let more: Vec<String> =
        ["Second?", "Third?"].iter().map(|q| engine.attention().raise_question(&source, q).unwrap().id).collect();
    let mut seen = Vec::new();
    let mut before = Value::Null;
    loop {
        let page = invoke(&window, "attention_history", json!({"before": before, "limit": 1})).unwrap();
        let Some(last) = page.as_array().unwrap().last() else { break };
        seen.push(last["id"].as_str().unwrap().to_string());
        before = last["id"].clone();
    }
    assert_eq!(seen, vec![more[1].clone(), more[0].clone(), asked.id.clone()], "newest first, each once");
}

#[test]
fn boo_zero_through_ipc_its_rules_and_the_global_brief() {
    let fixture = Fixture::new();
    let (_app, window) = app_with(AppState::new(fixture.try_open_with(Vec::new())));
    let info = invoke(&window, "boo_zero", json!({})).unwrap();
    let id = info["agentId"].as_str().unwrap().to_owned();
    assert_eq!(info["rulesAreDefault"], true);
    let agents = invoke(&window, "list_agents", json!({})).unwrap();
    assert!(agents.as_array().unwrap().iter().any(|a| a["id"] == id.as_str() && a["name"] == "Boo Zero"));

    let info = invoke(&window, "set_boo_zero_rules", json!({"text": "Be brief."})).unwrap();
    assert_eq!((info["rules"].as_str(), info["rulesAreDefault"].as_bool()), (Some("Be brief."), Some(false)));
    let info = invoke(&window, "set_boo_zero_rules", json!({"text": null})).unwrap();
    assert_eq!(info["rulesAreDefault"], true);
    let info = invoke(&window, "set_global_brief", json!({"text": "My year."})).unwrap();
    assert_eq!(info["globalBrief"], "My year.");

    let refused = invoke(&window, "delete_agent", json!({"id": id})).unwrap_err();
    assert_eq!(refused["code"], "conflict");
}
