//! The engine as the shell uses it: opened on a data directory, reopened after a "restart".

use std::fs;
use std::time::Duration;

mod common;

use clawboo_engine::agents::{AgentFileName, NewAgent, RuntimeKind};
use clawboo_engine::{Engine, EngineConfig, EngineEvent, ErrorCode, EventReceiver};
use clawboo_testkit::wait_for;
use common::Fixture;

fn new_agent(handle: &str) -> NewAgent {
    NewAgent { name: "Scout".into(), model: "gpt-5.5".into(), ..common::new_agent(handle, RuntimeKind::Codex) }
}

#[test]
fn agents_and_their_files_survive_a_restart() {
    let fixture = Fixture::new();
    let id = {
        let engine = fixture.open();
        let agent = engine.agents().create(new_agent("scout")).unwrap();
        engine.agents().write_file(&agent.id, "SOUL.md", "persisted soul").unwrap();
        agent.id
    };
    let engine = fixture.open();
    assert_eq!(engine.agents().get(&id).unwrap().handle, "scout");
    assert_eq!(engine.agents().read_file(&id, "SOUL.md").unwrap().content, "persisted soul");
}

/// Each step of opening is timed, in order, so a slow start can be placed (the app prints them
/// with CLAWBOO_STARTUP_REPORT); a reopen (migrations done, an agent's folder to reconcile)
/// names the same steps.
#[test]
fn opening_times_each_step_in_order() {
    let fixture = Fixture::new();
    let first: Vec<&str> = {
        let engine = fixture.open();
        engine.agents().create(new_agent("scout")).unwrap();
        engine.open_steps().steps().iter().map(|(what, _)| *what).collect()
    };
    let started = std::time::Instant::now();
    let engine = fixture.open();
    let opened_in = started.elapsed();
    let steps = engine.open_steps();
    let names: Vec<&str> = steps.steps().iter().map(|(what, _)| *what).collect();
    assert_eq!(names, first);
    for step in ["data folder", "database (migrated)", "agent folders", "chat (runs cut off marked)", "routines"] {
        assert!(names.contains(&step), "{step} in {names:?}");
    }
    assert!(steps.total() <= opened_in, "{:?} > {opened_in:?}", steps.total());
    println!("engine open (reopen): {:.1} ms: {}", steps.total().as_secs_f64() * 1000.0, steps.summary());
}

#[test]
fn an_unusable_data_dir_fails_to_open_with_a_clear_error() {
    let fixture = Fixture::new();
    // A file where the data folder should be: unusable even for root, who ignores permissions.
    let file = fixture.path().join("not-a-folder");
    fs::write(&file, "x").unwrap();
    for path in [file.clone(), file.join("below-a-file")] {
        let err = Engine::open(EngineConfig::for_dir(path.clone())).err().expect("must fail");
        assert_eq!(err.code(), ErrorCode::DataDirUnusable, "{err}");
        assert!(err.to_string().contains(&path.display().to_string()), "{err}");
    }
}

#[test]
fn a_corrupt_database_is_reported_not_replaced() {
    let fixture = Fixture::new();
    let database = fixture.config().database_path();
    fs::create_dir_all(fixture.data_dir()).unwrap();
    fs::write(&database, b"this is not a SQLite database, but somebody's data").unwrap();
    let err = fixture.try_open_with(Vec::new()).err().expect("must fail");
    assert_eq!(err.code(), ErrorCode::Store, "{err}");
    assert_eq!(
        fs::read(&database).unwrap(),
        b"this is not a SQLite database, but somebody's data",
        "the file is left for the user to recover"
    );
}

