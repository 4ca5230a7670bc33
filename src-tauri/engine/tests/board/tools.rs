//! The agents' Board tools, as the tools bridge calls them (arguments checked first): the
//! caller is the token's agent, `board_list` is scoped to its team (or to its own cards outside
//! a team), and only its own cards can be updated.

use clawboo_engine::board::{ActivityKind, Actor, Card, CardStatus, CommentKind};
use clawboo_engine::tools::specs::BOARD_TOOLS;
use clawboo_engine::tools::{board as tools, Caller, ToolCall, ToolName};
use clawboo_engine::Engine;
use serde_json::{json, Value};

use super::{agent, common, new_card, Fixture};

struct World {
    _fixture: Fixture,
    engine: Engine,
    ada: String,
    bo: String,
    research: String,
}

fn world() -> World {
    let fixture = Fixture::new();
    let engine = fixture.open();
    let (ada, bo) = (agent(&engine, "ada"), agent(&engine, "bo"));
    let research = common::add_team(&engine, "Research", &[&ada, &bo]);
    World { _fixture: fixture, engine, ada, bo, research }
}

impl World {
    fn caller(&self, agent_id: &str, handle: &str, team_id: &str) -> Caller {
        Caller {
            run_id: format!("run-{handle}"),
            agent_id: agent_id.into(),
            agent_handle: handle.into(),
            team_id: team_id.into(),
            room_id: String::new(),
            conversation_id: "conversation".into(),
            tools: BOARD_TOOLS.to_vec(),
        }
    }

    /// A call as the bridge makes it: arguments checked, then run.
    fn call(&self, caller: &Caller, tool: ToolName, args: Value) -> Result<String, String> {
        let board = self.engine.board();
        let done = match ToolCall::parse(tool, args)? {
            ToolCall::BoardList(args) => tools::list(board, caller, args),
            ToolCall::BoardUpdate(args) => tools::update(board, caller, args),
            ToolCall::BoardComment(args) => tools::comment(board, caller, args),
            other => panic!("{} is not a Board tool", other.tool().as_str()),
        };
        done.map_err(|e| e.to_string())
    }

    fn card(&self, title: &str, assignee: Option<&str>, team: Option<&str>) -> Card {
        let mut new = new_card(title);
        new.assignee_id = assignee.map(str::to_owned);
        new.team_id = team.map(str::to_owned);
        self.engine.board().create(Actor::User, new).unwrap()
    }
}

#[test]
fn board_list_shows_the_team_in_a_team_and_the_callers_cards_outside_one() {
    let w = world();
    let mine = w.card("Research pricing", Some(&w.ada), Some(&w.research));
    let teammates = w.card("Draft the brief", Some(&w.bo), Some(&w.research));
    w.card("Someone else's", None, None);
    let loose = w.card("Loose end", Some(&w.ada), None);
    let done = w.card("Old news", Some(&w.ada), Some(&w.research));
    w.engine.board().move_card(Actor::User, &done.id, CardStatus::Cancelled, None, None).unwrap();
    let mut blocked = new_card("Waits");
    blocked.team_id = Some(w.research.clone());
    blocked.depends_on = vec![mine.id.clone()];
    w.engine.board().create(Actor::User, blocked).unwrap();

    let in_team = w.call(&w.caller(&w.ada, "ada", &w.research), ToolName::BoardList, json!({})).unwrap();
    let lines: Vec<&str> = in_team.lines().skip(1).collect();
    assert_eq!(
        lines,
        [
            format!("#{} [To do] Research pricing — @ada", mine.number),
            format!("#{} [To do] Draft the brief — @bo", teammates.number),
            format!("#6 [To do] Waits — unassigned (waits on #{})", mine.number),
        ],
        "{in_team}"
    );
    assert!(in_team.starts_with("Cards on your team's board"), "{in_team}");

    let alone = w.call(&w.caller(&w.ada, "ada", ""), ToolName::BoardList, json!({})).unwrap();
    let lines: Vec<&str> = alone.lines().skip(1).collect();
    assert_eq!(
        lines,
        [
            format!("#{} [To do] Research pricing — @ada", mine.number),
            format!("#{} [To do] Loose end — @ada", loose.number)
        ]
    );
    let cancelled = w.call(&w.caller(&w.ada, "ada", ""), ToolName::BoardList, json!({"status": "cancelled"})).unwrap();
    assert!(cancelled.contains("[Cancelled] Old news"), "{cancelled}");
    let none = w.call(&w.caller(&w.bo, "bo", ""), ToolName::BoardList, json!({"status": "done"})).unwrap();
    assert_eq!(none, "No cards in Done assigned to you.");
}

