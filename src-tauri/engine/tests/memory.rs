//! Shared memory through the engine, on a real SQLite store: facts (ranking, scopes, related
//! facts, ids, history, checks, duplicates, citations), saved notes, scratch notes,
//! promotions and the projection an agent gets.

// `[fact.id.clone()]` reads better than `std::slice::from_ref(&fact.id)` in assertions.
#![allow(clippy::cloned_ref_to_slice_refs)]

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::memory::{
    Author, Fact, FactChange, FactEdit, FactFilter, FactInput, PromotionStatus, Scope, ScratchScope, Visibility,
    MAX_RELATED, MAX_TAGS,
};
use clawboo_engine::runtimes::ApprovalPolicy;
use clawboo_engine::teams::NewTeam;
use clawboo_engine::{Engine, EngineConfig, EngineEvent, Error};
use clawboo_testkit::TempDataDir;

fn open(dir: &TempDataDir) -> Engine {
    Engine::open(EngineConfig::for_dir(dir.path().to_owned())).expect("engine opens")
}

fn agent(engine: &Engine, handle: &str) -> String {
    engine
        .agents()
        .create(NewAgent {
            name: handle.into(),
            handle: handle.into(),
            description: String::new(),
            tint: "#336699".into(),
            runtime: RuntimeKind::Native,
            model: String::new(),
            approval_policy: ApprovalPolicy::Ask,
            provider: None,
        })
        .unwrap()
        .id
}

fn team(engine: &Engine, name: &str, members: &[&String]) -> String {
    engine
        .teams()
        .create(NewTeam {
            name: name.into(),
            member_ids: members.iter().map(|m| (*m).clone()).collect(),
            leader_id: None,
        })
        .unwrap()
        .id
}

fn by_agent(agent_id: &str, handle: &str) -> Author {
    Author::Agent { agent_id: agent_id.into(), handle: handle.into(), run_id: Some("run-1".into()) }
}

fn save(engine: &Engine, text: &str, scope: Scope, tags: &[&str]) -> Fact {
    let input = FactInput { text: text.into(), scope, tags: tags.iter().map(|t| (*t).into()).collect() };
    let saved = engine.memory().save(input, Author::User).unwrap();
    assert!(!saved.existing, "{text}");
    saved.fact
}

fn global(engine: &Engine, text: &str, tags: &[&str]) -> Fact {
    save(engine, text, Scope::Global, tags)
}

fn invalid(result: Result<impl std::fmt::Debug, Error>) -> String {
    match result {
        Err(Error::InvalidInput(message)) => message,
        other => panic!("expected InvalidInput, got {other:?}"),
    }
}

fn ids(facts: impl IntoIterator<Item = Fact>) -> Vec<String> {
    facts.into_iter().map(|f| f.id).collect()
}

fn top_ids(engine: &Engine, query: &str, visible: &Visibility) -> Vec<String> {
    ids(engine.memory().search(query, visible, 5).unwrap().top.into_iter().map(|h| h.fact))
}

/// A conversation row (scratch notes' session scope), straight into the database.
fn conversation(engine: &Engine, agent_id: &str) -> String {
    let conn = rusqlite::Connection::open(engine.config().database_path()).unwrap();
    conn.busy_timeout(std::time::Duration::from_secs(5)).unwrap();
    let id = format!("conv-{agent_id}");
    conn.execute(
        "INSERT INTO conversations (id, agent_id, kind, created_at) VALUES (?1, ?2, 'direct', 0)",
        [&id, agent_id],
    )
    .unwrap();
    id
}

#[test]
fn search_ranks_facts_matching_more_and_rarer_words_first() {
    let dir = TempDataDir::new();
    let engine = open(&dir);
    let both = global(&engine, "The staging server deploys from the release branch every night.", &[]);
    let staging = global(&engine, "The staging database is reset on Mondays.", &[]);
    let server = global(&engine, "The build server has 16 cores.", &[]);
    let unrelated = global(&engine, "Lunch is at noon on Fridays.", &[]);
    for i in 0..5 {
        global(&engine, &format!("Server note {i}: the server room is cold."), &[]);
    }
    // bm25 weighs a word by how rare it is among all facts.
    for i in 0..20 {
        global(&engine, &format!("Filler fact {i} about something else."), &[]);
    }
    let result = engine.memory().search("staging server?", &Visibility::Everything, 3).unwrap();
    assert_eq!(result.top[0].fact.id, both.id, "both words beat one");
    assert_eq!(result.top[1].fact.id, staging.id, "the rarer word beats the common one");
    assert!(result.top.windows(2).all(|w| w[0].score <= w[1].score), "bm25: lower is better");
    let everything = ids(engine
        .memory()
        .search("staging server", &Visibility::Everything, 20)
        .unwrap()
        .top
        .into_iter()
        .map(|h| h.fact));
    assert!(everything.contains(&server.id));
    assert!(!everything.contains(&unrelated.id));
    assert_eq!(top_ids(&engine, "", &Visibility::Everything), Vec::<String>::new());
    assert_eq!(top_ids(&engine, "  ?!… ", &Visibility::Everything), Vec::<String>::new());
    // Case and accents do not matter.
    let cafe = global(&engine, "The Café opens at eight.", &[]);
    assert_eq!(top_ids(&engine, "CAFE", &Visibility::Everything), [cafe.id]);
}

