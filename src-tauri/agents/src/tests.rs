use std::fs;

use super::*;
use clawboo_vocab::error::ErrorCode;
use clawboo_vocab::ApprovalPolicy;

struct Fixture {
    _dir: tempfile::TempDir,
    agents: Agents,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(&dir.path().join("db.sqlite")).unwrap());
    let workspaces = Workspaces::new(dir.path().join("agents")).unwrap();
    Fixture { agents: Agents::new(store, workspaces, EventBus::new()), _dir: dir }
}

fn new_agent(handle: &str) -> NewAgent {
    NewAgent {
        name: format!("Agent {handle}"),
        handle: handle.into(),
        description: "Finds things out.".into(),
        tint: "#7C5CFF".into(),
        runtime: RuntimeKind::ClaudeCode,
        model: "claude-sonnet".into(),
        approval_policy: ApprovalPolicy::Ask,
        provider: None,
    }
}

#[test]
fn create_stores_the_profile_and_makes_the_workspace() {
    let f = fixture();
    let agent = f.agents.create(new_agent("@scout")).unwrap();
    assert_eq!(agent.handle, "scout");
    assert_eq!(agent.tint, "#7c5cff");
    assert_eq!(f.agents.get(&agent.id).unwrap(), agent);

    let dir = f.agents.workspaces().dir(&agent.id);
    for name in AgentFileName::ALL {
        let text = fs::read_to_string(dir.join(name.as_str())).unwrap();
        assert!(text.starts_with('#'), "{name} has starting text");
    }
    let soul = fs::read_to_string(dir.join("SOUL.md")).unwrap();
    assert!(soul.contains("Agent @scout") && soul.contains("(@scout)") && soul.contains("Finds things out."));
}

#[test]
fn list_is_sorted_by_name() {
    let f = fixture();
    for h in ["zed", "amy", "Bob"] {
        f.agents.create(NewAgent { name: h.into(), ..new_agent(h) }).unwrap();
    }
    let names: Vec<_> = f.agents.list().unwrap().into_iter().map(|a| a.name).collect();
    assert_eq!(names, ["amy", "Bob", "zed"]);
}

#[test]
fn duplicate_handles_are_refused_ignoring_case() {
    let f = fixture();
    f.agents.create(new_agent("scout")).unwrap();
    let err = f.agents.create(new_agent("Scout")).unwrap_err();
    assert_eq!(err.code(), ErrorCode::DuplicateHandle);
    assert!(err.to_string().contains("@Scout"), "{err}");
    assert_eq!(f.agents.list().unwrap().len(), 1);
    assert_eq!(fs::read_dir(f.agents.workspaces().root()).unwrap().count(), 1, "no folder for the refused agent");
}

#[test]
fn invalid_input_is_refused_before_anything_is_written() {
    let f = fixture();
    assert_eq!(f.agents.create(new_agent("bad handle")).unwrap_err().code(), ErrorCode::InvalidHandle);
    assert_eq!(
        f.agents.create(NewAgent { tint: "blue".into(), ..new_agent("ok") }).unwrap_err().code(),
        ErrorCode::InvalidInput
    );
    assert_eq!(
        f.agents.create(NewAgent { name: " ".into(), ..new_agent("ok") }).unwrap_err().code(),
        ErrorCode::InvalidInput
    );
    assert!(f.agents.list().unwrap().is_empty());
}

#[test]
fn update_renames_and_keeps_other_fields() {
    let f = fixture();
    let agent = f.agents.create(new_agent("scout")).unwrap();
    let patch =
        AgentPatch { name: Some("Scout Prime".into()), runtime: Some(RuntimeKind::Native), ..Default::default() };
    let updated = f.agents.update(&agent.id, patch).unwrap();
    assert_eq!(updated.name, "Scout Prime");
    assert_eq!(updated.runtime, RuntimeKind::Native);
    assert_eq!(updated.handle, "scout");
    assert_eq!(updated.model, agent.model);
    assert_eq!(f.agents.get(&agent.id).unwrap(), updated);
}

