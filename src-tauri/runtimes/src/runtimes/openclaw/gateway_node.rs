//! Clawboo's tools for a member on an OpenClaw Gateway it does not run: Clawboo connects *out*
//! to that Gateway as a node (`role: "node"`, the protocol's way for a device to offer commands
//! to the Gateway's agents), declaring only `mcp.tools.call.v1` and publishing only the run's
//! own Clawboo tools (`node.pluginTools.update`). Nothing of this computer (no `system.run`, no
//! files, no browser) is offered, and no port is opened here.
//!
//! Each call arrives as the event `node.invoke.request`, carrying the `sessionKey` of the agent
//! session that made it. It is answered only when that is the session of this member's run in
//! progress (`agent:<gateway agent>:acp-bridge:<ACP session>`, the session the turn's bridge
//! drives), through the run's own grant, so the identity of every call is Clawboo's, not the
//! Gateway's: a call from any other session (another agent's, another client's) or after the
//! run ended is refused, and the grant dies with the run.
//!
//! The connection lives for the turn: the Gateway drops a node's tools when it disconnects, so
//! between turns a member's agents see none. Pairing: the first time, the Gateway asks to pair
//! this node's device (and then to approve its command); Clawboo approves both itself, through
//! `openclaw gateway call` with the bridge's device, which the owner already approved as an
//! operator (OpenClaw 2026.9.6 lets an `operator.admin` caller approve other devices).
//!
//! The WebSocket is `tokio-tungstenite` (the crate has none; tungstenite is the smallest
//! maintained client, with wss through the rustls reqwest already builds).

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use tokio::sync::{mpsc, oneshot};
use tokio_tungstenite::tungstenite::Message;

use super::device::{DeviceIdentity, SignedConnect};
use crate::tools::{ToolFuture, ToolName, ToolSpec};

/// The one command the node declares: a call of one of the tools it publishes.
pub const TOOLS_CALL: &str = "mcp.tools.call.v1";
/// The MCP server name in each published descriptor.
const SERVER: &str = crate::tools::SERVER_NAME;
const CLIENT_ID: &str = "node-host";
const CLIENT_MODE: &str = "node";
/// How long the Gateway may take to answer one request of ours.
const ANSWER_WITHIN: Duration = Duration::from_secs(20);

/// What the Gateway said about itself when the node connected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hello {
    pub version: String,
    /// From sending `connect` to its answer.
    pub latency: Duration,
}

/// Why a connection was not made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// The Gateway wants this device paired first (its pairing request).
    PairingRequired {
        request_id: String,
    },
    Other(String),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::PairingRequired { request_id } => write!(f, "device pairing required (requestId: {request_id})"),
            Refused::Other(why) => f.write_str(why),
        }
    }
}

/// The run's tools, as the node offers them, and how to call them for the run.
#[derive(Clone)]
pub struct Offer {
    pub specs: Vec<ToolSpec>,
    /// The run's in-process calls (its grant's invoker): dead once the run is revoked.
    pub invoker: Arc<dyn Fn(ToolName, Value) -> ToolFuture<'static> + Send + Sync>,
}

/// The agent session a call must come from: set once the bridge names the turn's session key
/// (`agent:<gateway agent>:acp-bridge:<id>`, see `OpenclawAcp::on_existing_gateway`).
#[derive(Clone, Default)]
pub struct LiveSession(Arc<Mutex<Option<String>>>);

impl LiveSession {
    pub fn set(&self, session_key: String) {
        *self.0.lock().unwrap_or_else(|e| e.into_inner()) = Some(session_key);
    }