#[test]
fn a_search_leaves_out_words_most_facts_have_when_rarer_ones_remain() {
    let dir = TempDataDir::new();
    let engine = open(&dir);
    let memory = engine.memory();
    let common = (0..1_600).map(|i| global(&engine, &format!("Common note {i}."), &[])).last().unwrap();
    let kiwi = global(&engine, "Kiwi crates go to dock four.", &[]);
    // "common" is in 1,600 facts: with "kiwi" in the query it is left out, so no common note
    // fills the top.
    assert_eq!(top_ids(&engine, "common kiwi", &Visibility::Everything), [kiwi.id.clone()]);
    // Alone it is still searched.
    assert_eq!(memory.search("common", &Visibility::Everything, 3).unwrap().top.len(), 3);
    // The counts follow edits: once no fact says "kiwi", "common" is the rarer word… and still
    // the only one that matches.
    memory.edit(&kiwi.id, FactEdit { text: Some("Crates go to dock four.".into()), tags: None }, Author::User).unwrap();
    assert_eq!(top_ids(&engine, "common kiwi", &Visibility::Everything).len(), 5);
    assert!(top_ids(&engine, "common 1599", &Visibility::Everything).contains(&common.id));
}

#[test]
fn an_agent_sees_global_facts_its_teams_and_its_own_only() {
    let dir = TempDataDir::new();
    let engine = open(&dir);
    let (ava, bo) = (agent(&engine, "ava"), agent(&engine, "bo"));
    let (ours, theirs) = (team(&engine, "Ours", &[&ava]), team(&engine, "Theirs", &[&bo]));
    let everyone = global(&engine, "Widget fact for everyone.", &[]);
    let our_team = save(&engine, "Widget fact for our team.", Scope::Team { team_id: ours.clone() }, &[]);
    let their_team = save(&engine, "Widget fact for their team.", Scope::Team { team_id: theirs }, &[]);
    let mine = save(&engine, "Widget fact for ava alone.", Scope::Agent { agent_id: ava.clone() }, &[]);
    let bos = save(&engine, "Widget fact for bo alone.", Scope::Agent { agent_id: bo.clone() }, &[]);

    let as_ava = Visibility::Agent { agent_id: ava.clone() };
    let mut seen = top_ids(&engine, "widget fact", &as_ava);
    seen.sort();
    let mut expected = vec![everyone.id.clone(), our_team.id.clone(), mine.id.clone()];
    expected.sort();
    assert_eq!(seen, expected);
    assert_eq!(top_ids(&engine, "widget", &Visibility::Everything).len(), 5, "the user sees all");

    // memory_get: out of scope reads exactly like an unknown id.
    let memory = engine.memory();
    assert_eq!(memory.get(&mine.id, &as_ava).unwrap(), mine);
    let hidden = memory.get(&bos.id, &as_ava).unwrap_err().to_string();
    let unknown = memory.get("m-zzzz", &as_ava).unwrap_err().to_string();
    assert_eq!(hidden.replace(&bos.id, "ID"), unknown.replace("m-zzzz", "ID"));
    assert!(matches!(memory.get(&their_team.id, &as_ava), Err(Error::NotFound(_))));
    assert_eq!(memory.get(&bos.id, &Visibility::Everything).unwrap(), bos);

    // Leaving the team takes its facts out of sight.
    engine.teams().set_members(&ours, vec![bo.clone()]).unwrap();
    assert!(matches!(memory.get(&our_team.id, &as_ava), Err(Error::NotFound(_))));
    assert!(!top_ids(&engine, "widget", &as_ava).contains(&our_team.id));
}

#[test]
fn a_scope_must_exist() {
    let dir = TempDataDir::new();
    let engine = open(&dir);
    let message = invalid(engine.memory().save(
        FactInput { text: "x".into(), scope: Scope::Team { team_id: "nope".into() }, tags: vec![] },
        Author::User,
    ));
    assert!(message.contains("no team nope"), "{message}");
    let message = invalid(engine.memory().save(
        FactInput { text: "x".into(), scope: Scope::Agent { agent_id: "nobody".into() }, tags: vec![] },
        Author::User,
    ));
    assert!(message.contains("no agent nobody"), "{message}");
}

