//! One turn of one runtime adapter, without an engine (the adapter tests): the agent as the
//! engine hands it to a runtime, and a turn's input with nothing extra. A test sets what it is
//! about with struct update: `TurnInput { persona: …, ..turn_input(…) }`.

use std::path::Path;

use clawboo_engine::agents::{Agent, RuntimeKind};
use clawboo_engine::runtimes::home::RuntimeHomes;
use clawboo_engine::runtimes::{ApprovalPolicy, TurnInput};

/// The stored agent @scout (`agent-1`) on `runtime` under `approval`, with no model or
/// provider: `Agent { model: …, ..agent_record(…) }` for more.
pub fn agent_record(runtime: RuntimeKind, approval: ApprovalPolicy) -> Agent {
    Agent {
        id: "agent-1".into(),
        name: "Scout".into(),
        handle: "scout".into(),
        description: String::new(),
        tint: "#336699".into(),
        runtime,
        model: String::new(),
        approval_policy: approval,
        provider: None,
        openclaw_gateway_url: None,
        sandbox: Default::default(),
        created_at: 0,
        updated_at: 0,
    }
}

/// Run `run-1` of `agent` in `workspace`, its homes in `agent_dir`, under the agent's own
/// approval policy: a fresh session with no program, persona, setup, preamble, tools,
/// connectors or transcript.
pub fn turn_input(agent: Agent, workspace: &Path, agent_dir: &Path, message: &str) -> TurnInput {
    TurnInput {
        run_id: "run-1".into(),
        approval: agent.approval_policy,
        agent,
        workspace: workspace.to_owned(),
        homes: RuntimeHomes::for_agent_dir(agent_dir),
        message: message.into(),
        persona: None,
        setup: None,
        resume_session: None,
        fork_session: false,
        preamble: None,
        tools: None,
        connectors: Vec::new(),
        transcript: Default::default(),
        program: None,
    }
}