    pub(super) fn get(&self) -> Option<String> {
        self.0.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// The descriptors `node.pluginTools.update` takes for `specs`.
pub fn descriptors(specs: &[ToolSpec]) -> Vec<Value> {
    specs
        .iter()
        .map(|spec| {
            json!({
                "pluginId": "node-mcp",
                // The name the prompt gives the tool on OpenClaw (as its MCP client names them
                // on a Gateway Clawboo runs): `clawboo__handoff`.
                "name": format!("{SERVER}__{}", spec.name.as_str()),
                "description": spec.description,
                "parameters": spec.input_schema,
                "command": TOOLS_CALL,
                "mcp": { "server": SERVER, "tool": spec.name.as_str() },
            })
        })
        .collect()
}

type Pending = Arc<Mutex<HashMap<String, oneshot::Sender<Value>>>>;

/// One open node connection; closed when dropped.
pub struct NodeConnection {
    pub hello: Hello,
    out: mpsc::UnboundedSender<Message>,
    pending: Pending,
    next: Arc<AtomicU64>,
    events: Option<mpsc::UnboundedReceiver<Value>>,
    reader: tokio::task::JoinHandle<()>,
    writer: tokio::task::JoinHandle<()>,
}

impl Drop for NodeConnection {
    fn drop(&mut self) {
        self.reader.abort();
        self.writer.abort();
    }
}

/// The platform names OpenClaw uses (Node's `process.platform`).
fn platform() -> &'static str {
    match std::env::consts::OS {
        "macos" => "darwin",
        "windows" => "win32",
        other => other,
    }
}

fn frame_text(message: &Message) -> Option<Value> {
    match message {
        Message::Text(text) => serde_json::from_str(text.as_str()).ok(),
        _ => None,
    }
}

/// Connects to `url` as a node offering [`TOOLS_CALL`], with the shared `token` and `identity`.
pub async fn connect(url: &str, token: &str, identity: &DeviceIdentity) -> Result<NodeConnection, Refused> {
    let failed =
        |why: String| Refused::Other(format!("The node connection to the OpenClaw Gateway at {url} failed: {why}"));
    let (mut socket, _) = tokio::time::timeout(ANSWER_WITHIN, tokio_tungstenite::connect_async(url))
        .await
        .map_err(|_| failed("no answer".into()))?
        .map_err(|e| failed(e.to_string()))?;
    // The Gateway opens with a challenge to sign.
    let challenge = tokio::time::timeout(ANSWER_WITHIN, async {
        while let Some(Ok(message)) = socket.next().await {
            if let Some(frame) = frame_text(&message).filter(|f| f["event"] == "connect.challenge") {
                return Some(frame["payload"].clone());
            }
        }
        None
    })
    .await
    .ok()
    .flatten()
    .ok_or_else(|| failed("no connect.challenge".into()))?;
    let nonce = challenge["nonce"].as_str().unwrap_or_default().to_owned();
    let signed_at = challenge["ts"].as_u64().ok_or_else(|| failed("a challenge without its time".into()))?;
    let signed = SignedConnect {
        device_id: &identity.id,
        client_id: CLIENT_ID,
        client_mode: CLIENT_MODE,
        role: "node",
        scopes: &[],
        signed_at_ms: signed_at,
        token,
        nonce: &nonce,
        platform: platform(),
        device_family: "",
    };
    let params = json!({
        "minProtocol": 4,
        "maxProtocol": 4,
        "client": {
            "id": CLIENT_ID,
            "displayName": "Clawboo",
            "version": env!("CARGO_PKG_VERSION"),
            "platform": platform(),
            "mode": CLIENT_MODE,
        },
        "role": "node",
        "scopes": [],
        "caps": [],
        "commands": [TOOLS_CALL],
        "auth": { "token": token },
        "device": {
            "id": identity.id,
            "publicKey": identity.public_key,
            "signature": identity.sign(&signed.payload()),
            "signedAt": signed_at,
            "nonce": nonce,
        },
    });
    let request = json!({ "type": "req", "id": "connect", "method": "connect", "params": params });
    let sent_at = Instant::now();
    socket.send(Message::Text(request.to_string().into())).await.map_err(|e| failed(e.to_string()))?;
    let answer = tokio::time::timeout(ANSWER_WITHIN, async {
        while let Some(Ok(message)) = socket.next().await {
            if let Some(frame) = frame_text(&message).filter(|f| f["type"] == "res" && f["id"] == "connect") {
                return Some(frame);
            }
        }
        None
    })
    .await
    .ok()
    .flatten()
    .ok_or_else(|| failed("no answer to connect".into()))?;
    let latency = sent_at.elapsed();
    if answer["ok"] != true {
        let error = &answer["error"];
        let details = &error["details"];
        if details["code"] == "PAIRING_REQUIRED" || error["code"] == "NOT_PAIRED" {
            if let Some(request_id) = details["requestId"].as_str() {
                return Err(Refused::PairingRequired { request_id: request_id.to_owned() });
            }
        }
        return Err(failed(error["message"].as_str().unwrap_or("refused").to_owned()));
    }
    let hello = Hello { version: answer["payload"]["server"]["version"].as_str().unwrap_or("?").to_owned(), latency };

    let (mut sink, mut stream) = socket.split();
    let (out, mut outgoing) = mpsc::unbounded_channel::<Message>();
    let writer = tokio::spawn(async move {
        while let Some(message) = outgoing.recv().await {
            if sink.send(message).await.is_err() {
                break;
            }
        }
        let _ = sink.close().await;
    });
    let pending: Pending = Arc::default();
    let (events_tx, events) = mpsc::unbounded_channel();
    let answers = pending.clone();
    let reader = tokio::spawn(async move {
        while let Some(Ok(message)) = stream.next().await {
            let Some(frame) = frame_text(&message) else { continue };
            if frame["type"] == "res" {
                let waiting =
                    frame["id"].as_str().and_then(|id| answers.lock().unwrap_or_else(|e| e.into_inner()).remove(id));
                if let Some(waiting) = waiting {
                    let _ = waiting.send(frame);
                }
            } else if frame["type"] == "event" && events_tx.send(frame).is_err() {
                break;
            }
        }
        // Closed: whoever waits for an answer hears so (their senders drop).
        answers.lock().unwrap_or_else(|e| e.into_inner()).clear();
    });
    Ok(NodeConnection { hello, out, pending, next: Arc::new(AtomicU64::new(1)), events: Some(events), reader, writer })
}

/// Sends requests on an open connection (cheap to clone, for the tasks answering calls).
#[derive(Clone)]
struct Requester {
    out: mpsc::UnboundedSender<Message>,
    pending: Pending,
    next: Arc<AtomicU64>,
}

impl Requester {
    async fn request(&self, method: &str, params: Value) -> Result<Value, String> {
        let id = format!("r{}", self.next.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        self.pending.lock().unwrap_or_else(|e| e.into_inner()).insert(id.clone(), tx);
        let frame = json!({ "type": "req", "id": id, "method": method, "params": params });
        self.out.send(Message::Text(frame.to_string().into())).map_err(|_| "the connection is closed".to_owned())?;
        let answer = tokio::time::timeout(ANSWER_WITHIN, rx)
            .await
            .map_err(|_| format!("no answer to {method}"))?
            .map_err(|_| "the connection closed".to_owned())?;
        if answer["ok"] == true {
            Ok(answer["payload"].clone())
        } else {
            Err(answer["error"]["message"].as_str().unwrap_or("refused").to_owned())
        }
    }
}

impl NodeConnection {
    fn requester(&self) -> Requester {
        Requester { out: self.out.clone(), pending: self.pending.clone(), next: self.next.clone() }
    }