#[test]
fn related_facts_share_the_most_tags_then_rank_better_then_are_newer() {
    let dir = TempDataDir::new();
    let engine = open(&dir);
    let (ava, bo) = (agent(&engine, "ava"), agent(&engine, "bo"));
    let hit = global(&engine, "Kiwi deploys go through the blue pipeline.", &["deploy", "ci", "blue"]);
    let one_tag_old = global(&engine, "Rollbacks take five minutes.", &["deploy"]);
    let one_tag_matching = global(&engine, "The pipeline dashboard is on the wall screen.", &["ci"]);
    let one_tag_new = global(&engine, "Ask ops before Friday releases.", &["blue"]);
    let two_tags = global(&engine, "Staging mirrors production nightly.", &["deploy", "ci"]);
    // Would share all three tags, but is out of sight or deleted.
    save(&engine, "Bo's own note on releases.", Scope::Agent { agent_id: bo }, &["deploy", "ci", "blue"]);
    let deleted = global(&engine, "An old release rule.", &["deploy", "ci", "blue"]);
    engine.memory().delete(&deleted.id, Author::User).unwrap();

    let as_ava = Visibility::Agent { agent_id: ava };
    let result = engine.memory().search("kiwi pipeline", &as_ava, 1).unwrap();
    assert_eq!(ids(result.top.into_iter().map(|h| h.fact)), [hit.id.clone()]);
    let related: Vec<(String, f64)> = result.related.iter().map(|h| (h.fact.id.clone(), h.score)).collect();
    // Two tags first; then, of the one-tag facts, the one that also matches a query word.
    assert_eq!(related, [(two_tags.id.clone(), 2.0), (one_tag_matching.id.clone(), 1.0)]);
    assert_eq!(result.related.len(), MAX_RELATED);

    // Among one-tag facts matching no query word, the newest wins.
    engine.memory().delete(&two_tags.id, Author::User).unwrap();
    engine.memory().delete(&one_tag_matching.id, Author::User).unwrap();
    let related = ids(engine.memory().search("kiwi", &as_ava, 5).unwrap().related.into_iter().map(|h| h.fact));
    assert_eq!(related, [one_tag_new.id, one_tag_old.id]);
}

#[test]
fn without_shared_tags_related_facts_are_the_next_text_neighbours() {
    let dir = TempDataDir::new();
    let engine = open(&dir);
    let best = global(&engine, "Mango mango mango orders ship on Tuesdays.", &[]);
    let second = global(&engine, "Mango orders ship from the north depot.", &[]);
    let third = global(&engine, "Mango labels are printed in blue.", &[]);
    let fourth = global(&engine, "Mango boxes, mango crates and a mango van.", &["fruit"]);
    global(&engine, "Nothing to do with it.", &["fruit"]);
    let result = engine.memory().search("mango orders", &Visibility::Everything, 2).unwrap();
    assert_eq!(ids(result.top.iter().map(|h| h.fact.clone())), [best.id, second.id]);
    let related = ids(result.related.iter().map(|h| h.fact.clone()));
    assert_eq!(related.len(), 2);
    assert!(related.contains(&third.id) && related.contains(&fourth.id), "{related:?}");
    assert!(result.related.iter().all(|h| h.score < 0.0), "bm25 scores for text neighbours");
}

#[test]
fn ids_are_short_and_never_issued_twice_even_after_deletes() {
    let dir = TempDataDir::new();
    let engine = open(&dir);
    let ava = agent(&engine, "ava");
    let crew = team(&engine, "Crew", &[&ava]);
    let mut issued = Vec::new();
    for i in 0..150 {
        let scope = match i % 3 {
            0 => Scope::Global,
            1 => Scope::Team { team_id: crew.clone() },
            _ => Scope::Agent { agent_id: ava.clone() },
        };
        issued.push(save(&engine, &format!("Fact number {i}."), scope, &[]));
    }
    for fact in &issued {
        assert!(fact.id.starts_with("m-") && fact.id.len() >= 6, "{}", fact.id);
    }
    let note = engine.memory().save_note(&ava, "Remember the milk.", Author::User).unwrap();
    engine.memory().delete(&issued[0].id, Author::User).unwrap();
    // Deleting the team and the agent keeps their facts (for the user) and every id issued.
    engine.teams().delete(&crew).unwrap();
    engine.delete_agent(&ava).unwrap();
    for fact in &issued {
        assert_eq!(engine.memory().detail(&fact.id).unwrap().fact.id, fact.id);
    }
    assert_eq!(
        engine
            .memory()
            .list(&FactFilter { limit: Some(200), include_deleted: true, ..Default::default() })
            .unwrap()
            .len(),
        150
    );
    let conn = rusqlite::Connection::open(engine.config().database_path()).unwrap();
    let kept: bool = conn.query_row("SELECT COUNT(*) = 0 FROM memory_notes", [], |r| r.get(0)).unwrap();
    assert!(kept, "the agent's notes went with it");
    let still_issued: i64 = conn
        .query_row("SELECT COUNT(*) FROM memory_ids WHERE id = ?1 OR id LIKE 'm-%'", [&note.id], |r| r.get(0))
        .unwrap();
    assert_eq!(still_issued, 151, "every id stays issued");
    // New ids never repeat an old one.
    let mut all: Vec<String> = issued.iter().map(|f| f.id.clone()).collect();
    for i in 0..150 {
        all.push(global(&engine, &format!("Later fact {i}."), &[]).id);
    }
    let count = all.len();
    all.sort();
    all.dedup();
    assert_eq!(all.len(), count);
}

