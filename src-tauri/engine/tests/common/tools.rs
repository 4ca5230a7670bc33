//! A `ToolHost` for tests: records every call it gets (its arguments as checked) and answers
//! "<tool> done".

use std::sync::Mutex;

use clawboo_engine::tools::{Caller, ToolCall, ToolFuture, ToolHost, ToolName, ToolOutput};
use serde_json::Value;

#[derive(Debug, Clone)]
pub struct RecordedCall {
    pub caller: Caller,
    pub tool: ToolName,
    pub args: Value,
}

#[derive(Default)]
pub struct RecordingHost {
    calls: Mutex<Vec<RecordedCall>>,
}

impl RecordingHost {
    pub fn calls(&self) -> Vec<RecordedCall> {
        self.calls.lock().unwrap().clone()
    }
}

impl ToolHost for RecordingHost {
    fn call<'a>(&'a self, caller: &'a Caller, call: ToolCall) -> ToolFuture<'a> {
        let tool = call.tool();
        self.calls.lock().unwrap().push(RecordedCall { caller: caller.clone(), tool, args: call.arguments() });
        Box::pin(async move { ToolOutput::ok(format!("{} done", tool.as_str())) })
    }
}

pub fn caller(run_id: &str, agent_id: &str, handle: &str, tools: &[ToolName]) -> Caller {
    Caller {
        run_id: run_id.into(),
        agent_id: agent_id.into(),
        agent_handle: handle.into(),
        team_id: "team-1".into(),
        room_id: "room-general".into(),
        conversation_id: "conversation-1".into(),
        tools: tools.to_vec(),
    }
}