    pub async fn request(&self, method: &str, params: Value) -> Result<Value, String> {
        self.requester().request(method, params).await
    }

    /// Publishes `specs`; the number of tools the Gateway shows its agents (none until the
    /// node's command is approved).
    pub async fn publish(&self, specs: &[ToolSpec]) -> Result<usize, String> {
        let answer = self.request("node.pluginTools.update", json!({ "tools": descriptors(specs) })).await?;
        Ok(answer["tools"].as_array().map_or(0, Vec::len))
    }

    /// Answers the Gateway's calls for as long as the connection is open (the returned task
    /// ends when it closes).
    pub fn serve(&mut self, offer: Offer, live: LiveSession) -> tokio::task::JoinHandle<()> {
        let mut events = self.events.take().expect("served once");
        let requester = self.requester();
        tokio::spawn(async move {
            while let Some(event) = events.recv().await {
                if event["event"] != "node.invoke.request" {
                    continue;
                }
                let (offer, live, requester) = (offer.clone(), live.clone(), requester.clone());
                tokio::spawn(async move {
                    let request = &event["payload"];
                    let mut answer = match answer_call(request, &offer, &live).await {
                        Ok(payload) => json!({ "ok": true, "payloadJSON": payload.to_string() }),
                        Err((code, message)) => json!({ "ok": false, "error": { "code": code, "message": message } }),
                    };
                    answer["id"] = request["id"].clone();
                    answer["nodeId"] = request["nodeId"].clone();
                    let _ = requester.request("node.invoke.result", answer).await;
                });
            }
        })
    }
}

/// What one `node.invoke.request` gets: the MCP result of the tool, or why it was refused.
async fn answer_call(request: &Value, offer: &Offer, live: &LiveSession) -> Result<Value, (&'static str, String)> {
    if request["command"] != TOOLS_CALL {
        return Err(("INVALID_REQUEST", format!("Clawboo offers no command {}.", request["command"])));
    }
    let from = request["sessionKey"].as_str().unwrap_or_default();
    match live.get() {
        Some(expected) if expected == from => {}
        Some(_) | None => {
            return Err((
                "FORBIDDEN",
                "Clawboo's tools answer only the session of this member's turn in progress.".to_owned(),
            ))
        }
    }
    let params: Value = serde_json::from_str(request["paramsJSON"].as_str().unwrap_or("{}"))
        .map_err(|e| ("INVALID_REQUEST", format!("The call's params are not JSON: {e}")))?;
    let name = params["tool"].as_str().unwrap_or_default();
    let tool = crate::tools::specs::parse(name)
        .filter(|tool| params["server"] == SERVER && offer.specs.iter().any(|s| s.name == *tool))
        .ok_or_else(|| ("INVALID_REQUEST", format!("There is no tool named {name}.")))?;
    let arguments = match &params["arguments"] {
        Value::Null => json!({}),
        other => other.clone(),
    };
    let output = (offer.invoker)(tool, arguments).await;
    Ok(json!({ "content": [{ "type": "text", "text": output.text }], "isError": output.is_error }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offer(calls: Arc<Mutex<Vec<(ToolName, Value)>>>) -> Offer {
        Offer {
            specs: crate::tools::Tools::specs(&[ToolName::MemorySave]),
            invoker: Arc::new(move |tool, args| {
                calls.lock().unwrap().push((tool, args));
                Box::pin(async { crate::tools::ToolOutput::ok("saved") })
            }),
        }
    }

    fn call(session_key: &str, tool: &str) -> Value {
        json!({
            "id": "i1", "nodeId": "n", "command": TOOLS_CALL, "sessionKey": session_key,
            "paramsJSON": json!({ "server": "clawboo", "tool": tool, "arguments": { "text": "x" } }).to_string(),
        })
    }

    #[tokio::test]
    async fn only_the_runs_own_session_reaches_the_runs_tools() {
        let calls = Arc::default();
        let offer = offer(Arc::clone(&calls));
        let live = LiveSession::default();
        let mine = "agent:clawboo-ivy:acp-bridge:s-1".to_owned();
        let (code, _) = answer_call(&call(&mine, "memory_save"), &offer, &live).await.unwrap_err();
        assert_eq!(code, "FORBIDDEN", "no run in progress yet");
        live.set(mine.clone());
        let answer = answer_call(&call(&mine, "memory_save"), &offer, &live).await.unwrap();
        assert_eq!(answer, json!({ "content": [{ "type": "text", "text": "saved" }], "isError": false }));
        for forged in
            ["agent:clawboo-ivy:acp-bridge:s-2".to_owned(), "agent:main:acp-bridge:s-1".to_owned(), String::new()]
        {
            let (code, _) = answer_call(&call(&forged, "memory_save"), &offer, &live).await.unwrap_err();
            assert_eq!(code, "FORBIDDEN", "{forged}");
        }
        let (code, _) = answer_call(&call(&mine, "handoff"), &offer, &live).await.unwrap_err();
        assert_eq!(code, "INVALID_REQUEST", "a tool the run was not given");
        let mut system_run = call(&mine, "memory_save");
        system_run["command"] = json!("system.run");
        assert!(answer_call(&system_run, &offer, &live).await.is_err());
        assert_eq!(calls.lock().unwrap().len(), 1, "only the one allowed call ran");
    }

    #[test]
    fn descriptors_name_the_clawboo_server_and_the_one_command() {
        let specs = crate::tools::Tools::specs(&[ToolName::Handoff]);
        let [descriptor] = &descriptors(&specs)[..] else { panic!() };
        assert_eq!(descriptor["name"], "clawboo__handoff");
        assert_eq!(descriptor["command"], TOOLS_CALL);
        assert_eq!(descriptor["mcp"], json!({ "server": "clawboo", "tool": "handoff" }));
        assert_eq!(descriptor["parameters"], specs[0].input_schema);
    }
}
