//! The task runner on a real CLI: a Codex agent runs a Board card end to end against the fake
//! model server. Two facts saved first by the user reach the run; the captured request carries
//! the three tiers in order, each once (the steady tier in Codex's developer instructions, then
//! the Clawboo tools note, then the memory block with the facts' ids, then the title as the
//! message); the reply becomes the card's report, the card goes to In review, and each fact
//! lists the run as citing it.
#![cfg(unix)]

mod common;

use std::time::Duration;

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::board::{Actor, CardStatus, CommentKind, NewCard};
use clawboo_engine::context::{SectionKind, Stability};
use clawboo_engine::memory::{Author, FactInput, Scope};
use clawboo_engine::runner::StartOptions;
use clawboo_engine::runtimes::ApprovalPolicy;
use clawboo_engine::secrets::Provider;
use clawboo_testkit::{last_user_text, wait_for, Behavior, FakeModelServer};
use common::Fixture;

const LIMIT: Duration = Duration::from_secs(180);
const TITLE: &str = "Restock the greenhouse seed trays";
const DESCRIPTION: &str = "Order seed trays for the greenhouse before the spring planting.";
const REPLY: &str = "Ordered forty seed trays from the usual greenhouse supplier.";
const PERSONA: &str = "You are Gardener, who keeps the greenhouse stocked.";

/// A section's text as it appears inside a JSON string of the raw request body.
fn escaped(text: &str) -> String {
    let json = serde_json::to_string(text.trim()).unwrap();
    json[1..json.len() - 1].to_owned()
}