#[test]
fn every_change_is_kept_in_history_and_delete_is_soft_and_restorable() {
    let dir = TempDataDir::new();
    let engine = open(&dir);
    let ava = agent(&engine, "ava");
    let memory = engine.memory();
    let mut events = engine.events().subscribe();
    let fact = global(&engine, "The office wifi is Papaya.", &["office"]);
    assert_eq!(events.try_recv().unwrap(), EngineEvent::MemoryChanged);
    assert_eq!((fact.version, fact.deleted), (1, false));

    let by = by_agent(&ava, "ava");
    let edited = memory
        .edit(&fact.id, FactEdit { text: Some("The office wifi is Guava.".into()), tags: None }, by.clone())
        .unwrap();
    assert_eq!(edited.version, 2);
    assert_eq!(edited.author, Author::User, "the author stays who created it");
    let unchanged = memory
        .edit(&fact.id, FactEdit { text: Some(" The office wifi is Guava. ".into()), tags: None }, by.clone())
        .unwrap();
    assert_eq!(unchanged.version, 2, "an edit that changes nothing adds no version");
    memory
        .edit(&fact.id, FactEdit { text: None, tags: Some(vec!["Office".into(), "wifi".into()]) }, Author::User)
        .unwrap();
    assert_eq!(
        top_ids(&engine, "papaya", &Visibility::Everything),
        Vec::<String>::new(),
        "the old text is not indexed"
    );
    assert_eq!(top_ids(&engine, "guava", &Visibility::Everything), [fact.id.clone()]);

    let deleted = memory.delete(&fact.id, Author::User).unwrap();
    assert!(deleted.deleted);
    assert_eq!(top_ids(&engine, "guava", &Visibility::Everything), Vec::<String>::new());
    assert!(matches!(memory.get(&fact.id, &Visibility::Everything), Err(Error::NotFound(_))));
    assert!(memory.list(&FactFilter::default()).unwrap().is_empty());
    assert_eq!(memory.list(&FactFilter { include_deleted: true, ..Default::default() }).unwrap().len(), 1);
    invalid(memory.delete(&fact.id, Author::User));
    invalid(memory.edit(&fact.id, FactEdit { text: Some("x".into()), tags: None }, Author::User));

    let restored = memory.restore(&fact.id, by.clone()).unwrap();
    assert_eq!((restored.version, restored.deleted), (5, false));
    assert_eq!(top_ids(&engine, "guava", &Visibility::Everything), [fact.id.clone()]);
    invalid(memory.restore(&fact.id, Author::User));

    let detail = memory.detail(&fact.id).unwrap();
    assert_eq!(detail.fact, restored);
    let history: Vec<(u32, FactChange, &str, Vec<String>)> =
        detail.versions.iter().map(|v| (v.version, v.change, v.text.as_str(), v.tags.clone())).collect();
    let tags = |t: &[&str]| t.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        history,
        [
            (1, FactChange::Created, "The office wifi is Papaya.", tags(&["office"])),
            (2, FactChange::Edited, "The office wifi is Guava.", tags(&["office"])),
            (3, FactChange::Edited, "The office wifi is Guava.", tags(&["office", "wifi"])),
            (4, FactChange::Deleted, "The office wifi is Guava.", tags(&["office", "wifi"])),
            (5, FactChange::Restored, "The office wifi is Guava.", tags(&["office", "wifi"])),
        ]
    );
    assert_eq!(detail.versions[1].by, by);
    assert!(detail.versions.iter().all(|v| v.scope == Scope::Global));
    assert!(matches!(memory.detail("m-0000x"), Err(Error::NotFound(_))));
}

#[test]
fn an_exact_duplicate_in_the_same_scope_returns_the_existing_fact() {
    let dir = TempDataDir::new();
    let engine = open(&dir);
    let ava = agent(&engine, "ava");
    let memory = engine.memory();
    let first = global(&engine, "Invoices go out on the 1st.", &[]);
    let mut events = engine.events().subscribe();
    let again = memory
        .save(
            FactInput { text: "  Invoices go out on the 1st.\n".into(), scope: Scope::Global, tags: vec!["x".into()] },
            by_agent(&ava, "ava"),
        )
        .unwrap();
    assert!(again.existing);
    assert_eq!(again.fact, first);
    assert!(events.try_recv().is_err(), "nothing changed");
    let other_scope = save(&engine, "Invoices go out on the 1st.", Scope::Agent { agent_id: ava }, &[]);
    assert_ne!(other_scope.id, first.id);
    let nearly = global(&engine, "Invoices go out on the 2nd.", &[]);
    let message = invalid(memory.edit(
        &nearly.id,
        FactEdit { text: Some("Invoices go out on the 1st.".into()), tags: None },
        Author::User,
    ));
    assert!(message.contains(&first.id), "{message}");
    // Once deleted, the same text makes a new fact.
    memory.delete(&first.id, Author::User).unwrap();
    assert_ne!(global(&engine, "Invoices go out on the 1st.", &[]).id, first.id);
}

