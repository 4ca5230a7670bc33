//! `search_threads` on a real engine and SQLite store, with a scripted runtime standing in for
//! the model: called in-process (as Native calls its tools) and over the tools bridge's MCP
//! endpoint with the run's token (as the CLIs do), both served by the one dispatcher. Whose
//! threads are searched comes from the run's token: another agent's one-to-one chat is never
//! returned, nor a room the caller is not in, whatever the query says.

mod common;

use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::chat::RunStatus;
use clawboo_engine::runtimes::{ApprovalPolicy, Capabilities, RunChannels, RunEvent, RunResult, Runtime, TurnInput};
use clawboo_engine::tools::ToolName;
use clawboo_engine::Engine;
use clawboo_testkit::wait_for;
use serde_json::{json, Value};

/// "call <tool> <json>" calls one of Clawboo's tools in-process, "mcp <tool> <json>" through
/// the bridge over HTTP with the run's token; the reply is the tool's output.
struct ScriptedRuntime;

impl Runtime for ScriptedRuntime {
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
            let grant = input.tools.as_ref();
            let reply = if let Some(call) = input.message.strip_prefix("call ") {
                let (name, args) = call.split_once(' ').unwrap_or((call, "{}"));
                let tool = clawboo_engine::tools::specs::parse(name).expect("a known tool");
                let output = (grant.expect("tools").invoker)(tool, serde_json::from_str(args).unwrap()).await;
                format!("{}{}", if output.is_error { "ERROR: " } else { "" }, output.text)
            } else if let Some(call) = input.message.strip_prefix("mcp ") {
                let (name, args) = call.split_once(' ').unwrap_or((call, "{}"));
                let args: Value = serde_json::from_str(args).unwrap();
                let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                    "params": {"name": name, "arguments": args}});
                let response = reqwest::Client::builder()
                    .no_proxy()
                    .build()
                    .unwrap()
                    .post(&grant.expect("tools").url)
                    .header("accept", "application/json, text/event-stream")
                    .header("content-type", "application/json")
                    .header("mcp-protocol-version", "2025-06-18")
                    .body(body.to_string())
                    .send()
                    .await
                    .unwrap();
                let answer: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
                let text = answer["result"]["content"][0]["text"].as_str().unwrap_or_default().to_owned();
                let failed = answer["result"]["isError"] != false;
                format!("{}{text}", if failed { "ERROR: " } else { "" })
            } else {
                "ok".to_owned()
            };
            channels.emit(RunEvent::TextDelta { text: reply });
            Ok(RunResult::succeeded())
        })
    }
}

fn agent(handle: &str) -> NewAgent {
    NewAgent {
        name: handle.to_uppercase(),
        model: "some-model".into(),
        approval_policy: ApprovalPolicy::AllowAll,
        ..common::new_agent(handle, RuntimeKind::Native)
    }
}

/// Sends `text` to `agent_id` and waits; the reply and the id of the message sent.
fn turn(engine: &Engine, agent_id: &str, text: &str) -> (String, String) {
    let run = engine.chat().send(agent_id, text).unwrap().run.expect("a run");
    wait_for("the run to finish", Duration::from_secs(10), || {
        let page = engine.chat().history_page(agent_id, None, 500).unwrap();
        page.runs.iter().any(|r| r.id == run.id && r.status != RunStatus::Running).then_some(())
    });
    let page = engine.chat().history_page(agent_id, None, 500).unwrap();
    let sent = page.messages.iter().rev().find(|m| m.content == text).unwrap().id.clone();
    (page.messages.last().unwrap().content.clone(), sent)
}