#[test]
fn a_codex_agent_runs_a_card_with_its_tiers_in_order_and_cites_the_facts_it_was_given() {
    let server = FakeModelServer::start_blocking(Behavior::text(REPLY));
    let Some((fixture, runtimes)) = Fixture::for_clis_on(&[RuntimeKind::Codex], &server, "sk-fake-runner") else {
        return;
    };
    let engine = fixture.open_with(runtimes);
    let agent = engine
        .agents()
        .create(NewAgent {
            name: "Gardener".into(),
            model: "gpt-5.5".into(),
            approval_policy: ApprovalPolicy::AllowAll,
            provider: Some(Provider::OpenAi),
            ..common::new_agent("gardener", RuntimeKind::Codex)
        })
        .unwrap();
    engine.agents().write_file(&agent.id, "SOUL.md", PERSONA).unwrap();
    let facts: Vec<_> = [
        "The greenhouse seed trays come from Hartley Supplies, ordered by email.",
        "Seed trays for the greenhouse are the 40-cell kind.",
    ]
    .into_iter()
    .map(|text| {
        let input = FactInput { text: text.into(), scope: Scope::Global, tags: vec![] };
        engine.memory().save(input, Author::User).unwrap().fact
    })
    .collect();
    let card = engine
        .board()
        .create(
            Actor::User,
            NewCard {
                title: TITLE.into(),
                description: DESCRIPTION.into(),
                assignee_id: Some(agent.id.clone()),
                team_id: None,
                status: None,
                priority: None,
                depends_on: vec![],
                check_command: None,
                project_folder: None,
            },
        )
        .unwrap();

    let run_id = engine.runner().start(&card.id, StartOptions::default()).unwrap().run_id;
    let done = wait_for("the card to leave In progress", LIMIT, || {
        let card = engine.board().get(&card.id).unwrap();
        (card.status != CardStatus::InProgress).then_some(card)
    });
    assert_eq!(
        done.status,
        CardStatus::InReview,
        "{:?}\n{:?}",
        done.blocked_reason,
        engine.chat().run_activity(&run_id).unwrap()
    );

    // The run's one model request: the one whose message is the title.
    let requests: Vec<_> = server
        .model_requests()
        .into_iter()
        .filter(|r| last_user_text(&r.body).is_some_and(|(text, _)| text.contains(TITLE)))
        .collect();
    assert_eq!(requests.len(), 1, "one model turn, a final text");
    let raw = &requests[0].raw_body;
    assert_eq!(requests[0].path, "/v1/responses");

    let seen = engine.runner().run_context(&run_id).unwrap();
    let kinds: Vec<_> = seen.sections.iter().map(|s| s.kind).collect();
    assert_eq!(
        kinds,
        [
            SectionKind::Persona,
            SectionKind::Task,
            SectionKind::HowToWork,
            SectionKind::ToolsNote,
            SectionKind::Memory,
            SectionKind::Message
        ],
        // MEMORY.md and BOOTSTRAP.md still hold Clawboo's starting text: neither the pointer nor
        // the reference is sent (`FileStatus::Unedited`).
        "persona, task, how to work; tools note; memory; the title"
    );
    let system = seen.system_text.clone().expect("Codex takes the steady tier as developer instructions");
    assert!(system.contains(PERSONA), "{system}");
    assert!(system.contains(&format!("## Task #{}: {TITLE}\n{DESCRIPTION}", card.number)), "{system}");
    let memory = seen.sections.iter().find(|s| s.kind == SectionKind::Memory).unwrap();
    for fact in &facts {
        assert!(memory.text.contains(&format!("[{}]", fact.id)), "{} in {}", fact.id, memory.text);
    }

    // In the request: each section once, in the contract's order (steady first).
    let mut last = 0;
    for section in seen.sections.iter().filter(|s| s.kind != SectionKind::Message) {
        let needle = escaped(&section.text);
        assert_eq!(raw.matches(&needle).count(), 1, "{:?} once in the request: {raw}", section.kind);
        let at = raw.find(&needle).unwrap();
        assert!(at > last, "{:?} is out of order: {raw}", section.kind);
        last = at;
    }
    let steady_end = seen
        .sections
        .iter()
        .filter(|s| s.stability == Stability::Steady)
        .map(|s| raw.find(&escaped(&s.text)).unwrap())
        .max()
        .unwrap();
    let tools_note = seen.sections.iter().find(|s| s.kind == SectionKind::ToolsNote).unwrap();
    let tools_at = raw.find(&escaped(&tools_note.text)).unwrap();
    assert!(steady_end < tools_at, "the steady tier comes first");
    for fact in &facts {
        assert_eq!(raw.matches(&format!("[{}]", fact.id)).count(), 1, "{} once", fact.id);
    }
    // The title: the task heading's, and the message itself, last in the user's text.
    let (text, _) = last_user_text(&requests[0].body).unwrap();
    assert!(text.ends_with(&format!("\n\n{TITLE}")), "the title is the message: {text}");
    assert!(!text.contains(DESCRIPTION), "the description is in the steady tier only: {text}");
    assert_eq!(raw.matches(TITLE).count(), 2, "in the task heading and as the message: {raw}");
    let message_at = raw.rfind(&escaped(&format!("\n\n{TITLE}"))).expect("the message");
    assert!(message_at > last, "the title after the memory block");

    // The reply is the card's report; the facts given are cited by the run.
    let detail = engine.board().detail(&card.id).unwrap();
    let reports: Vec<_> = detail.comments.iter().filter(|c| c.kind == CommentKind::Report).collect();
    assert_eq!(reports.len(), 1, "{:?}", detail.comments);
    assert_eq!(reports[0].text, REPLY);
    assert_eq!(reports[0].run_id.as_deref(), Some(run_id.as_str()));
    assert_eq!(seen.cited.len(), 2);
    for fact in &facts {
        assert!(seen.cited.contains(&fact.id));
        let citations = engine.memory().detail(&fact.id).unwrap().citations;
        assert!(
            citations.iter().any(|c| c.run_id == run_id && c.agent_id == agent.id),
            "{} lists the run as citing it: {citations:?}",
            fact.id
        );
    }
    assert!(!engine.tools().has_grant(&run_id), "the run's tools ended with it");
}