#[test]
fn text_over_the_limit_or_empty_is_refused_not_cut_and_tags_are_normalised() {
    let dir = TempDataDir::new();
    let engine = open(&dir);
    let memory = engine.memory();
    let save =
        |text: String, tags: Vec<String>| memory.save(FactInput { text, scope: Scope::Global, tags }, Author::User);
    assert_eq!(save("é".repeat(2_000), vec![]).unwrap().fact.text.chars().count(), 2_000, "characters, not bytes");
    let message = invalid(save("a".repeat(2_345), vec![]));
    assert!(message.contains("has 2,345 characters; at most 2,000"), "{message}");
    invalid(save("   \n ".into(), vec![]));
    let message = invalid(save("ok".into(), (0..=MAX_TAGS).map(|i| format!("t{i}")).collect()));
    assert!(message.contains("at most 8 tags"), "{message}");
    invalid(save("ok".into(), vec!["x".repeat(41)]));
    let fact = save("Tagged.".into(), vec![" Deploy ".into(), "deploy".into(), "".into(), "CI".into()]).unwrap().fact;
    assert_eq!(fact.tags, ["deploy", "ci"]);
    assert_eq!(memory.list(&FactFilter::default()).unwrap().len(), 2, "nothing refused was saved");
}

const SECRETS: [(&str, &str); 13] = [
    ("My key is sk-proj-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c.", "sk-"),
    ("Use sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 for Claude", "Anthropic"),
    ("token ghp_0123456789abcdefghijABCDEFGHIJklmnop", "GitHub"),
    ("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "GitHub"),
    ("slack: xoxb-1234567890-0987654321-AbCdEfGhIjKl", "Slack"),
    ("aws AKIAIOSFODNN7EXAMPLE in prod", "AWS"),
    ("maps key AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW", "Google"),
    (
        "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "JSON Web Token",
    ),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----", "private key"),
    ("curl -H 'Authorization: Bearer a8F3kd92LmQp0zXv7RtY5wE1'", "bearer"),
    ("STRIPE_API_KEY=rk_live_51H8xY2eZvKYlo2C0a9b8c7d6", "key, token or password"),
    ("the db password: \"Tr0ub4dor&3xQ9zLp2Vw\"", "key, token or password"),
    ("clone https://deploy:hunter2secret@git.example.com/repo.git", "password in a URL"),
];

#[test]
fn secret_looking_text_is_refused_naming_the_kind_never_the_secret() {
    let dir = TempDataDir::new();
    let engine = open(&dir);
    let ava = agent(&engine, "ava");
    let conv = conversation(&engine, &ava);
    let memory = engine.memory();
    for (text, kind) in SECRETS {
        let message =
            invalid(memory.save(FactInput { text: text.into(), scope: Scope::Global, tags: vec![] }, Author::User));
        assert!(message.contains(kind) && message.contains("secret"), "{text}: {message}");
        for word in text.split_whitespace().filter(|w| w.len() >= 12) {
            assert!(!message.contains(word), "the message echoes the secret: {message}");
        }
        invalid(memory.save_note(&ava, text, Author::User));
        invalid(memory.scratch_write(&conv, text, by_agent(&ava, "ava")));
        invalid(memory.scratch_add(ScratchScope::Global, text));
    }
    invalid(memory.save(
        FactInput {
            text: "fine".into(),
            scope: Scope::Global,
            tags: vec!["ghp_0123456789abcdefghijABCDEFGHIJklmnop".into()],
        },
        Author::User,
    ));
    assert!(memory.list(&FactFilter { include_deleted: true, ..Default::default() }).unwrap().is_empty());
}

#[test]
fn ordinary_prose_hashes_uuids_and_urls_are_not_secrets() {
    let dir = TempDataDir::new();
    let engine = open(&dir);
    let fine = [
        "The login bug was fixed in 4d66fde and released in 9c1e0b2a7f3d.",
        "Run id 550e8400-e29b-41d4-a716-446655440000 failed at 3am.",
        "Docs: https://example.com/docs/setup?lang=en#install and http://localhost:8080/path",
        "Use the API key from the keychain; never paste the token into chat.",
        "The password policy: at least 12 characters.",
        "Bearer tokens expire after an hour.",
        "sk-learn is a typo of scikit-learn; monkey=banana is a joke.",
        "key: the blue one in the drawer",
        "AKIA prefixes mark AWS access key ids.",
        "-----BEGIN CERTIFICATE----- is a public certificate header.",
        "Ticket ABCDEFGHIJKLMNOPQRSTUV is the epic; version=1.2.3-beta.4",
        "Secret Santa is on Friday; token ring networks are old.",
    ];
    for text in fine {
        global(&engine, text, &[]);
    }
}

#[test]
fn fts_syntax_in_queries_never_errors() {
    let dir = TempDataDir::new();
    let engine = open(&dir);
    let ava = agent(&engine, "ava");
    let fact = global(&engine, "Quotes and stars: the NEAR rule and col values.", &["syntax"]);
    let long = "near(\"x\" * ^ col: ) AND OR NOT 🦀 ".repeat(400);
    assert!(long.len() > 10_000);
    let queries = [
        "\"",
        "\"unbalanced",
        "*",
        "star*",
        "NEAR(",
        "NEAR(a b, 2)",
        "AND OR NOT",
        "AND",
        "col:quotes",
        "text:stars",
        "^quotes",
        "(((",
        "quotes)",
        "-quotes",
        "+",
        "🦀🦀",
        "'; DROP TABLE memory_facts; --",
        "{text tags}: x",
        "a OR",
        "\0",
        long.as_str(),
    ];
    for query in queries {
        for visible in [Visibility::Everything, Visibility::Agent { agent_id: ava.clone() }] {
            engine.memory().search(query, &visible, 5).unwrap_or_else(|e| panic!("{query:?}: {e}"));
        }
        engine.memory().list(&FactFilter { query: Some(query.into()), ..Default::default() }).unwrap();
    }
    // Syntax words are plain words: "near" and "col" find the fact that has them.
    assert_eq!(top_ids(&engine, "NEAR(", &Visibility::Everything), [fact.id.clone()]);
    assert_eq!(top_ids(&engine, "col:", &Visibility::Everything), [fact.id.clone()]);
    assert_eq!(top_ids(&engine, "🦀 *", &Visibility::Everything), Vec::<String>::new());
}

#[test]
fn the_list_filters_by_scope_author_and_query_newest_first() {
    let dir = TempDataDir::new();
    let engine = open(&dir);
    let ava = agent(&engine, "ava");
    let memory = engine.memory();
    let by_user = global(&engine, "Parcel pickup is at the back door.", &[]);
    std::thread::sleep(std::time::Duration::from_millis(3));
    let by_ava = memory
        .save(
            FactInput {
                text: "Parcels over 20 kg need two people.".into(),
                scope: Scope::Agent { agent_id: ava.clone() },
                tags: vec![],
            },
            by_agent(&ava, "ava"),
        )
        .unwrap()
        .fact;
    let list = |f: FactFilter| ids(memory.list(&f).unwrap());
    assert_eq!(list(FactFilter::default()), [by_ava.id.clone(), by_user.id.clone()], "newest first");
    assert_eq!(list(FactFilter { author: Some("user".into()), ..Default::default() }), [by_user.id.clone()]);
    assert_eq!(list(FactFilter { author: Some(ava.clone()), ..Default::default() }), [by_ava.id.clone()]);
    assert_eq!(list(FactFilter { scope: Some(Scope::Global), ..Default::default() }), [by_user.id.clone()]);
    assert_eq!(list(FactFilter { limit: Some(1), ..Default::default() }), [by_ava.id.clone()]);
    // Search as you type: the last word matches as a prefix; "door" ranks the pickup fact first.
    assert_eq!(list(FactFilter { query: Some("parc".into()), ..Default::default() }).len(), 2);
    assert_eq!(list(FactFilter { query: Some("back doo".into()), ..Default::default() }), [by_user.id.clone()]);
    assert_eq!(list(FactFilter { query: Some("?!".into()), ..Default::default() }), Vec::<String>::new());
    for i in 0..205 {
        global(&engine, &format!("Filler {i}."), &[]);
    }
    assert_eq!(list(FactFilter::default()).len(), 100);
    assert_eq!(list(FactFilter { limit: Some(5_000), ..Default::default() }).len(), 200);
}

#[test]
fn citations_record_each_fact_and_run_once() {
    let dir = TempDataDir::new();
    let engine = open(&dir);
    let (ava, bo) = (agent(&engine, "ava"), agent(&engine, "bo"));
    let (a, b) = (global(&engine, "Fact A.", &[]), global(&engine, "Fact B.", &[]));
    let memory = engine.memory();
    memory.cite("run-1", &ava, &[a.id.clone(), b.id.clone()]).unwrap();
    memory.cite("run-1", &ava, &[a.id.clone()]).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(3));
    memory.cite("run-2", &bo, &[a.id.clone()]).unwrap();
    let citations = memory.detail(&a.id).unwrap().citations;
    let seen: Vec<(&str, &str)> = citations.iter().map(|c| (c.run_id.as_str(), c.agent_handle.as_str())).collect();
    assert_eq!(seen, [("run-2", "bo"), ("run-1", "ava")], "newest first, once per run");
    assert!(matches!(memory.cite("run-3", &ava, &[b.id.clone(), "m-none".into()]), Err(Error::NotFound(_))));
    assert_eq!(memory.detail(&b.id).unwrap().citations.len(), 1, "a failed cite records nothing");
    // A citation outlives its agent.
    engine.delete_agent(&bo).unwrap();
    assert_eq!(memory.detail(&a.id).unwrap().citations.len(), 2);
}