#[test]
fn an_agent_finds_its_own_chats_and_rooms_and_never_another_agents_chat() {
    let data = common::Fixture::new();
    let engine = data.open_with(vec![Arc::new(ScriptedRuntime)]);
    let scout = common::add_agent(&engine, agent("scout"));
    let other = common::add_agent(&engine, agent("other"));

    let (_, private) = turn(&engine, &other, "The walrus budget is 40k, keep it quiet");
    let (_, own) = turn(&engine, &scout, "Remember the walrus migration plan");
    // A room Scout is in and one it is not (straight into SQLite, as the team chat stores them).
    let conn = rusqlite::Connection::open(engine.config().database_path()).unwrap();
    conn.busy_timeout(Duration::from_secs(5)).unwrap();
    conn.execute_batch(&format!(
        "INSERT INTO teams (id, name, created_at, updated_at) VALUES ('t', 'Launch', 0, 0);
         INSERT INTO rooms (id, team_id, name, is_general, position, created_at) VALUES
             ('in', 't', 'general', 1, 0, 0), ('out', 't', 'finance', 0, 1, 0);
         INSERT INTO room_members (room_id, agent_id, position) VALUES ('in', '{scout}', 0), ('out', '{other}', 0);
         INSERT INTO room_messages (id, room_id, seq, kind, content, created_at) VALUES
             ('room-in', 'in', 1, 'user', 'Walrus launch moves to Friday', 1),
             ('room-out', 'out', 1, 'user', 'Walrus budget numbers for finance only', 2);"
    ))
    .unwrap();

    for how in ["call", "mcp"] {
        let (reply, _) = turn(&engine, &scout, &format!(r#"{how} search_threads {{"query": "walrus budget"}}"#));
        assert!(!reply.starts_with("ERROR"), "{how}: {reply}");
        assert!(reply.contains(&format!("[msg:{own}]")), "{how}: its own chat: {reply}");
        assert!(reply.contains("[msg:room-in]"), "{how}: its room: {reply}");
        assert!(!reply.contains(&private) && !reply.contains("40k"), "{how}: another agent's chat: {reply}");
        assert!(!reply.contains("room-out") && !reply.contains("finance"), "{how}: a room it is not in: {reply}");
        assert!(reply.chars().count() <= clawboo_engine::history::MAX_THREAD_ANSWER_CHARS);
    }
    // The other agent finds its own words (the same query, its own token).
    let (reply, _) = turn(&engine, &other, r#"call search_threads {"query": "walrus budget", "limit": 10}"#);
    assert!(reply.contains(&format!("[msg:{private}]")) && reply.contains("[msg:room-out]"), "{reply}");
    assert!(!reply.contains(&format!("[msg:{own}]")) && !reply.contains("room-in"), "{reply}");
    // Arguments are checked: no way to name another agent.
    let (reply, _) = turn(&engine, &scout, r#"call search_threads {"query": "walrus", "agent": "other"}"#);
    assert!(reply.starts_with("ERROR") && reply.contains("unknown argument"), "{reply}");
    let (reply, _) = turn(&engine, &scout, r#"call search_threads {"query": "walrus", "limit": 11}"#);
    assert!(reply.starts_with("ERROR"), "{reply}");
}

#[test]
fn a_search_with_nothing_to_find_says_so() {
    let data = common::Fixture::new();
    let engine = data.open_with(vec![Arc::new(ScriptedRuntime)]);
    let scout = common::add_agent(&engine, agent("scout"));
    let (reply, _) = turn(&engine, &scout, r#"call search_threads {"query": "nothing said yet zebra"}"#);
    assert!(reply.starts_with("No message"), "{reply}");
    assert_eq!(clawboo_engine::tools::specs::parse("search_threads"), Some(ToolName::SearchThreads));
}

/// With many chats per agent: an agent finds its words in any of its own chats (not only the
/// one it is in), never in another agent's chats, old or new, and not in a chat it deleted.
#[test]
fn search_threads_covers_every_own_chat_and_no_other_agents_or_deleted_chat() {
    let data = common::Fixture::new();
    let engine = data.open_with(vec![Arc::new(ScriptedRuntime)]);
    let scout = common::add_agent(&engine, agent("scout"));
    let other = common::add_agent(&engine, agent("other"));

    let (_, theirs_old) = turn(&engine, &other, "The narwhal budget is secret");
    let newer = engine.chat().new_chat(&other).unwrap().id;
    engine.chat().send_in(&other, Some(&newer), "/reset").unwrap();
    let (_, own_old) = turn(&engine, &scout, "Narwhal budget draft one");
    let doomed = engine.chat().new_chat(&scout).unwrap().id;
    let doomed_message = engine.chat().send_in(&scout, Some(&doomed), "Narwhal budget in a chat to delete").unwrap();
    wait_for("the run to finish", Duration::from_secs(10), || {
        let page = engine.chat().history_page_in(&scout, Some(&doomed), None, 50).unwrap();
        page.active_run.is_none().then_some(())
    });
    engine.chat().delete_chat(&doomed).unwrap();
    let current = engine.chat().new_chat(&scout).unwrap().id;
    let sent = engine.chat().send_in(&scout, Some(&current), r#"call search_threads {"query": "narwhal budget"}"#);
    let run = sent.unwrap().run.unwrap();
    let reply = wait_for("the search's reply", Duration::from_secs(10), || {
        let page = engine.chat().history_page_in(&scout, Some(&current), None, 50).unwrap();
        page.messages
            .iter()
            .find(|m| m.run_id.as_deref() == Some(&run.id) && m.role != clawboo_engine::chat::ChatRole::User)
            .map(|m| m.content.clone())
    });
    assert!(reply.contains(&format!("[msg:{own_old}]")), "its own older chat: {reply}");
    assert!(!reply.contains(&theirs_old) && !reply.contains("secret"), "another agent's chat: {reply}");
    assert!(!reply.contains(&doomed_message.message.id), "a deleted chat: {reply}");
}