/// Issue #24, item 6, on every CLI: a card in a project folder holding both a CLAUDE.md and an
/// AGENTS.md. Claude Code's request carries the CLAUDE.md once (sent by Clawboo: its project
/// settings stay off) and no AGENTS.md; Codex's, Hermes' and OpenClaw's carry the AGENTS.md
/// once (Hermes reads it itself, the others get it from Clawboo) and no CLAUDE.md.
#[test]
fn a_card_in_a_project_folder_carries_the_repositorys_own_instructions_once_on_every_cli() {
    const CLAUDE_MARK: &str = "REPO-CLAUDE-MD-MARK-51c0";
    const AGENTS_MARK: &str = "REPO-AGENTS-MD-MARK-8e2b";
    for kind in [RuntimeKind::ClaudeCode, RuntimeKind::Codex, RuntimeKind::Hermes, RuntimeKind::Openclaw] {
        let server = FakeModelServer::start_blocking(Behavior::text(REPLY));
        let Some((fixture, runtimes)) = Fixture::for_clis_on(&[kind], &server, "sk-fake-runner") else { continue };
        let engine = fixture.open_with(runtimes);
        let agent = engine.agents().create(cli_agent("gardener", kind)).unwrap();
        // A repository of its own (the fixture's folder sits inside this checkout): the card
        // runs in a worktree of it.
        let project = house_rules_repo(&fixture, CLAUDE_MARK, AGENTS_MARK);
        let card = engine
            .board()
            .create(
                Actor::User,
                NewCard {
                    title: TITLE.into(),
                    description: DESCRIPTION.into(),
                    assignee_id: Some(agent.id.clone()),
                    team_id: None,
                    status: None,
                    priority: None,
                    depends_on: vec![],
                    check_command: None,
                    project_folder: Some(project.display().to_string()),
                },
            )
            .unwrap();
        let run_id = engine.runner().start(&card.id, StartOptions::default()).unwrap().run_id;
        let done = wait_for("the card to leave In progress", LIMIT, || {
            let card = engine.board().get(&card.id).unwrap();
            (card.status != CardStatus::InProgress).then_some(card)
        });
        assert_eq!(done.status, CardStatus::InReview, "{kind:?}: {:?}", done.blocked_reason);
        // The run's first model request (Hermes also asks for a title, without tools).
        let request = server
            .model_requests()
            .into_iter()
            .find(|r| r.raw_body.contains(TITLE) && r.body.get("tools").is_some())
            .unwrap_or_else(|| panic!("{kind:?}: a request for the task"));
        let (claude, agents) =
            (request.raw_body.matches(CLAUDE_MARK).count(), request.raw_body.matches(AGENTS_MARK).count());
        let expected = if kind == RuntimeKind::ClaudeCode { (1, 0) } else { (0, 1) };
        assert_eq!((claude, agents), expected, "{kind:?}: {}", request.raw_body);
        let seen = engine.runner().run_context(&run_id).unwrap();
        let file = seen.project_file.expect("listed in What this agent saw");
        let status = if kind == RuntimeKind::Hermes {
            clawboo_engine::context::files::FileStatus::ReadByRuntime
        } else {
            clawboo_engine::context::files::FileStatus::Sent
        };
        assert_eq!(file.status, status, "{kind:?}");
        assert_eq!(file.name, if kind == RuntimeKind::ClaudeCode { "CLAUDE.md" } else { "AGENTS.md" });
        eprintln!("{kind:?}: {} ({})", file.name, file.route_label);
    }
}

/// An agent on `kind` that allows everything, with a model its CLI accepts.
fn cli_agent(handle: &str, kind: RuntimeKind) -> NewAgent {
    let (model, provider) = match kind {
        RuntimeKind::ClaudeCode => ("claude-sonnet-4-5", Provider::Anthropic),
        RuntimeKind::Codex => ("gpt-5.5", Provider::OpenAi),
        _ => ("some-model", Provider::Custom),
    };
    NewAgent {
        model: model.into(),
        approval_policy: ApprovalPolicy::AllowAll,
        provider: Some(provider),
        ..common::new_agent(handle, kind)
    }
}

/// A repository of its own in the fixture's folder (which sits inside this checkout) holding a
/// CLAUDE.md and an AGENTS.md with the given marks, committed: cards run in worktrees of it.
fn house_rules_repo(fixture: &Fixture, claude_mark: &str, agents_mark: &str) -> std::path::PathBuf {
    let project = fixture.path().join("greenhouse");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(project.join("CLAUDE.md"), format!("Water at dawn. {claude_mark}\n")).unwrap();
    std::fs::write(project.join("AGENTS.md"), format!("Label every tray. {agents_mark}\n")).unwrap();
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["-c", "user.name=T", "-c", "user.email=t@example.com", "add", "."],
        &["-c", "user.name=T", "-c", "user.email=t@example.com", "commit", "-q", "-m", "house rules"],
    ] {
        let ok = std::process::Command::new("git")
            .arg("-C")
            .arg(&project)
            .args(args)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .status()
            .unwrap();
        assert!(ok.success(), "git {args:?}");
    }
    project
}