#[test]
fn saved_notes_are_each_agents_own_newest_first() {
    let dir = TempDataDir::new();
    let engine = open(&dir);
    let (ava, bo) = (agent(&engine, "ava"), agent(&engine, "bo"));
    let memory = engine.memory();
    let first = memory.save_note(&ava, "Prefers short answers.", by_agent(&ava, "ava")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(3));
    let second = memory.save_note(&ava, "Works in Berlin time.", Author::User).unwrap();
    memory.save_note(&bo, "Bo's own.", Author::User).unwrap();
    assert_eq!(memory.save_note(&ava, " Prefers short answers. ", Author::User).unwrap(), first, "duplicate");
    let notes = memory.notes(&ava, 8).unwrap();
    assert_eq!(notes.iter().map(|n| n.id.as_str()).collect::<Vec<_>>(), [second.id.as_str(), first.id.as_str()]);
    assert_eq!(memory.notes(&ava, 1).unwrap(), [second.clone()]);
    invalid(memory.save_note(&ava, &"x".repeat(2_001), Author::User));
    invalid(memory.save_note(&ava, "", Author::User));
    assert!(matches!(memory.save_note("nobody", "hi", Author::User), Err(Error::NotFound(_))));
    memory.delete_note(&second.id).unwrap();
    assert_eq!(memory.notes(&ava, 8).unwrap(), [first]);
    assert!(matches!(memory.delete_note(&second.id), Err(Error::NotFound(_))));
}

