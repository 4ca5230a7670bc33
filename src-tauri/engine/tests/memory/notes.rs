//! Saved notes, scratch notes, promotions and the projection an agent gets.

use super::*;

#[test]
fn saved_notes_are_each_agents_own_newest_first() {
    let fixture = Fixture::new();
    let engine = fixture.open();
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
    let fixture = Fixture::new();
    let engine = fixture.open();
    let ava = agent(&engine, "ava");
    let crew = add_team(&engine, "Crew", &[&ava]);
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
    let fixture = Fixture::new();
    let engine = fixture.open();
    let (ava, bo) = (agent(&engine, "ava"), agent(&engine, "bo"));
    let crew = add_team(&engine, "Crew", &[&ava]);
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
    let fixture = Fixture::new();
    let engine = fixture.open();
    let ava = agent(&engine, "ava");
    let crew = add_team(&engine, "Crew", &[&ava]);
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
