//! Teams through the engine as the shell opens it: they survive a restart, and deleting an
//! agent (through the engine, which stops its run first) leaves its teams working.

mod common;

use clawboo_engine::agents::RuntimeKind;
use clawboo_engine::teams::{NewRoom, NewTeam, GENERAL_ROOM_NAME};
use clawboo_engine::{Engine, EngineEvent};
use common::Fixture;

fn agent(engine: &Engine, handle: &str) -> String {
    common::add_agent(engine, common::new_agent(handle, RuntimeKind::Native))
}

#[test]
fn teams_rooms_and_rules_survive_a_restart() {
    let fixture = Fixture::new();
    let (before, a, b) = {
        let engine = fixture.open();
        let (a, b) = (agent(&engine, "ava"), agent(&engine, "bo"));
        let teams = engine.teams();
        let team = teams
            .create(NewTeam {
                name: "Research".into(),
                member_ids: vec![a.clone(), b.clone()],
                leader_id: Some(b.clone()),
            })
            .unwrap();
        teams.add_rule(&team.id, "Cite your sources.").unwrap();
        teams.add_rule(&team.id, "Answer in English.").unwrap();
        teams.set_brief(&team.id, "Find out what users need.").unwrap();
        teams.set_about_you(&team.id, "I run a small bakery.").unwrap();
        teams.set_member_role(&team.id, &a, "researcher").unwrap();
        teams
            .create_room(&team.id, NewRoom { name: "Deep dive".into(), member_ids: vec![a.clone()], leader_id: None })
            .unwrap();
        teams.set_archived(&team.id, true).unwrap();
        (teams.get(&team.id).unwrap(), a, b)
    };
    let engine = fixture.open();
    let after = engine.teams().get(&before.id).unwrap();
    assert_eq!(after, before, "everything as it was");
    assert!(after.archived);
    assert_eq!(
        after.rules.iter().map(|r| r.text.as_str()).collect::<Vec<_>>(),
        ["Cite your sources.", "Answer in English."]
    );
    assert_eq!(after.rooms.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(), [GENERAL_ROOM_NAME, "Deep dive"]);
    assert_eq!(after.rooms[1].member_ids, [a.as_str()]);
    assert_eq!(after.leader_id, Some(b));
    assert_eq!(engine.teams().list().unwrap(), [before]);
}

#[test]
fn deleting_an_agent_through_the_engine_keeps_its_teams() {
    let fixture = Fixture::new();
    let engine = fixture.open();
    let (a, b) = (agent(&engine, "ava"), agent(&engine, "bo"));
    let team = engine
        .teams()
        .create(NewTeam { name: "T".into(), member_ids: vec![a.clone(), b.clone()], leader_id: None })
        .unwrap();
    assert_eq!(team.leader_id.as_ref(), Some(&a));
    let mut events = engine.events().subscribe();
    engine.delete_agent(&a).unwrap();
    let mut heard = Vec::new();
    while let Ok(event) = events.try_recv() {
        heard.push(event);
    }
    assert!(heard.contains(&EngineEvent::TeamsChanged), "its teams changed too: {heard:?}");
    let team = engine.teams().get(&team.id).unwrap();
    assert_eq!(team.member_ids(), [b.as_str()]);
    assert_eq!(team.leader_id.as_ref(), Some(&b));
    assert_eq!(team.general().unwrap().leader_id.as_ref(), Some(&b));

    drop(engine);
    let engine = fixture.open();
    assert_eq!(engine.teams().get(&team.id).unwrap(), team, "and so after a restart");
}
