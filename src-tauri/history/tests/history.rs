//! Search and export over a real store (SQLite, migrated): ranking, scoping by the caller,
//! hostile queries, and what an export holds.

use clawboo_history::export::{export, ExportFormat, ExportTarget};
use clawboo_history::threads::{self, MessageQuery, Scope, ThreadKind};
use clawboo_history::{everything, for_agent, query::Words, Found};
use clawboo_store::store::Store;
use rusqlite::params;

struct Fixture {
    _dir: tempfile::TempDir,
    store: Store,
}

/// Ada and Bob each have a one-to-one chat; both are in the Launch team's #general; only Ada is
/// in #ops. Cara is in no room.
fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("clawboo.db")).unwrap();
    store
        .write(|tx| {
            tx.execute_batch(
                "INSERT INTO agents (id, name, handle, tint, runtime, created_at, updated_at) VALUES
                     ('ada', 'Ada', 'ada', '#000', 'native', 0, 0),
                     ('bob', 'Bob', 'bob', '#000', 'native', 0, 0),
                     ('cara', 'Cara', 'cara', '#000', 'native', 0, 0);
                 INSERT INTO conversations (id, agent_id, kind, epoch, created_at) VALUES
                     ('c-ada', 'ada', 'direct', 0, 0), ('c-bob', 'bob', 'direct', 0, 0), ('c-cara', 'cara', 'direct', 0, 0);
                 INSERT INTO teams (id, name, created_at, updated_at) VALUES ('t', 'Launch', 0, 0);
                 INSERT INTO rooms (id, team_id, name, is_general, position, created_at) VALUES
                     ('general', 't', 'general', 1, 0, 0), ('ops', 't', 'ops', 0, 1, 0);
                 INSERT INTO room_members (room_id, agent_id, position) VALUES
                     ('general', 'ada', 0), ('general', 'bob', 1), ('ops', 'ada', 0);
                 INSERT INTO runs (id, conversation_id, agent_id, runtime, status, started_at, finished_at)
                     VALUES ('run-1', 'c-ada', 'ada', 'native', 'succeeded', 10, 20);
                 INSERT INTO run_events (run_id, seq, at, event) VALUES
                     ('run-1', 1, 11, '{\"type\":\"textDelta\",\"text\":\"The  invoice\"}'),
                     ('run-1', 2, 12, '{\"type\":\"finished\",\"outcome\":{\"status\":\"succeeded\"}}');",
            )?;
            let chat = [
                ("a1", "c-ada", 1, "user", "Where does the invoice template live?"),
                ("a2", "c-ada", 2, "assistant", "The invoice template lives in billing/templates."),
                ("a3", "c-ada", 3, "user", "Thanks, and the weekly report?"),
                ("b1", "c-bob", 1, "user", "Bob, the secret invoice for the walrus deal is ready"),
                ("c1", "c-cara", 1, "user", "Cara knows the walrus story"),
            ];
            for (n, (id, conv, seq, role, text)) in chat.into_iter().enumerate() {
                tx.execute(
                    "INSERT INTO messages (id, conversation_id, seq, role, content, epoch, created_at, run_id)
                     VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6, CASE WHEN ?1 = 'a2' THEN 'run-1' END)",
                    params![id, conv, seq, role, text, 1_000 + n as i64],
                )?;
            }
            let room = [
                ("g1", "general", 1, "user", None, "Launch the invoice reminders on Monday"),
                ("g2", "general", 2, "reply", Some("bob"), "Bob here: reminders are queued"),
                ("o1", "ops", 1, "reply", Some("ada"), "The walrus server needs a reboot"),
            ];
            for (n, (id, room, seq, kind, author, text)) in room.into_iter().enumerate() {
                tx.execute(
                    "INSERT INTO room_messages (id, room_id, seq, kind, author_id, content, created_at)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                    params![id, room, seq, kind, author, text, 2_000 + n as i64],
                )?;
            }
            Ok(())
        })
        .unwrap();
    Fixture { _dir: dir, store }
}

fn ids(hits: &[threads::MessageHit]) -> Vec<&str> {
    hits.iter().map(|h| h.message_id.as_str()).collect()
}

fn search(f: &Fixture, text: &str, scope: Scope, words: Words) -> Vec<threads::MessageHit> {
    f.store
        .read(|c| {
            threads::search(
                c,
                &MessageQuery { text, scope, words, typing: true, limit: 10, snippet_words: 12, exclude_run: None },
            )
        })
        .unwrap()
}