#[test]
fn scratch_notes_live_in_three_scopes_and_the_user_keeps_team_and_global_ones() {
    let dir = TempDataDir::new();
    let engine = open(&dir);
    let ava = agent(&engine, "ava");
    let crew = team(&engine, "Crew", &[&ava]);
    let conv = conversation(&engine, &ava);
    let memory = engine.memory();
    let session = ScratchScope::Session { conversation_id: conv.clone() };
    let note = memory.scratch_write(&conv, "The tests need Postgres 16.", by_agent(&ava, "ava")).unwrap();
    assert_eq!(note.scope, session);
    invalid(memory.scratch_write("no-such-conversation", "x", by_agent(&ava, "ava")));
    invalid(memory.scratch_add(session.clone(), "The user cannot write a session note."));
    invalid(memory.scratch_add(ScratchScope::Team { team_id: "nope".into() }, "x"));
    let team_note = memory.scratch_add(ScratchScope::Team { team_id: crew.clone() }, "Ship on Thursdays.").unwrap();
    let global_note = memory.scratch_add(ScratchScope::Global, "Be kind.").unwrap();
    assert_eq!(team_note.author, Author::User);
    invalid(memory.scratch_edit(&note.id, "Edited by the user."));
    let edited = memory.scratch_edit(&team_note.id, "Ship on Wednesdays.").unwrap();
    assert_eq!(edited.text, "Ship on Wednesdays.");
    invalid(memory.scratch_edit(&team_note.id, &"y".repeat(2_001)));
    assert_eq!(memory.scratch_list(&ScratchScope::Team { team_id: crew }).unwrap(), [edited]);
    assert_eq!(memory.scratch_list(&session).unwrap(), [note.clone()]);
    assert_eq!(memory.scratch_all(10).unwrap().len(), 3);
    memory.scratch_delete(&note.id).unwrap();
    memory.scratch_delete(&global_note.id).unwrap();
    assert!(matches!(memory.scratch_delete(&note.id), Err(Error::NotFound(_))));
    assert_eq!(memory.scratch_all(10).unwrap().len(), 1);
}