#[test]
fn update_to_a_taken_handle_is_refused() {
    let f = fixture();
    f.agents.create(new_agent("one")).unwrap();
    let two = f.agents.create(new_agent("two")).unwrap();
    let err = f.agents.update(&two.id, AgentPatch { handle: Some("ONE".into()), ..Default::default() }).unwrap_err();
    assert_eq!(err.code(), ErrorCode::DuplicateHandle);
    assert_eq!(f.agents.get(&two.id).unwrap().handle, "two");
}

#[test]
fn unknown_agents_are_not_found() {
    let f = fixture();
    for err in [
        f.agents.get("nope").unwrap_err(),
        f.agents.update("nope", AgentPatch::default()).unwrap_err(),
        f.agents.delete("nope").unwrap_err(),
        f.agents.read_file("nope", "SOUL.md").unwrap_err(),
    ] {
        assert_eq!(err.code(), ErrorCode::NotFound, "{err}");
    }
}

#[test]
fn delete_removes_row_and_folder() {
    let f = fixture();
    let agent = f.agents.create(new_agent("scout")).unwrap();
    let dir = f.agents.workspaces().dir(&agent.id);
    assert!(dir.is_dir());
    f.agents.delete(&agent.id).unwrap();
    assert!(!dir.exists());
    assert_eq!(f.agents.get(&agent.id).unwrap_err().code(), ErrorCode::NotFound);
    assert_eq!(fs::read_dir(f.agents.workspaces().root()).unwrap().count(), 0, "no trash left behind");
}

#[test]
fn files_round_trip_and_only_known_names_pass() {
    let f = fixture();
    let agent = f.agents.create(new_agent("scout")).unwrap();
    let saved = f.agents.write_file(&agent.id, "SOUL.md", "# New soul\nÜnïcödé ✓\n").unwrap();
    assert_eq!(saved.name, AgentFileName::Soul);
    assert_eq!(f.agents.read_file(&agent.id, "SOUL.md").unwrap().content, "# New soul\nÜnïcödé ✓\n");

    let listed = f.agents.list_files(&agent.id).unwrap();
    let names: Vec<_> = listed.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["SOUL.md", "AGENTS.md", "IDENTITY.md", "USER.md", "MEMORY.md", "BOOTSTRAP.md", "HEARTBEAT.md"]);
    assert_eq!(listed[0].size, "# New soul\nÜnïcödé ✓\n".len() as u64);

    for bad in ["../SOUL.md", "SOUL.md/..", "sub/SOUL.md", "..", "/etc/passwd", "soul.md", "NOTES.md", "SOUL.md\0", ""]
    {
        let read = f.agents.read_file(&agent.id, bad).unwrap_err();
        let write = f.agents.write_file(&agent.id, bad, "x").unwrap_err();
        assert_eq!(read.code(), ErrorCode::ForbiddenFileName, "{bad:?}");
        assert_eq!(write.code(), ErrorCode::ForbiddenFileName, "{bad:?}");
    }
    assert!(!f.agents.workspaces().root().join("NOTES.md").exists());
}

#[test]
fn oversized_files_are_refused_and_the_old_content_kept() {
    let f = fixture();
    let agent = f.agents.create(new_agent("scout")).unwrap();
    f.agents.write_file(&agent.id, "MEMORY.md", "keep me").unwrap();
    let huge = "x".repeat(MAX_AGENT_FILE_BYTES as usize + 1);
    let err = f.agents.write_file(&agent.id, "MEMORY.md", &huge).unwrap_err();
    assert_eq!(err.code(), ErrorCode::FileTooLarge);
    assert_eq!(f.agents.read_file(&agent.id, "MEMORY.md").unwrap().content, "keep me");

    // Grown past the limit by another program: reading says so instead of loading it.
    let path = f.agents.workspaces().dir(&agent.id).join("MEMORY.md");
    fs::write(&path, &huge).unwrap();
    assert_eq!(f.agents.read_file(&agent.id, "MEMORY.md").unwrap_err().code(), ErrorCode::FileTooLarge);
    assert_eq!(fs::metadata(&path).unwrap().len(), huge.len() as u64, "the file is left as it is");
}