#[test]
fn the_best_match_comes_first_with_its_thread_and_a_marked_snippet() {
    let f = fixture();
    let hits = search(&f, "invoice template", Scope::Everything, Words::Any);
    // Messages with both words rank above those with one (Bob's, the room's).
    let mut best_two = ids(&hits)[..2].to_vec();
    best_two.sort();
    assert_eq!(best_two, ["a1", "a2"], "{hits:?}");
    let top = &hits[0];
    assert_eq!(top.thread.kind, ThreadKind::Chat);
    assert_eq!(top.thread.id, "c-ada");
    assert_eq!(top.thread.agent_id.as_deref(), Some("ada"));
    assert!(top.snippet.iter().any(|p| p.hit && p.text.eq_ignore_ascii_case("invoice")), "{:?}", top.snippet);
    // Everything with "invoice" is found: both chats and the room.
    let all = search(&f, "invoice", Scope::Everything, Words::All);
    let mut found = ids(&all);
    found.sort();
    assert_eq!(found, ["a1", "a2", "b1", "g1"]);
    let room = all.iter().find(|h| h.message_id == "g1").unwrap();
    assert_eq!(room.thread.kind, ThreadKind::Room);
    assert_eq!(room.thread.title, "#general · Launch");
    assert_eq!(room.author, "You");
}

#[test]
fn an_agent_finds_only_its_own_chats_and_its_rooms() {
    let f = fixture();
    let ada = search(&f, "walrus", Scope::Agent("ada"), Words::Any);
    // Bob's and Cara's private chats say "walrus" too: never Ada's to read.
    assert_eq!(ids(&ada), ["o1"]);
    let bob = search(&f, "walrus invoice", Scope::Agent("bob"), Words::Any);
    let mut found = ids(&bob);
    found.sort();
    assert_eq!(found, ["b1", "g1"], "Bob's chat and #general, not Ada's chat nor #ops");
    let cara = search(&f, "invoice reminders", Scope::Agent("cara"), Words::Any);
    assert!(cara.is_empty(), "Cara is in no room and never said it");
    // The tool's text: bounded, ids to cite, nothing of Bob's chat for Ada.
    let text = f.store.read(|c| for_agent(c, "ada", "run-x", "secret walrus deal", 10)).unwrap();
    assert!(text.contains("[msg:o1]"), "{text}");
    assert!(!text.contains("b1") && !text.contains("secret"), "{text}");
    assert!(text.chars().count() <= clawboo_history::MAX_THREAD_ANSWER_CHARS);
}

#[test]
fn the_tool_answer_stays_bounded() {
    let f = fixture();
    f.store
        .write(|tx| {
            for n in 0..200 {
                let text = format!("{} deploy checklist item {n} {}", "lorem ipsum ".repeat(20), "dolor ".repeat(20));
                tx.execute(
                    "INSERT INTO messages (id, conversation_id, seq, role, content, epoch, created_at)
                     VALUES (?1, 'c-ada', ?2, 'assistant', ?3, 0, ?2)",
                    params![format!("d{n}"), 100 + n, text],
                )?;
            }
            Ok(())
        })
        .unwrap();
    let text = f.store.read(|c| for_agent(c, "ada", "run-x", "deploy checklist", 50)).unwrap();
    assert!(text.chars().count() <= clawboo_history::MAX_THREAD_ANSWER_CHARS, "{}", text.len());
    let cited = text.lines().filter(|l| l.starts_with("[msg:")).count();
    assert!((1..=clawboo_history::MAX_THREAD_RESULTS).contains(&cited), "{text}");
}

#[test]
fn hostile_queries_are_plain_words_and_never_an_error() {
    let f = fixture();
    let hostile = [
        "\"",
        "\"invoice",
        "invoice\"",
        "*",
        "invoice*",
        "-invoice",
        "NOT invoice",
        "invoice NOT template",
        "NEAR(invoice template)",
        "content:invoice",
        "messages_fts:x",
        "^invoice",
        "(invoice",
        "invoice)",
        "AND",
        "OR OR",
        "{content}: x",
        "'; DROP TABLE messages; --",
        "\\",
        "%_",
        "🦭 walrus",
        "\0",
    ];
    for text in hostile {
        for words in [Words::All, Words::Any] {
            let hits = f.store.read(|c| {
                threads::search(
                    c,
                    &MessageQuery {
                        text,
                        scope: Scope::Everything,
                        words,
                        typing: true,
                        limit: 10,
                        snippet_words: 12,
                        exclude_run: None,
                    },
                )
            });
            assert!(hits.is_ok(), "{text:?}: {hits:?}");
        }
        let found = f.store.read(|c| everything::search(c, text));
        assert!(found.is_ok(), "{text:?}: {found:?}");
    }
    // "-invoice" is the word invoice (no exclusion), "NOT invoice" the words not and invoice.
    assert_eq!(ids(&search(&f, "-invoice", Scope::Agent("cara"), Words::All)), Vec::<&str>::new());
    assert_eq!(search(&f, "-invoice", Scope::Agent("bob"), Words::All).len(), 2);
    assert!(search(&f, "NOT invoice", Scope::Everything, Words::All).is_empty());
}