#[test]
fn a_promotion_copies_the_exact_note_once_the_user_approves() {
    let dir = TempDataDir::new();
    let engine = open(&dir);
    let (ava, bo) = (agent(&engine, "ava"), agent(&engine, "bo"));
    let crew = team(&engine, "Crew", &[&ava]);
    let (conv, bos_conv) = (conversation(&engine, &ava), conversation(&engine, &bo));
    let memory = engine.memory();
    let by = by_agent(&ava, "ava");
    let note = memory.scratch_write(&conv, "Port 5433 is the test database.", by.clone()).unwrap();
    let to_team = ScratchScope::Team { team_id: crew.clone() };

    invalid(memory.request_promotion(&bos_conv, &note.id, to_team.clone(), by_agent(&bo, "bo")));
    invalid(memory.request_promotion(&conv, &note.id, ScratchScope::Session { conversation_id: bos_conv }, by.clone()));
    invalid(memory.request_promotion(&conv, &note.id, ScratchScope::Team { team_id: "nope".into() }, by.clone()));
    assert!(matches!(
        memory.request_promotion(&conv, "s-none", ScratchScope::Global, by.clone()),
        Err(Error::NotFound(_))
    ));

    let asked = memory.request_promotion(&conv, &note.id, to_team.clone(), by.clone()).unwrap();
    assert_eq!(
        (asked.status, asked.text.as_str(), &asked.to),
        (PromotionStatus::Pending, note.text.as_str(), &to_team)
    );
    assert_eq!(memory.request_promotion(&conv, &note.id, to_team.clone(), by.clone()).unwrap(), asked, "asked again");
    let to_global = memory.request_promotion(&conv, &note.id, ScratchScope::Global, by.clone()).unwrap();
    assert_ne!(to_global.id, asked.id);
    assert!(memory.scratch_list(&to_team).unwrap().is_empty(), "nothing copied before approval");

    let approved = memory.decide_promotion(&asked.id, true).unwrap();
    assert_eq!(approved.status, PromotionStatus::Approved);
    let copies = memory.scratch_list(&to_team).unwrap();
    assert_eq!(copies.len(), 1);
    assert_eq!(
        (copies[0].text.as_str(), copies[0].promoted_from.as_deref()),
        (note.text.as_str(), Some(note.id.as_str()))
    );
    assert_eq!(approved.copy_id.as_deref(), Some(copies[0].id.as_str()));
    assert_eq!(
        memory.scratch_list(&ScratchScope::Session { conversation_id: conv.clone() }).unwrap(),
        [note.clone()],
        "original untouched"
    );
    invalid(memory.decide_promotion(&asked.id, false));

    let rejected = memory.decide_promotion(&to_global.id, false).unwrap();
    assert_eq!((rejected.status, rejected.copy_id.as_ref()), (PromotionStatus::Rejected, None));
    assert!(memory.scratch_list(&ScratchScope::Global).unwrap().is_empty());
    assert!(matches!(memory.decide_promotion("p-none", true), Err(Error::NotFound(_))));

    let pending = memory.request_promotion(&conv, &note.id, ScratchScope::Global, by).unwrap();
    let listed: Vec<(String, PromotionStatus)> =
        memory.promotions(10).unwrap().into_iter().map(|p| (p.id, p.status)).collect();
    assert_eq!(listed[0], (pending.id, PromotionStatus::Pending), "pending first");
    assert_eq!(listed.len(), 3);
    assert_eq!(memory.promotions(1).unwrap().len(), 1);
}

#[test]
fn the_projection_takes_session_then_team_then_global_whole_notes_within_the_budget() {
    let dir = TempDataDir::new();
    let engine = open(&dir);
    let ava = agent(&engine, "ava");
    let crew = team(&engine, "Crew", &[&ava]);
    let conv = conversation(&engine, &ava);
    let memory = engine.memory();
    let pause = || std::thread::sleep(std::time::Duration::from_millis(3));
    let global_old = memory.scratch_add(ScratchScope::Global, "G old.").unwrap(); // 6
    pause();
    let team_big = memory.scratch_add(ScratchScope::Team { team_id: crew.clone() }, &"T".repeat(50)).unwrap();
    pause();
    let team_small = memory.scratch_add(ScratchScope::Team { team_id: crew.clone() }, "T small.").unwrap(); // 8
    pause();
    let session_old = memory.scratch_write(&conv, "S old.", by_agent(&ava, "ava")).unwrap(); // 6
    pause();
    let session_new = memory.scratch_write(&conv, "S new one.", by_agent(&ava, "ava")).unwrap(); // 10
    pause();
    let global_new = memory.scratch_add(ScratchScope::Global, "G newest!!").unwrap(); // 10
    memory.scratch_add(ScratchScope::Team { team_id: "other".into() }, "x").unwrap_err();

    let texts = |budget| -> Vec<String> {
        memory.scratch_projection(&conv, Some(&crew), budget).unwrap().into_iter().map(|n| n.id).collect()
    };
    let all = [&session_new, &session_old, &team_small, &team_big, &global_new, &global_old].map(|n| n.id.clone());
    assert_eq!(texts(1_000), all);
    // 10 + 6 + 8 = 24; the 50-character team note does not fit in 30, the 6-character global
    // one does (the 10-character global one does not).
    assert_eq!(texts(30), [&session_new, &session_old, &team_small, &global_old].map(|n| n.id.clone()));
    assert_eq!(texts(0), Vec::<String>::new());
    let without_team: Vec<String> =
        memory.scratch_projection(&conv, None, 1_000).unwrap().into_iter().map(|n| n.id).collect();
    assert_eq!(without_team, [&session_new, &session_old, &global_new, &global_old].map(|n| n.id.clone()));
}
