use super::*;
use clawboo_agents::{NewAgent, RuntimeKind, Workspaces};
use clawboo_vocab::error::ErrorCode;
use clawboo_vocab::ApprovalPolicy;

struct Fixture {
    _dir: tempfile::TempDir,
    agents: Arc<Agents>,
    teams: Teams,
    events: EventBus,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(&dir.path().join("db.sqlite")).unwrap());
    let events = EventBus::new();
    let workspaces = Workspaces::new(dir.path().join("agents")).unwrap();
    let agents = Arc::new(Agents::new(store.clone(), workspaces, events.clone()));
    Fixture { teams: Teams::new(store, agents.clone(), events.clone()), agents, events, _dir: dir }
}

impl Fixture {
    fn agent(&self, handle: &str) -> String {
        self.agents
            .create(NewAgent {
                name: handle.to_uppercase(),
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

    fn team(&self, name: &str, members: &[&String]) -> Team {
        self.teams.create(new_team(name, members, None)).unwrap()
    }
}

fn new_team(name: &str, members: &[&String], leader: Option<&String>) -> NewTeam {
    NewTeam {
        name: name.into(),
        member_ids: members.iter().map(|s| s.to_string()).collect(),
        leader_id: leader.cloned(),
    }
}

fn new_room(name: &str, members: &[&String], leader: Option<&String>) -> NewRoom {
    NewRoom {
        name: name.into(),
        member_ids: members.iter().map(|s| s.to_string()).collect(),
        leader_id: leader.cloned(),
    }
}

fn ids(members: &[&String]) -> Vec<String> {
    members.iter().map(|s| s.to_string()).collect()
}

#[track_caller]
fn assert_invalid<T: std::fmt::Debug>(result: Result<T>, needle: &str) {
    let err = result.unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput, "{err}");
    assert!(err.to_string().contains(needle), "“{err}” should mention “{needle}”");
}

#[test]
fn a_new_team_has_its_members_a_general_room_and_the_first_member_as_leader() {
    let f = fixture();
    let (a, b) = (f.agent("ava"), f.agent("bo"));
    let team = f.team("  Research  ", &[&b, &a]);
    assert_eq!(team.name, "Research");
    assert_eq!(team.member_ids(), [b.clone(), a.clone()], "in the order given");
    assert_eq!(team.leader_id.as_ref(), Some(&b));
    assert!(!team.archived && team.rules.is_empty() && team.brief.is_empty() && team.about_you.is_empty());
    assert_eq!(team.rooms.len(), 1);
    let general = &team.rooms[0];
    assert!(general.is_general);
    assert_eq!(general.name, GENERAL_ROOM_NAME);
    assert_eq!(general.member_ids, team.member_ids());
    assert_eq!(general.leader_id, team.leader_id);
    assert_eq!(f.teams.get(&team.id).unwrap(), team);

    let led = f.teams.create(new_team("Led", &[&a, &b], Some(&b))).unwrap();
    assert_eq!(led.leader_id.as_ref(), Some(&b));
}

#[test]
fn creating_a_team_checks_name_members_and_leader() {
    let f = fixture();
    let (a, b, c) = (f.agent("ava"), f.agent("bo"), f.agent("cy"));
    assert_invalid(f.teams.create(new_team(" ", &[&a], None)), "needs a name");
    assert_invalid(f.teams.create(new_team(&"x".repeat(81), &[&a], None)), "at most 80");
    f.teams.create(new_team(&"é".repeat(80), &[&a], None)).expect("80 characters (160 bytes) fit");
    assert_invalid(f.teams.create(new_team("T", &[], None)), "at least one member");
    assert_invalid(f.teams.create(new_team("T", &[&a, &b, &a], None)), "@ava is listed twice");
    assert_invalid(f.teams.create(new_team("T", &[&a], Some(&c))), "@cy is not a member");
    let missing = "no-such-agent".to_string();
    assert_eq!(f.teams.create(new_team("T", &[&a, &missing], None)).unwrap_err().code(), ErrorCode::NotFound);
    assert_eq!(f.teams.list().unwrap().len(), 1, "nothing kept of the refused teams");
}

#[test]
fn list_is_by_name_with_archived_teams_included() {
    let f = fixture();
    let a = f.agent("ava");
    for name in ["zeta", "Alpha", "beta"] {
        f.team(name, &[&a]);
    }
    let beta = f.teams.list().unwrap().into_iter().find(|t| t.name == "beta").unwrap();
    let archived = f.teams.set_archived(&beta.id, true).unwrap();
    assert!(archived.archived);
    let names: Vec<_> = f.teams.list().unwrap().into_iter().map(|t| (t.name, t.archived)).collect();
    assert_eq!(names, [("Alpha".into(), false), ("beta".into(), true), ("zeta".into(), false)]);
    assert!(!f.teams.set_archived(&beta.id, false).unwrap().archived);
}

#[test]
fn an_agent_may_be_in_several_teams() {
    let f = fixture();
    let (a, b) = (f.agent("ava"), f.agent("bo"));
    let one = f.team("One", &[&a]);
    let two = f.team("Two", &[&a, &b]);
    let of_a: Vec<_> = f.teams.teams_of(&a).unwrap().into_iter().map(|t| t.id).collect();
    assert_eq!(of_a, [one.id, two.id.clone()]);
    assert_eq!(f.teams.teams_of(&b).unwrap()[0].id, two.id);
}

#[test]
fn rename_checks_the_name_and_unknown_teams_are_not_found() {
    let f = fixture();
    let a = f.agent("ava");
    let team = f.team("Old", &[&a]);
    let renamed = f.teams.rename(&team.id, " New ").unwrap();
    assert_eq!(renamed.name, "New");
    assert!(renamed.updated_at >= team.updated_at);
    assert_invalid(f.teams.rename(&team.id, ""), "needs a name");
    assert_eq!(f.teams.get(&team.id).unwrap().name, "New");
    for err in [
        f.teams.get("nope").unwrap_err(),
        f.teams.rename("nope", "x").unwrap_err(),
        f.teams.delete("nope").unwrap_err(),
        f.teams.room("nope").unwrap_err(),
    ] {
        assert_eq!(err.code(), ErrorCode::NotFound, "{err}");
    }
}

#[test]
fn delete_removes_the_team_its_rules_and_rooms_but_not_the_agents() {
    let f = fixture();
    let (a, b) = (f.agent("ava"), f.agent("bo"));
    let team = f.team("Gone", &[&a, &b]);
    f.teams.add_rule(&team.id, "Be brief.").unwrap();
    let room = f.teams.create_room(&team.id, new_room("Side", &[&b], None)).unwrap();
    f.teams.delete(&team.id).unwrap();
    assert_eq!(f.teams.get(&team.id).unwrap_err().code(), ErrorCode::NotFound);
    assert_eq!(f.teams.room(&room.id).unwrap_err().code(), ErrorCode::NotFound);
    assert_eq!(f.agents.list().unwrap().len(), 2);
}

#[test]
fn set_members_keeps_roles_prunes_rooms_and_replaces_a_leader_who_left() {
    let f = fixture();
    let (a, b, c, d) = (f.agent("ava"), f.agent("bo"), f.agent("cy"), f.agent("di"));
    let team = f.team("T", &[&a, &b, &c]);
    f.teams.set_member_role(&team.id, &c, "reviews the code").unwrap();
    let room = f.teams.create_room(&team.id, new_room("Side", &[&b, &c], Some(&b))).unwrap();

    let team = f.teams.set_members(&team.id, ids(&[&c, &d])).unwrap();
    assert_eq!(team.member_ids(), [c.clone(), d.clone()]);
    assert_eq!(team.members[0].role, "reviews the code", "a member who stays keeps the role");
    assert_eq!(team.members[1].role, "");
    assert_eq!(team.leader_id.as_ref(), Some(&c), "ava left: the first member leads");
    let (_, room) = f.teams.room(&room.id).unwrap();
    assert_eq!(room.member_ids, [c.as_str()], "bo left the team, so the room too");
    assert_eq!(room.leader_id.as_ref(), Some(&c));
    assert_eq!(team.general().unwrap().member_ids, team.member_ids());

    // ava comes back: she does not silently lead again.
    let team = f.teams.set_members(&team.id, ids(&[&d, &a, &c])).unwrap();
    assert_eq!(team.leader_id.as_ref(), Some(&d));

    assert_invalid(f.teams.set_members(&team.id, vec![]), "at least one member");
    assert_invalid(f.teams.set_members(&team.id, ids(&[&a, &a])), "listed twice");
    assert_eq!(f.teams.get(&team.id).unwrap().member_ids(), [d, a, c], "refused changes lose nothing");
}

#[test]
fn the_leader_must_be_a_member_and_roles_belong_to_members() {
    let f = fixture();
    let (a, b, c) = (f.agent("ava"), f.agent("bo"), f.agent("cy"));
    let team = f.team("T", &[&a, &b]);
    assert_eq!(f.teams.set_leader(&team.id, &b).unwrap().leader_id.as_ref(), Some(&b));
    assert_invalid(f.teams.set_leader(&team.id, &c), "@cy is not a member of this team");
    assert_invalid(f.teams.set_member_role(&team.id, &c, "x"), "@cy is not a member");
    assert_invalid(f.teams.set_member_role(&team.id, &a, &"r".repeat(MAX_ROLE_CHARS + 1)), "at most 200");
    let team = f.teams.set_member_role(&team.id, &a, "  researcher ").unwrap();
    assert_eq!(team.members[0].role, "researcher");
    assert_eq!(team.leader_id.as_ref(), Some(&b));
}

#[test]
fn rules_share_a_budget_of_4000_characters_counted_as_characters() {
    let f = fixture();
    let a = f.agent("ava");
    let team = f.team("T", &[&a]);
    assert_invalid(f.teams.add_rule(&team.id, "   "), "needs some text");

    // 3,000 two-byte characters, then 1,000 more: exactly 4,000 characters (7,000 bytes) fit.
    let first = f.teams.add_rule(&team.id, &"é".repeat(3_000)).unwrap();
    let second = f.teams.add_rule(&team.id, &format!("  {}  ", "🙂".repeat(1_000))).unwrap();
    assert_eq!(second.text.chars().count(), 1_000, "trimmed");
    let team = f.teams.get(&team.id).unwrap();
    assert_eq!(team.rules_chars(), MAX_RULES_CHARS);
    assert_eq!(team.rules.iter().map(|r| &r.id).collect::<Vec<_>>(), [&first.id, &second.id]);

    let err = f.teams.add_rule(&team.id, "x").unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    assert_eq!(
        err.to_string(),
        "Team rules have at most 4,000 characters in all; with this one they would have 4,001. Shorten or remove a rule."
    );
    assert_eq!(f.teams.get(&team.id).unwrap().rules.len(), 2, "the refused rule is not kept");

    let team = f.teams.remove_rule(&team.id, &second.id).unwrap();
    assert_eq!(team.rules.len(), 1);
    let err = f.teams.add_rule(&team.id, &"x".repeat(1_210 + 1_000)).unwrap_err();
    assert!(err.to_string().contains("would have 5,210"), "{err}");
    f.teams.add_rule(&team.id, &"x".repeat(1_000)).unwrap();
    assert_eq!(f.teams.remove_rule(&team.id, "nope").unwrap_err().code(), ErrorCode::NotFound);

    // Another team's rule cannot be removed through this team.
    let other = f.team("Other", &[&a]);
    assert_eq!(f.teams.remove_rule(&other.id, &first.id).unwrap_err().code(), ErrorCode::NotFound);
}

#[test]
fn about_you_and_the_brief_are_bounded_in_characters() {
    let f = fixture();
    let a = f.agent("ava");
    let team = f.team("T", &[&a]);
    let at_limit = "ü".repeat(MAX_ABOUT_YOU_CHARS);
    assert_eq!(f.teams.set_about_you(&team.id, &at_limit).unwrap().about_you, at_limit);
    assert_invalid(f.teams.set_about_you(&team.id, &"ü".repeat(MAX_ABOUT_YOU_CHARS + 1)), "4,000 characters");
    assert_eq!(f.teams.get(&team.id).unwrap().about_you, at_limit, "the refused text replaced nothing");
    assert_eq!(f.teams.set_about_you(&team.id, "").unwrap().about_you, "", "empty clears it");

    let brief = "b".repeat(MAX_BRIEF_CHARS);
    assert_eq!(f.teams.set_brief(&team.id, &brief).unwrap().brief, brief);
    assert_invalid(f.teams.set_brief(&team.id, &"b".repeat(MAX_BRIEF_CHARS + 1)), "8,000 characters");
}

#[test]
fn rooms_have_members_of_the_team_a_leader_and_unique_names() {
    let f = fixture();
    let (a, b, c, outsider) = (f.agent("ava"), f.agent("bo"), f.agent("cy"), f.agent("out"));
    let team = f.team("T", &[&a, &b, &c]);
    let room = f.teams.create_room(&team.id, new_room(" Design ", &[&c, &b], None)).unwrap();
    assert_eq!((room.name.as_str(), room.is_general), ("Design", false));
    assert_eq!(room.member_ids, [c.clone(), b.clone()]);
    assert_eq!(room.leader_id.as_ref(), Some(&c), "default: the first member");
    assert_eq!(room.team_id, team.id);

    assert_invalid(f.teams.create_room(&team.id, new_room("design", &[&a], None)), "already has a room");
    assert_invalid(f.teams.create_room(&team.id, new_room("GENERAL", &[&a], None)), "choose another name");
    assert_invalid(f.teams.create_room(&team.id, new_room("", &[&a], None)), "needs a name");
    assert_invalid(f.teams.create_room(&team.id, new_room("X", &[], None)), "at least one member");
    assert_invalid(f.teams.create_room(&team.id, new_room("X", &[&a, &outsider], None)), "@out is not a member");
    assert_invalid(f.teams.create_room(&team.id, new_room("X", &[&a], Some(&b))), "@bo is not a member of this room");

    let second = f.teams.create_room(&team.id, new_room("Build", &[&a, &b], Some(&b))).unwrap();
    assert_eq!(second.leader_id.as_ref(), Some(&b));
    let (owner, found) = f.teams.room(&second.id).unwrap();
    assert_eq!(owner.id, team.id);
    assert_eq!(found, second);
    // A room's read holds its team whole but that room alone (the others are not read per message).
    let whole = f.teams.get(&team.id).unwrap();
    assert_eq!(owner.rooms, std::slice::from_ref(&second));
    assert_eq!(Team { rooms: whole.rooms.clone(), ..owner }, whole);
    let names: Vec<_> = whole.rooms.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(names, ["General", "Design", "Build"], "General first, then in the order made");
    let general = &whole.rooms[0];
    let (_, found) = f.teams.room(&general.id).unwrap();
    assert_eq!(&found, general, "the General room: every member, the team's leader");
    assert_eq!(found.member_ids, whole.member_ids());

    // Another team may use the same room name.
    let other = f.team("Other", &[&a]);
    f.teams.create_room(&other.id, new_room("Design", &[&a], None)).unwrap();
}

#[test]
fn update_room_renames_and_changes_members_and_leader() {
    let f = fixture();
    let (a, b, c) = (f.agent("ava"), f.agent("bo"), f.agent("cy"));
    let team = f.team("T", &[&a, &b, &c]);
    let room = f.teams.create_room(&team.id, new_room("Side", &[&a, &b], Some(&b))).unwrap();
    f.teams.create_room(&team.id, new_room("Other", &[&a], None)).unwrap();

    let renamed =
        f.teams.update_room(&room.id, RoomPatch { name: Some("side".into()), ..RoomPatch::default() }).unwrap();
    assert_eq!(renamed.name, "side", "its own name in another case is fine");
    assert_invalid(
        f.teams.update_room(&room.id, RoomPatch { name: Some("OTHER".into()), ..RoomPatch::default() }),
        "already has a room",
    );

    let moved =
        f.teams.update_room(&room.id, RoomPatch { member_ids: Some(ids(&[&c, &a])), ..RoomPatch::default() }).unwrap();
    assert_eq!(moved.member_ids, [c.clone(), a.clone()]);
    assert_eq!(moved.leader_id.as_ref(), Some(&c), "bo left the room: the first member leads");

    let led = f.teams.update_room(&room.id, RoomPatch { leader_id: Some(a.clone()), ..RoomPatch::default() }).unwrap();
    assert_eq!(led.leader_id.as_ref(), Some(&a));
    assert_invalid(
        f.teams.update_room(&room.id, RoomPatch { leader_id: Some(b.clone()), ..RoomPatch::default() }),
        "not a member of this room",
    );
    assert_invalid(
        f.teams.update_room(
            &room.id,
            RoomPatch { member_ids: Some(ids(&[&b])), leader_id: Some(a.clone()), ..RoomPatch::default() },
        ),
        "not a member of this room",
    );
    assert_eq!(f.teams.room(&room.id).unwrap().1, led, "a refused patch changes nothing, not even in part");
    assert_eq!(f.teams.update_room("nope", RoomPatch::default()).unwrap_err().code(), ErrorCode::NotFound);
}

#[test]
fn the_general_room_cannot_be_renamed_re_membered_or_deleted() {
    let f = fixture();
    let (a, b) = (f.agent("ava"), f.agent("bo"));
    let team = f.team("T", &[&a, &b]);
    let general = team.general().unwrap().id.clone();
    assert_invalid(
        f.teams.update_room(&general, RoomPatch { name: Some("Lobby".into()), ..RoomPatch::default() }),
        "cannot be renamed",
    );
    assert_invalid(
        f.teams.update_room(&general, RoomPatch { member_ids: Some(ids(&[&a])), ..RoomPatch::default() }),
        "always has the whole team",
    );
    assert_invalid(
        f.teams.update_room(&general, RoomPatch { leader_id: Some(b.clone()), ..RoomPatch::default() }),
        "always has the whole team",
    );
    assert_invalid(f.teams.delete_room(&general), "cannot be deleted");

    // General follows the team.
    let team = f.teams.set_leader(&team.id, &b).unwrap();
    assert_eq!(team.general().unwrap().leader_id.as_ref(), Some(&b));
    let c = f.agent("cy");
    let team = f.teams.set_members(&team.id, ids(&[&a, &b, &c])).unwrap();
    assert_eq!(f.teams.room(&general).unwrap().1.member_ids, team.member_ids());
}

#[test]
fn delete_room_removes_a_named_room() {
    let f = fixture();
    let a = f.agent("ava");
    let team = f.team("T", &[&a]);
    let room = f.teams.create_room(&team.id, new_room("Side", &[&a], None)).unwrap();
    f.teams.delete_room(&room.id).unwrap();
    assert_eq!(f.teams.get(&team.id).unwrap().rooms.len(), 1);
    assert_eq!(f.teams.delete_room(&room.id).unwrap_err().code(), ErrorCode::NotFound);
    // Its name is free again.
    f.teams.create_room(&team.id, new_room("Side", &[&a], None)).unwrap();
}

#[test]
fn deleting_an_agent_leaves_its_teams_working() {
    let f = fixture();
    let (a, b, c) = (f.agent("ava"), f.agent("bo"), f.agent("cy"));
    let team = f.teams.create(new_team("T", &[&a, &b, &c], Some(&b))).unwrap();
    let room = f.teams.create_room(&team.id, new_room("Side", &[&b, &c], Some(&b))).unwrap();
    let solo = f.team("Solo", &[&b]);

    f.agents.delete(&b).unwrap();
    let team = f.teams.get(&team.id).unwrap();
    assert_eq!(team.member_ids(), [a.clone(), c.clone()]);
    assert_eq!(team.leader_id.as_ref(), Some(&a), "the leader is gone: the first member leads");
    let (_, room) = f.teams.room(&room.id).unwrap();
    assert_eq!(room.member_ids, [c.as_str()]);
    assert_eq!(room.leader_id.as_ref(), Some(&c));

    let solo = f.teams.get(&solo.id).unwrap();
    assert!(solo.members.is_empty());
    assert_eq!(solo.leader_id, None);
    assert!(solo.general().unwrap().member_ids.is_empty());
    // The user can staff it again.
    assert_eq!(f.teams.set_members(&solo.id, ids(&[&c])).unwrap().leader_id.as_ref(), Some(&c));
}

#[test]
fn every_change_publishes_teams_changed_and_refusals_publish_nothing() {
    let f = fixture();
    let (a, b) = (f.agent("ava"), f.agent("bo"));
    let mut events = f.events.subscribe();
    let mut expect_one = |what: &str| {
        let mut seen = 0;
        while let Ok(event) = events.try_recv() {
            if event == EngineEvent::TeamsChanged {
                seen += 1;
            }
        }
        assert_eq!(seen, 1, "{what}");
    };
    let team = f.team("T", &[&a, &b]);
    expect_one("create");
    f.teams.rename(&team.id, "U").unwrap();
    expect_one("rename");
    f.teams.set_archived(&team.id, true).unwrap();
    expect_one("archive");
    f.teams.set_members(&team.id, ids(&[&b, &a])).unwrap();
    expect_one("members");
    f.teams.set_leader(&team.id, &a).unwrap();
    expect_one("leader");
    f.teams.set_member_role(&team.id, &a, "lead").unwrap();
    expect_one("role");
    let rule = f.teams.add_rule(&team.id, "Cite sources.").unwrap();
    expect_one("add rule");
    f.teams.remove_rule(&team.id, &rule.id).unwrap();
    expect_one("remove rule");
    f.teams.set_brief(&team.id, "Find out.").unwrap();
    expect_one("brief");
    f.teams.set_about_you(&team.id, "I am the user.").unwrap();
    expect_one("about you");
    let room = f.teams.create_room(&team.id, new_room("R", &[&a], None)).unwrap();
    expect_one("create room");
    f.teams.update_room(&room.id, RoomPatch { name: Some("S".into()), ..RoomPatch::default() }).unwrap();
    expect_one("update room");
    f.teams.delete_room(&room.id).unwrap();
    expect_one("delete room");
    f.teams.delete(&team.id).unwrap();
    expect_one("delete");

    let _ = f.teams.create(new_team("", &[&a], None));
    let _ = f.teams.rename("nope", "x");
    assert!(events.try_recv().is_err(), "refused changes publish nothing");
}

#[test]
fn thousands_groups_digits() {
    assert_eq!(clawboo_vocab::thousands(0), "0");
    assert_eq!(clawboo_vocab::thousands(999), "999");
    assert_eq!(clawboo_vocab::thousands(4_000), "4,000");
    assert_eq!(clawboo_vocab::thousands(1_234_567), "1,234,567");
}