#[test]
fn non_utf8_files_are_reported_not_mangled() {
    let f = fixture();
    let agent = f.agents.create(new_agent("scout")).unwrap();
    let path = f.agents.workspaces().dir(&agent.id).join("USER.md");
    fs::write(&path, [0xff, 0xfe, 0x00]).unwrap();
    let err = f.agents.read_file(&agent.id, "USER.md").unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    assert!(err.to_string().contains("USER.md"));
    assert_eq!(fs::read(&path).unwrap(), [0xff, 0xfe, 0x00]);
}

#[test]
fn atomic_write_replaces_whole_and_leaves_no_temp_files() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("SOUL.md");
    fs::write(&path, "old").unwrap();
    atomic_write(&path, b"new content").unwrap();
    assert_eq!(fs::read_to_string(&path).unwrap(), "new content");
    let names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["SOUL.md"]);
}

#[test]
fn atomic_write_into_a_missing_folder_fails_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let err = atomic_write(&dir.path().join("gone/SOUL.md"), b"x").unwrap_err();
    assert_eq!(err.code(), ErrorCode::Io);
    assert!(err.to_string().contains("SOUL.md"), "{err}");
}

#[test]
fn atomic_write_keeps_identity_for_readers_holding_the_old_file() {
    // A reader that opened the file before the save still reads the complete old text:
    // the save swapped in a new inode rather than rewriting the old one in place.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("SOUL.md");
    fs::write(&path, "old text").unwrap();
    let mut reader = fs::File::open(&path).unwrap();
    atomic_write(&path, b"new text that is longer").unwrap();
    let mut old = String::new();
    std::io::Read::read_to_string(&mut reader, &mut old).unwrap();
    assert_eq!(old, "old text");
}

#[test]
fn reconcile_restores_missing_files_and_finishes_interrupted_deletes() {
    let f = fixture();
    let agent = f.agents.create(new_agent("scout")).unwrap();
    let dir = f.agents.workspaces().dir(&agent.id);
    fs::write(dir.join("SOUL.md"), "my edited soul").unwrap();
    fs::remove_file(dir.join("HEARTBEAT.md")).unwrap();
    let stale_trash = f.agents.workspaces().root().join(".trash-old");
    fs::create_dir_all(stale_trash.join("x")).unwrap();

    f.agents.reconcile_workspaces().unwrap();
    assert!(dir.join("HEARTBEAT.md").is_file());
    assert_eq!(fs::read_to_string(dir.join("SOUL.md")).unwrap(), "my edited soul", "never overwrites");
    assert!(!stale_trash.exists());
}

#[test]
fn watcher_paths_map_back_to_agent_files_only() {
    let f = fixture();
    let ws = f.agents.workspaces();
    let root = ws.root();
    assert_eq!(ws.identify(&root.join("abc/SOUL.md")), Some(("abc".into(), AgentFileName::Soul)));
    assert_eq!(ws.identify(&root.join("abc/.SOUL.md.123.tmp")), None);
    assert_eq!(ws.identify(&root.join("abc/sub/SOUL.md")), None);
    assert_eq!(ws.identify(&root.join(".trash-abc/SOUL.md")), None);
    assert_eq!(ws.identify(&root.join("abc")), None);
}

#[test]
fn changes_publish_agents_changed() {
    let f = fixture();
    let mut events = f.agents.events.subscribe();
    let agent = f.agents.create(new_agent("scout")).unwrap();
    f.agents.update(&agent.id, AgentPatch { name: Some("S".into()), ..Default::default() }).unwrap();
    f.agents.delete(&agent.id).unwrap();
    for _ in 0..3 {
        assert_eq!(events.try_recv().unwrap(), EngineEvent::AgentsChanged);
    }
    assert!(events.try_recv().is_err(), "a refused change publishes nothing");
}
