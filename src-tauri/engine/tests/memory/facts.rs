//! Ids, history, duplicates, size and secret checks, citations.

use super::*;

#[test]
fn ids_are_short_and_never_issued_twice_even_after_deletes() {
    let fixture = Fixture::new();
    let engine = fixture.open();
    let ava = agent(&engine, "ava");
    let crew = add_team(&engine, "Crew", &[&ava]);
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
    let fixture = Fixture::new();
    let engine = fixture.open();
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
    let fixture = Fixture::new();
    let engine = fixture.open();
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
    let fixture = Fixture::new();
    let engine = fixture.open();
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
    let fixture = Fixture::new();
    let engine = fixture.open();
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
    let fixture = Fixture::new();
    let engine = fixture.open();
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
fn citations_record_each_fact_and_run_once() {
    let fixture = Fixture::new();
    let engine = fixture.open();
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
