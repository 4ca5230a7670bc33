//! The relay wired into the engine, with the real OS keychain (run under
//! scripts/with-test-keyring on Linux): a Native chat reaches the model through the relay with
//! the key from the keychain, the run's request is recorded under the run, its token ends with
//! the run, and deleting the agent deletes the records.

mod common;

use std::time::Duration;

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::chat::RunStatus;
use clawboo_engine::secrets::Provider;
use clawboo_testkit::{wait_for, Behavior, FakeModelServer};
use common::Fixture;

#[test]
fn a_native_chat_goes_through_the_relay_with_the_keychains_key_and_is_recorded() {
    let server = FakeModelServer::start_blocking(Behavior::text("Relayed."));
    let fixture = Fixture::new().keychain("relay-engine");
    let engine = fixture.open();
    let key = "sk-ant-keychain-only-3c9e1f";
    engine.secrets().set_api_key(Provider::Anthropic, key).unwrap();
    engine.secrets().set_base_url(Provider::Anthropic, Some(&server.base_url())).unwrap();
    let agent = NewAgent {
        name: "Relay".into(),
        model: "some-model".into(),
        provider: Some(Provider::Anthropic),
        ..common::new_agent("relay", RuntimeKind::Native)
    };
    let agent_id = common::add_agent(&engine, agent);

    let run = engine.chat().send(&agent_id, "Hello").unwrap().run.unwrap();
    let done = wait_for("the run to end", Duration::from_secs(30), || {
        let run = engine.chat().run(&run.id).unwrap();
        (run.status != RunStatus::Running).then_some(run)
    });
    assert_eq!(done.status, RunStatus::Succeeded, "{:?}", done.error);
    assert!(!engine.relay().has_grant(&run.id), "the run's token ended with the run");

    let seen = &server.model_requests()[0];
    assert_eq!(seen.header("x-api-key"), Some(key), "the relay added the keychain's key");
    let records = wait_for("the relay's record", Duration::from_secs(10), || {
        let records = engine.relay().requests(&run.id).unwrap();
        (!records.is_empty()).then_some(records)
    });
    assert_eq!(records[0].body.as_deref(), Some(seen.raw_body.as_str()));
    assert!(records[0].usage.as_ref().is_some_and(|u| u.input_tokens.is_some()));

    // An OpenClaw Gateway of this agent would hold a lasting token: it goes with the agent.
    engine.relay().grant_lasting(&agent_id, "gateway-run", Provider::Anthropic).unwrap();
    assert!(engine.relay().has_lasting_grant(&agent_id));
    engine.delete_agent(&agent_id).unwrap();
    assert!(engine.relay().requests(&run.id).unwrap().is_empty(), "records go with the agent's runs");
    assert!(!engine.relay().has_lasting_grant(&agent_id), "the Gateway's token went with the agent");
    engine.secrets().delete_api_key(Provider::Anthropic).unwrap();
}

#[test]
fn a_brief_model_failure_is_retried_once_by_native_not_again_by_the_relay_and_said_in_the_activity() {
    let server = FakeModelServer::start_blocking(Behavior::text("Answered after a retry."));
    let fixture = Fixture::new().keychain("relay-engine-retry");
    let engine = fixture.open();
    engine.secrets().set_api_key(Provider::Anthropic, "sk-ant-retry-7d1e").unwrap();
    engine.secrets().set_base_url(Provider::Anthropic, Some(&server.base_url())).unwrap();
    let agent = NewAgent {
        name: "Retry".into(),
        model: "some-model".into(),
        provider: Some(Provider::Anthropic),
        ..common::new_agent("retry", RuntimeKind::Native)
    };
    let agent_id = common::add_agent(&engine, agent);

    server.fail_next(1);
    let run = engine.chat().send(&agent_id, "Hello").unwrap().run.unwrap();
    let done = wait_for("the run to end", Duration::from_secs(30), || {
        let run = engine.chat().run(&run.id).unwrap();
        (run.status != RunStatus::Running).then_some(run)
    });
    assert_eq!(done.status, RunStatus::Succeeded, "{:?}", done.error);
    assert_eq!(server.model_requests().len(), 2, "the 503 was sent again once, by Native alone");
    let said: Vec<String> = engine
        .chat()
        .run_activity(&run.id)
        .unwrap()
        .into_iter()
        .filter_map(|r| match r.event {
            clawboo_engine::runtimes::RunEvent::Warning { message } => Some(message),
            _ => None,
        })
        .collect();
    assert_eq!(said.len(), 1, "{said:?}");
    assert!(said[0].contains("HTTP 503") && said[0].contains("Trying again in 1 s (1 of 2)."), "{said:?}");
    assert!(!said[0].contains("model relay"), "the relay passed Native's failure on at once: {said:?}");
    engine.secrets().delete_api_key(Provider::Anthropic).unwrap();
}