#[test]
fn the_last_word_matches_as_a_prefix_while_typing() {
    let f = fixture();
    let typed: Vec<usize> = ["w", "wa", "wal", "walr", "walru", "walrus"]
        .iter()
        .map(|t| search(&f, t, Scope::Everything, Words::All).len())
        .collect();
    // One letter is a whole word (too broad as a prefix); from two letters on, a prefix.
    assert_eq!(typed, [0, 3, 3, 3, 3, 3]);
}

#[test]
fn the_palette_finds_things_by_name_and_messages_by_words() {
    let f = fixture();
    let found = f.store.read(|c| everything::search(c, "ad")).unwrap();
    assert!(matches!(&found[0], Found::Agent(a) if a.id == "ada" && a.detail == "@ada"), "{found:?}");
    assert!(found
        .iter()
        .any(|x| matches!(x, Found::Chat(c) if c.id == "c-ada" && c.parent_id.as_deref() == Some("ada"))));
    let found = f.store.read(|c| everything::search(c, "#ops")).unwrap();
    assert!(matches!(&found[0], Found::Room(r) if r.id == "ops" && r.parent_id.as_deref() == Some("t")), "{found:?}");
    let found = f.store.read(|c| everything::search(c, "reminders")).unwrap();
    assert!(found.iter().any(|x| matches!(x, Found::Message(m) if m.message_id == "g1")), "{found:?}");
    assert!(f.store.read(|c| everything::search(c, "   ")).unwrap().is_empty());
}

#[test]
fn a_chat_exports_as_markdown_and_as_json_with_the_stored_events_exactly() {
    let f = fixture();
    let target = ExportTarget::Chat { id: "c-ada".into() };
    let md = f.store.read(|c| export(c, &target, ExportFormat::Markdown, 1_764_900_000_000)).unwrap();
    assert!(md.file_name.starts_with("chat-ada-") && md.file_name.ends_with(".md"), "{}", md.file_name);
    assert!(md.contents.starts_with("# Chat with Ada\n"), "{}", md.contents);
    let you = md.contents.find("## You").unwrap();
    let ada = md.contents.find("## Ada").unwrap();
    assert!(you < ada && md.contents.contains("billing/templates"), "{}", md.contents);
    assert!(!md.contents.contains("walrus"), "another chat's words are not in it");

    let json = f.store.read(|c| export(c, &target, ExportFormat::Json, 1_764_900_000_000)).unwrap();
    assert!(json.file_name.ends_with(".json"));
    // Byte for byte as stored (its two spaces kept, its key order kept).
    assert!(json.contents.contains(r#"{"type":"textDelta","text":"The  invoice"}"#), "{}", json.contents);
    let doc: serde_json::Value = serde_json::from_str(&json.contents).unwrap();
    assert_eq!(doc["format"], "clawboo-export");
    assert_eq!(doc["messages"].as_array().unwrap().len(), 3);
    assert_eq!(doc["runs"][0]["id"], "run-1");
    assert_eq!(doc["runs"][0]["events"].as_array().unwrap().len(), 2);

    let room =
        f.store.read(|c| export(c, &ExportTarget::Room { id: "general".into() }, ExportFormat::Markdown, 0)).unwrap();
    assert!(
        room.contents.starts_with("# #general · Launch") && room.contents.contains("## Bob ·"),
        "{}",
        room.contents
    );
    let by_agent = f
        .store
        .read(|c| export(c, &ExportTarget::AgentChat { agent_id: "ada".into() }, ExportFormat::Markdown, 0))
        .unwrap();
    assert!(by_agent.contents.starts_with("# Chat with Ada\n"));
    let missing = f.store.read(|c| export(c, &ExportTarget::Card { id: "nope".into() }, ExportFormat::Json, 0));
    assert!(matches!(missing, Err(clawboo_vocab::error::Error::NotFound(_))));
}

#[test]
fn the_searching_runs_own_messages_are_left_out() {
    let f = fixture();
    // a2 is run-1's reply: a search made by run-1 does not find it.
    let text = f.store.read(|c| for_agent(c, "ada", "run-1", "billing templates", 10)).unwrap();
    assert!(!text.contains("[msg:a2]"), "{text}");
    let text = f.store.read(|c| for_agent(c, "ada", "run-2", "billing templates", 10)).unwrap();
    assert!(text.contains("[msg:a2]"), "{text}");
}
