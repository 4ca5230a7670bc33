//! Ranking, what each agent sees, related facts, FTS syntax in queries, the Memory view's list.

use super::*;

#[test]
fn search_ranks_facts_matching_more_and_rarer_words_first() {
    let fixture = Fixture::new();
    let engine = fixture.open();
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
    let fixture = Fixture::new();
    let engine = fixture.open();
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
    let fixture = Fixture::new();
    let engine = fixture.open();
    let (ava, bo) = (agent(&engine, "ava"), agent(&engine, "bo"));
    let (ours, theirs) = (add_team(&engine, "Ours", &[&ava]), add_team(&engine, "Theirs", &[&bo]));
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
    let fixture = Fixture::new();
    let engine = fixture.open();
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
    let fixture = Fixture::new();
    let engine = fixture.open();
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
    let fixture = Fixture::new();
    let engine = fixture.open();
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
fn fts_syntax_in_queries_never_errors() {
    let fixture = Fixture::new();
    let engine = fixture.open();
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
    let fixture = Fixture::new();
    let engine = fixture.open();
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