#[test]
fn a_providers_model_list_is_asked_with_the_keychains_key_kept_and_refreshed_on_demand() {
    let server = FakeModelServer::start_blocking(Behavior::text("unused"));
    let fixture = Fixture::new().keychain("relay-engine-models");
    let engine = fixture.open();
    let key = "sk-ant-models-2b7c";
    engine.secrets().set_api_key(Provider::Anthropic, key).unwrap();
    engine.secrets().set_base_url(Provider::Anthropic, Some(&server.base_url())).unwrap();

    let listed = engine.provider_models(Provider::Anthropic, false).unwrap();
    assert_eq!(listed.models, ["claude-sonnet-4-5", "gpt-5.5", "some-model"], "sorted ids");
    let asked = server.requests();
    assert_eq!((asked.len(), asked[0].method.as_str(), asked[0].path.as_str()), (1, "GET", "/v1/models"));
    assert_eq!(asked[0].header("x-api-key"), Some(key));
    assert!(asked[0].header("anthropic-version").is_some());

    assert_eq!(engine.provider_models(Provider::Anthropic, false).unwrap(), listed, "kept");
    assert_eq!(server.requests().len(), 1, "not asked again");
    engine.provider_models(Provider::Anthropic, true).unwrap();
    assert_eq!(server.requests().len(), 2, "asked again on refresh");

    // A provider that cannot answer: the error says what failed.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    engine.secrets().set_base_url(Provider::Custom, Some(&format!("http://{closed}/v1"))).unwrap();
    let failed = engine.provider_models(Provider::Custom, false).unwrap_err();
    assert!(failed.to_string().starts_with("Could not list Custom (OpenAI-compatible)'s models:"), "{failed}");
    // No key: nothing is asked.
    let no_key = engine.provider_models(Provider::OpenAi, false).unwrap_err();
    assert_eq!(no_key.code(), clawboo_engine::ErrorCode::MissingApiKey, "{no_key}");
    engine.secrets().delete_api_key(Provider::Anthropic).unwrap();
}

/// Sends `text` to `agent_id` and waits for its run's end.
fn run_to_end(engine: &clawboo_engine::Engine, agent_id: &str, text: &str) -> clawboo_engine::chat::RunSummary {
    let run = engine.chat().send(agent_id, text).unwrap().run.unwrap();
    wait_for("the run to end", Duration::from_secs(30), || {
        let run = engine.chat().run(&run.id).unwrap();
        (run.status != RunStatus::Running).then_some(run)
    })
}

/// A Native agent `handle` on the custom provider, pointed at `server` (needs no key).
fn custom_native(engine: &clawboo_engine::Engine, server: &FakeModelServer, handle: &str) -> String {
    engine.secrets().set_base_url(Provider::Custom, Some(&format!("{}/v1", server.base_url()))).unwrap();
    let agent = NewAgent {
        model: "some-model".into(),
        provider: Some(Provider::Custom),
        ..common::new_agent(handle, RuntimeKind::Native)
    };
    common::add_agent(engine, agent)
}