/// Issue #24, item 4, on every CLI: a team member's routine that reports to its team. Its card
/// is the team's, so the run works in the team's project folder (the repository's own
/// instructions reach the request) with the team card's tools (the peer room), and is told the
/// routine sent it and that the user reads the reply on the card.
#[test]
fn a_members_routine_reporting_to_its_team_runs_as_a_team_card_on_every_cli() {
    use clawboo_engine::context::{tool_name_on, ToolName};
    use clawboo_engine::routines::{RoutineInput, RoutineOutcome, Schedule};
    const CLAUDE_MARK: &str = "TEAM-CLAUDE-MD-MARK-77aa";
    const AGENTS_MARK: &str = "TEAM-AGENTS-MD-MARK-0b9c";
    for kind in [RuntimeKind::ClaudeCode, RuntimeKind::Codex, RuntimeKind::Hermes, RuntimeKind::Openclaw] {
        let server = FakeModelServer::start_blocking(Behavior::text(REPLY));
        let Some((fixture, runtimes)) = Fixture::for_clis_on(&[kind], &server, "sk-fake-runner") else { continue };
        let engine = fixture.open_with(runtimes);
        let lead = engine.agents().create(cli_agent("lead", kind)).unwrap();
        let member = engine.agents().create(cli_agent("gardener", kind)).unwrap();
        let team = engine
            .teams()
            .create(clawboo_engine::teams::NewTeam {
                name: "Greenhouse".into(),
                member_ids: vec![lead.id.clone(), member.id.clone()],
                leader_id: Some(lead.id.clone()),
            })
            .unwrap();
        let project = house_rules_repo(&fixture, CLAUDE_MARK, AGENTS_MARK);
        engine.teams().set_project_folder(&team.id, Some(&project.display().to_string())).unwrap();
        let routine = engine
            .routines()
            .create(RoutineInput {
                name: TITLE.into(),
                agent_id: Some(member.id.clone()),
                team_id: None,
                prompt: DESCRIPTION.into(),
                schedule: Schedule::Every { minutes: 24 * 60 },
                heartbeat: false,
                reports_to_team_id: Some(team.id.clone()),
            })
            .unwrap();
        let fired = engine.routines().run_now(&routine.id).unwrap();
        let run = wait_for("the routine's run to end", LIMIT, || {
            engine.routines().tick(engine.routines().now()).unwrap();
            let run = engine.routines().detail(&routine.id, 5).unwrap().runs.into_iter().find(|r| r.id == fired.id)?;
            (run.outcome != RoutineOutcome::Running).then_some(run)
        });
        assert_eq!(run.outcome, RoutineOutcome::Succeeded, "{kind:?}: {:?}", run.note);
        let card = engine.board().get(run.card_id.as_deref().unwrap()).unwrap();
        assert_eq!(card.team_id.as_deref(), Some(team.id.as_str()), "{kind:?}: the team's card");
        let request = server
            .model_requests()
            .into_iter()
            .find(|r| r.raw_body.contains(DESCRIPTION) && r.body.get("tools").is_some())
            .unwrap_or_else(|| panic!("{kind:?}: a request for the routine's task"));
        let raw = &request.raw_body;
        // The team card's peer-room tools are offered and named (as the runtime shows them).
        assert!(raw.contains("peer_post"), "{kind:?}: the peer room's tools");
        assert!(raw.contains(&tool_name_on(kind, ToolName::PeerPost)), "{kind:?}: named in the tools note");
        assert!(raw.contains(&format!("The routine \\\"{TITLE}\\\" sent this message")), "{kind:?}: the routine note");
        assert!(raw.contains("The user reads your final reply on this task's card"), "{kind:?}");
        let mark = if kind == RuntimeKind::ClaudeCode { CLAUDE_MARK } else { AGENTS_MARK };
        assert_eq!(raw.matches(mark).count(), 1, "{kind:?}: worked in the team's project folder");
    }
}