#[test]
fn an_agent_updates_only_its_own_cards_through_the_table_of_moves() {
    let w = world();
    let adas = w.card("Research pricing", Some(&w.ada), Some(&w.research));
    let bos = w.card("Draft the brief", Some(&w.bo), Some(&w.research));
    let ada = w.caller(&w.ada, "ada", &w.research);
    let n = |c: &Card| c.number;

    let err = w.call(&ada, ToolName::BoardUpdate, json!({"card": n(&bos), "status": "done"})).unwrap_err();
    assert!(err.contains("not assigned to you"), "{err}");
    assert_eq!(w.engine.board().get(&bos.id).unwrap().status, CardStatus::Todo, "untouched");
    let err = w.call(&ada, ToolName::BoardUpdate, json!({"card": 99, "status": "done"})).unwrap_err();
    assert!(err.contains("#99") && err.contains("not found"), "{err}");
    let err = w.call(&ada, ToolName::BoardUpdate, json!({"card": n(&adas), "status": "in_progress"})).unwrap_err();
    assert!(err.contains("one of"), "only the agent's columns: {err}");
    let err = w.call(&ada, ToolName::BoardUpdate, json!({"card": n(&adas), "status": "blocked"})).unwrap_err();
    assert!(err.contains("reason"), "{err}");
    // To do → Done is not in the table: refused, naming both columns.
    let err = w.call(&ada, ToolName::BoardUpdate, json!({"card": n(&adas), "status": "done"})).unwrap_err();
    assert!(err.contains("To do") && err.contains("Done"), "{err}");

    w.engine.board().claim(&adas.id, "run-ada").unwrap();
    let said = w
        .call(
            &ada,
            ToolName::BoardUpdate,
            json!({"card": format!("#{}", n(&adas)), "status": "in_review", "description": "Found 3 sources."}),
        )
        .unwrap();
    assert_eq!(said, format!("#{}: now in In review; description updated.", n(&adas)));
    let detail = w.engine.board().detail(&adas.id).unwrap();
    assert_eq!((detail.card.status, detail.card.description.as_str()), (CardStatus::InReview, "Found 3 sources."));
    assert_eq!(detail.card.claimed_by_run, None, "leaving In progress ended the claim");
    let actor = tools::actor(&ada);
    assert_eq!(actor, Actor::Agent { agent_id: w.ada.clone(), handle: "ada".into(), run_id: Some("run-ada".into()) });
    let moved = detail.activity.iter().find(|a| matches!(a.activity, ActivityKind::Moved { .. })).unwrap();
    assert_eq!(moved.actor, actor, "the actor is the token's agent");

    let said = w
        .call(&ada, ToolName::BoardUpdate, json!({"card": n(&adas), "status": "blocked", "reason": "No access"}))
        .unwrap();
    assert!(said.contains("now in Blocked"), "{said}");
    assert_eq!(w.engine.board().get(&adas.id).unwrap().blocked_reason.as_deref(), Some("No access"));
}

#[test]
fn an_agent_comments_on_its_teams_cards_and_its_own() {
    let w = world();
    let on_team = w.card("Draft the brief", Some(&w.bo), Some(&w.research));
    let elsewhere = w.card("Not ours", None, None);
    let assigned = w.card("Loose end", Some(&w.ada), None);
    let ada = w.caller(&w.ada, "ada", &w.research);

    assert_eq!(
        w.call(&ada, ToolName::BoardComment, json!({"card": on_team.number, "text": "I can help."})).unwrap(),
        format!("Commented on #{}.", on_team.number)
    );
    w.call(&w.caller(&w.ada, "ada", ""), ToolName::BoardComment, json!({"card": assigned.number, "text": "Mine."}))
        .unwrap();
    let err = w.call(&ada, ToolName::BoardComment, json!({"card": elsewhere.number, "text": "Hi"})).unwrap_err();
    assert!(err.contains("not on your team's board or assigned to you"), "{err}");
    let err = w.call(&ada, ToolName::BoardComment, json!({"card": on_team.number, "text": "x", "as": "user"}));
    assert!(err.unwrap_err().contains("unknown argument"));

    let comments = w.engine.board().detail(&on_team.id).unwrap().comments;
    assert_eq!(comments.len(), 1);
    assert_eq!(comments[0].author, tools::actor(&ada));
    assert_eq!((comments[0].kind, comments[0].run_id.as_deref()), (CommentKind::Comment, Some("run-ada")));
    assert!(w.engine.board().detail(&elsewhere.id).unwrap().comments.is_empty());
}
