//! No runtime process outlives the engine: dropping it (what the app does on quit) stops every
//! run and its whole process group.
#![cfg(unix)]

mod common;

use std::sync::Arc;
use std::time::Duration;

use clawboo_engine::agents::{NewAgent, RuntimeKind};
use clawboo_engine::runtimes::claude_code::ClaudeCodeRuntime;
use clawboo_engine::runtimes::process::group_has_live_member;
use clawboo_engine::runtimes::{Endpoint, EndpointSource};
use clawboo_engine::secrets::Provider;
use clawboo_testkit::wait_for;
use common::{Fixture, RecordingSpawner};

struct AnyKey;

impl EndpointSource for AnyKey {
    fn endpoint(&self, _: Provider, _run_id: &str) -> clawboo_engine::Result<Endpoint> {
        Ok(Endpoint { base_url: "http://127.0.0.1:9".into(), api_key: Some("test".into()) })
    }
}

#[test]
fn quitting_stops_every_run_and_its_processes() {
    let fixture = Fixture::new();
    // A "CLI" that starts a tool in the background and then hangs, ignoring its stdin.
    let program = fixture.path().join("hanging-cli");
    std::fs::write(
        &program,
        "#!/bin/sh\n[ \"$1\" = --help ] && echo '  --output-format <format>' && exit 0\n[ \"$1\" = --version ] && echo '2.1.332 (Claude Code)' && exit 0\nsleep 300 &\nsleep 300\n",
    )
    .unwrap();
    std::fs::set_permissions(&program, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();

    let spawner = RecordingSpawner::default();
    let runtime = Arc::new(ClaudeCodeRuntime::new(Arc::new(spawner.clone()), Arc::new(AnyKey)));
    let fixture = fixture.program(RuntimeKind::ClaudeCode, &program);
    let engine = fixture.open_with(vec![runtime]);
    let agent = NewAgent { name: "Hanger".into(), ..common::new_agent("hanger", RuntimeKind::ClaudeCode) };
    let agent_id = common::add_agent(&engine, agent);
    engine.chat().send(&agent_id, "hello").unwrap();
    let pgid = wait_for("the runtime to start", Duration::from_secs(10), || *spawner.0.lock().unwrap());
    wait_for("its processes to run", Duration::from_secs(10), || group_has_live_member(pgid).then_some(()));

    drop(engine);
    assert!(!group_has_live_member(pgid), "a runtime process outlived the engine");
}