#[test]
fn the_key_or_its_absence_is_read_from_the_keychain_once_a_session_and_a_key_set_or_removed_counts_from_the_next_run() {
    let server = FakeModelServer::start_blocking(Behavior::text("Relayed."));
    let fixture = Fixture::new().keychain("relay-engine-kept-key");
    let engine = fixture.open();
    let first = "sk-ant-first-5d1a";
    engine.secrets().set_api_key(Provider::Anthropic, first).unwrap();
    engine.secrets().set_base_url(Provider::Anthropic, Some(&server.base_url())).unwrap();
    let agent = NewAgent {
        name: "Kept".into(),
        model: "some-model".into(),
        provider: Some(Provider::Anthropic),
        ..common::new_agent("kept", RuntimeKind::Native)
    };
    let agent_id = common::add_agent(&engine, agent);
    let key_of_request = |n: usize| server.model_requests()[n].header("x-api-key").map(str::to_owned);

    assert_eq!(run_to_end(&engine, &agent_id, "One").status, RunStatus::Succeeded);
    assert_eq!(key_of_request(0).as_deref(), Some(first));

    // The keychain's entry changed behind Clawboo's back: a run's grant does not read the
    // keychain again, it uses the key this session read or set.
    keyring::Entry::new(engine.secrets().service(), Provider::Anthropic.as_str())
        .unwrap()
        .set_password("sk-ant-outside-9e0f")
        .unwrap();
    assert_eq!(run_to_end(&engine, &agent_id, "Two").status, RunStatus::Succeeded);
    assert_eq!(key_of_request(1).as_deref(), Some(first), "the keychain was read again for a grant");

    // A key the user sets is the next run's.
    let second = "sk-ant-second-77b2";
    engine.secrets().set_api_key(Provider::Anthropic, second).unwrap();
    assert_eq!(run_to_end(&engine, &agent_id, "Three").status, RunStatus::Succeeded);
    assert_eq!(key_of_request(2).as_deref(), Some(second));

    // A key the user removes fails the next run with the missing-key error, before any request.
    engine.secrets().delete_api_key(Provider::Anthropic).unwrap();
    let failed = run_to_end(&engine, &agent_id, "Four");
    assert_eq!(failed.status, RunStatus::Failed);
    assert_eq!(failed.error.as_deref(), Some("Add an Anthropic API key in Settings > API keys."));
    assert_eq!(failed.error_code, Some(clawboo_engine::chat::RunErrorCode::ApiKey));
    assert_eq!(server.model_requests().len(), 3, "no request without a key");

    // Its absence is kept too (a keyless provider, such as a local Ollama, costs no keychain
    // read per run): a key put in the keychain behind Clawboo's back is not read...
    keyring::Entry::new(engine.secrets().service(), Provider::Anthropic.as_str())
        .unwrap()
        .set_password("sk-ant-outside-31c4")
        .unwrap();
    let still = run_to_end(&engine, &agent_id, "Five");
    assert_eq!(still.error_code, Some(clawboo_engine::chat::RunErrorCode::ApiKey), "{still:?}");
    assert_eq!(server.model_requests().len(), 3, "the keychain was read again for a grant");
    // ...and one the user sets is the next run's.
    let third = "sk-ant-third-0c9d";
    engine.secrets().set_api_key(Provider::Anthropic, third).unwrap();
    assert_eq!(run_to_end(&engine, &agent_id, "Six").status, RunStatus::Succeeded);
    assert_eq!(key_of_request(3).as_deref(), Some(third));
}