#[test]
fn an_edit_made_by_another_program_is_announced() {
    let fixture = Fixture::new();
    let engine = fixture.open();
    let agent = engine.agents().create(new_agent("scout")).unwrap();
    let mut events = engine.events().subscribe();
    let soul = fixture.data_dir().join(format!("agents/{}/SOUL.md", agent.id));

    // Like most editors: write in place.
    fs::write(&soul, "edited elsewhere").unwrap();
    let expected = EngineEvent::AgentFileChanged { agent_id: agent.id.clone(), name: AgentFileName::Soul };
    wait_for("the in-place edit to be announced", Duration::from_secs(5), || {
        std::iter::from_fn(|| events.try_recv().ok()).find(|e| *e == expected)
    });
    assert_eq!(engine.agents().read_file(&agent.id, "SOUL.md").unwrap().content, "edited elsewhere");

    // Like vim: write a new file and rename it over the old one.
    let tmp = soul.with_file_name("SOUL.md.swp");
    fs::write(&tmp, "renamed into place").unwrap();
    fs::rename(&tmp, &soul).unwrap();
    wait_for("the rename to be announced", Duration::from_secs(5), || {
        std::iter::from_fn(|| events.try_recv().ok()).find(|e| *e == expected)
    });
    assert_eq!(engine.agents().read_file(&agent.id, "SOUL.md").unwrap().content, "renamed into place");
}

#[test]
fn a_burst_of_writes_is_announced_once_per_file() {
    let fixture = Fixture::new();
    let engine = fixture.open();
    let agent = engine.agents().create(new_agent("scout")).unwrap();
    let mut events = engine.events().subscribe();
    settle(&mut events); // creating the agent wrote its seven files
    let soul = fixture.data_dir().join(format!("agents/{}/SOUL.md", agent.id));
    for i in 0..20 {
        fs::write(&soul, format!("version {i}")).unwrap();
    }
    let first = wait_for("the burst to be announced", Duration::from_secs(5), || events.try_recv().ok());
    assert!(matches!(first, EngineEvent::AgentFileChanged { name: AgentFileName::Soul, .. }));
    let more = settle(&mut events);
    assert!(more < 5, "20 writes should collapse into a few announcements, got {}", more + 1);
}

#[test]
fn the_apps_own_save_is_announced_too() {
    let fixture = Fixture::new();
    let engine = fixture.open();
    let agent = engine.agents().create(new_agent("scout")).unwrap();
    let mut events = engine.events().subscribe();
    engine.agents().write_file(&agent.id, "AGENTS.md", "saved in app").unwrap();
    let expected = EngineEvent::AgentFileChanged { agent_id: agent.id.clone(), name: AgentFileName::Agents };
    wait_for("the save to be announced", Duration::from_secs(5), || {
        std::iter::from_fn(|| events.try_recv().ok()).find(|e| *e == expected)
    });
}

/// Waits until the watcher has been quiet for a while; returns how many events it drained.
fn settle(events: &mut EventReceiver) -> usize {
    let mut drained = 0;
    loop {
        std::thread::sleep(Duration::from_millis(400));
        let n = std::iter::from_fn(|| events.try_recv().ok()).count();
        if n == 0 {
            return drained;
        }
        drained += n;
    }
}

#[test]
fn agents_from_before_a_restart_are_watched() {
    let fixture = Fixture::new();
    let id = common::add_agent(&fixture.open(), new_agent("scout"));
    let engine = fixture.open();
    let mut events = engine.events().subscribe();
    fs::write(fixture.data_dir().join(format!("agents/{id}/USER.md")), "edited after restart").unwrap();
    let expected = EngineEvent::AgentFileChanged { agent_id: id, name: AgentFileName::User };
    wait_for("the edit to be announced", Duration::from_secs(5), || {
        std::iter::from_fn(|| events.try_recv().ok()).find(|e| *e == expected)
    });
}

#[test]
fn files_below_an_agent_folder_are_not_agent_files() {
    let fixture = Fixture::new();
    let engine = fixture.open();
    let agent = engine.agents().create(new_agent("scout")).unwrap();
    let nested = fixture.data_dir().join(format!("agents/{}/.claude", agent.id));
    fs::create_dir_all(&nested).unwrap();
    let mut events = engine.events().subscribe();
    settle(&mut events);
    fs::write(nested.join("SOUL.md"), "not the agent's soul").unwrap();
    fs::write(fixture.data_dir().join(format!("agents/{}/SOUL.md", agent.id)), "the real one").unwrap();
    let first = wait_for("the real edit", Duration::from_secs(5), || events.try_recv().ok());
    assert_eq!(first, EngineEvent::AgentFileChanged { agent_id: agent.id.clone(), name: AgentFileName::Soul });
    assert_eq!(settle(&mut events), 0, "the nested file announced nothing");
}