/// A chat's requests each repeat the one before and add an exchange: the relay stores each as
/// what it adds to the last of the same agent in the same chat (every 32nd whole), and reads
/// every one back byte for byte. A request whose base is gone reads as not kept, not as an error.
#[test]
fn a_chats_requests_are_stored_as_what_each_adds_and_read_back_byte_for_byte() {
    let server = FakeModelServer::start_blocking(Behavior::text("Stored as a delta."));
    let fixture = Fixture::new().keychain("relay-engine-deltas");
    let engine = fixture.open();
    let (ada, bob) = (custom_native(&engine, &server, "ada"), custom_native(&engine, &server, "bob"));
    let mut runs = Vec::new();
    for i in 0..40 {
        // Two agents' chats interleaved: neither is stored against the other's.
        for agent_id in [&ada, &bob] {
            let run = run_to_end(&engine, agent_id, &format!("Message {i} of a long chat."));
            assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
            runs.push(run.id);
        }
    }
    let sent = server.model_requests();
    assert_eq!(sent.len(), runs.len());
    for (run, seen) in runs.iter().zip(&sent) {
        let records = engine.relay().requests(run).unwrap();
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].body.as_deref(), Some(seen.raw_body.as_str()), "run {run} reads back as sent");
        assert!(records[0].body_complete);
    }

    let db = rusqlite::Connection::open(fixture.config().database_path()).unwrap();
    let stored = |run: &str| -> (u32, i64, i64) {
        db.query_row("SELECT chain, length(body_gz), body_bytes FROM run_requests WHERE run_id = ?1", [run], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap()
    };
    let ada_runs: Vec<_> = runs.iter().step_by(2).collect();
    let chains: Vec<u32> = ada_runs.iter().map(|run| stored(run).0).collect();
    let expected: Vec<u32> = (0..40).map(|i| i % clawboo_engine::relay::KEYFRAME_EVERY).collect();
    assert_eq!(chains, expected, "every 32nd request of a chat is stored whole, the others against the one before");
    let (_, whole_gz, _) = stored(ada_runs[32]);
    let (_, delta_gz, delta_bytes) = stored(ada_runs[39]);
    assert!(delta_gz * 4 < whole_gz, "an exchange stored as what it adds: {delta_gz} B against {whole_gz} B whole");
    assert!(delta_gz * 10 < delta_bytes, "{delta_gz} B stored of a {delta_bytes} B body");
    let crossed: i64 = db
        .query_row(
            "SELECT COUNT(*) FROM run_requests q JOIN runs r ON r.id = q.run_id JOIN runs b ON b.id = q.base_run_id
             WHERE r.agent_id != b.agent_id OR r.conversation_id != b.conversation_id",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(crossed, 0, "a base is always of the same agent and chat");

    // Damage: the whole body ada's later requests stand on is gone.
    db.execute("DELETE FROM run_requests WHERE run_id = ?1", [ada_runs[32]]).unwrap();
    let orphan = &engine.relay().requests(ada_runs[35]).unwrap()[0];
    assert_eq!((orphan.body.as_deref(), orphan.body_complete), (None, false));
    assert!(engine.relay().requests(ada_runs[31]).unwrap()[0].body_complete, "the chain before it still reads");
}

/// A chat nobody used for a while: what its turns kept between them (its carried turns, Native's
/// written messages, the relay's last body) is given back, and its next turn is whole again: the
/// same request (it carries the chat), stored whole instead of against the one before.
#[test]
fn a_quiet_chat_gives_back_what_its_turns_kept_and_its_next_turn_is_the_same() {
    let server = FakeModelServer::start_blocking(Behavior::text("Kept between turns."));
    let fixture = Fixture::new().keychain("relay-engine-quiet");
    let engine = fixture.open();
    let agent_id = custom_native(&engine, &server, "quiet");
    let started = std::time::Instant::now();
    let mut runs = Vec::new();
    for i in 0..4 {
        let run = run_to_end(&engine, &agent_id, &format!("Message {i}: a chat that then goes quiet."));
        assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
        runs.push(run.id);
    }
    assert_eq!(engine.forget_unused_since(started), 0, "all used since the chat started");
    let given_back = engine.forget_unused_since(std::time::Instant::now());
    assert!(given_back > 1000, "its carried turns, written messages and last body: {given_back} B");
    assert_eq!(engine.forget_unused_since(std::time::Instant::now()), 0, "nothing left to give back");

    let run = run_to_end(&engine, &agent_id, "Message 4, after a while.");
    assert_eq!(run.status, RunStatus::Succeeded, "{:?}", run.error);
    runs.push(run.id);
    let sent = server.model_requests();
    let last: serde_json::Value = serde_json::from_str(&sent[4].raw_body).unwrap();
    let carried: Vec<&str> =
        last["messages"].as_array().unwrap().iter().filter_map(|m| m["content"].as_str()).collect();
    assert!(
        (0..4).all(|i| carried.iter().any(|text| text.contains(&format!("Message {i}: a chat")))),
        "the whole chat carried again: {carried:?}"
    );
    let db = rusqlite::Connection::open(fixture.config().database_path()).unwrap();
    let chains: Vec<u32> = runs
        .iter()
        .map(|run| db.query_row("SELECT chain FROM run_requests WHERE run_id = ?1", [run], |r| r.get(0)).unwrap())
        .collect();
    assert_eq!(chains, [0, 1, 2, 3, 0], "after the quiet the next body is stored whole");
    assert_eq!(engine.relay().requests(&runs[4]).unwrap()[0].body.as_deref(), Some(sent[4].raw_body.as_str()));
}
