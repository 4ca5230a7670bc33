//! Clawboo's own agent loop over a model API (Anthropic Messages, OpenAI-compatible Chat
//! Completions): the system prompt is the agent's SOUL.md and today's date, the conversation
//! is the transcript Clawboo carries, and the tools read and write the agent's workspace only.

pub mod anthropic;
pub mod conversation;
pub(crate) mod http;
pub mod on_request;
pub mod openai;
pub mod sse;
pub mod tools;
pub mod transcript;
pub mod written;

use std::sync::Arc;
use std::time::SystemTime;

use tokio::sync::watch;

use crate::agents::RuntimeKind;
use crate::error::{Error, Result};
use crate::runtimes::hosted::{self, HostedConnectors, Reach};
use crate::runtimes::{
    ApprovalPolicy, Capabilities, HistoryMode, PersonaDelivery, RunChannels, RunEvent, RunResult, Runtime,
    TranscriptTurn, TurnInput,
};
pub use crate::runtimes::{Endpoint, EndpointSource};
use crate::secrets::Provider;
use conversation::{Item, Messages, StreamDecoder, ToolCall, ToolOutcome};
use http::CallEnd;

/// Model calls per run, each round of tool use counting one.
pub const MAX_MODEL_CALLS: u32 = 16;
/// The context window Native reports, in tokens.
pub const CONTEXT_WINDOW_TOKENS: u32 = 200_000;

/// What Native offers: live text, a 200,000-token window, Clawboo's own transcript, the persona
/// in its own setup (re-read on resume); a leader continues per room, a teammate starts fresh.
/// Tests' scripted runtimes that stand in for Native use it too.
pub const CAPABILITIES: Capabilities = Capabilities {
    streams_text: true,
    context_window: Some(CONTEXT_WINDOW_TOKENS),
    history: HistoryMode::ClawbooTranscript,
    persona: PersonaDelivery::OwnSetup,
    setup_change: crate::runtimes::SetupChange::AppliedOnResume,
    team_history: crate::runtimes::TeamHistory {
        leader: crate::runtimes::TurnHistory::ContinueRoom,
        teammate: crate::runtimes::TurnHistory::Fresh,
    },
};

pub struct NativeRuntime {
    endpoints: Arc<dyn EndpointSource>,
    client: reqwest::Client,
    /// Recent conversations' carried messages as last written (see [`written`]).
    written: written::WrittenMessages,
    /// Starts the run's stdio connectors (each its own process group).
    spawner: Arc<dyn crate::runtimes::process::Spawner>,
    /// How long to wait before each new try of a briefly failing model call.
    retry_waits: Vec<std::time::Duration>,
}

#[derive(Clone, Copy)]
enum Api {
    Anthropic,
    Chat,
}

/// Everything fixed for the length of one run.
struct Call<'a> {
    api: Api,
    url: String,
    /// The model relay's route inside the app, when `url` is the relay's: no loopback hop.
    in_process: Option<Arc<dyn crate::runtimes::InProcessRoute>>,
    api_key: Option<&'a str>,
    provider: Provider,
    model: &'a str,
    system: String,
    /// The tools offered: those sent up front, and the occasional ones once loaded.
    tools: on_request::RunTools,
}

impl NativeRuntime {
    pub fn new(endpoints: Arc<dyn EndpointSource>) -> Self {
        let spawner = Arc::new(crate::runtimes::process::SystemSpawner);
        Self {
            endpoints,
            client: http::client(),
            written: written::WrittenMessages::default(),
            spawner,
            retry_waits: http::RETRY_WAITS.to_vec(),
        }
    }

    /// The waits before each new try of a briefly failing model call (tests shorten them).
    pub fn with_retry_waits(mut self, waits: Vec<std::time::Duration>) -> Self {
        self.retry_waits = waits;
        self
    }

    /// How the run's stdio connectors are started (the engine's recorded spawner).
    pub fn with_spawner(mut self, spawner: Arc<dyn crate::runtimes::process::Spawner>) -> Self {
        self.spawner = spawner;
        self
    }

    async fn run_turn(&self, input: TurnInput, channels: RunChannels) -> Result<RunResult> {
        let agent = &input.agent;
        let Some(provider) = agent.provider else {
            return Err(Error::InvalidInput(format!(
                "Choose a model provider for {} (Anthropic, OpenAI, OpenRouter or a custom endpoint) in its settings.",
                agent.name
            )));
        };
        let model = agent.model.trim();
        if model.is_empty() {
            return Err(Error::InvalidInput(format!("Choose a model for {} in its settings.", agent.name)));
        }
        if input.message.trim().is_empty() {
            return Err(Error::InvalidInput("The message is empty.".into()));
        }
        let endpoint = self.endpoints.endpoint(provider, &input.run_id)?;
        let api_key = endpoint.api_key.as_deref().map(str::trim).filter(|k| !k.is_empty());
        if api_key.is_none() && provider != Provider::Custom {
            return Err(Error::MissingApiKey(format!("Add an {} API key in Settings > API keys.", provider.label())));
        }
        let base = endpoint.base_url.trim().trim_end_matches('/');
        if base.is_empty() {
            return Err(Error::InvalidInput(format!(
                "Set the base URL of the {} provider in Settings > API keys.",
                provider.label()
            )));
        }
        // A team turn's steady context (rules, About you, teammates, how to work) joins the
        // system prompt before the date line: steady turn to turn, so it stays in the cached
        // prefix, and never in the carried transcript.
        let system = transcript::system_prompt(
            input.setup.as_deref().unwrap_or(""),
            input.persona.as_deref().unwrap_or(""),
            SystemTime::now(),
        );
        let api = if provider == Provider::Anthropic { Api::Anthropic } else { Api::Chat };
        let url = match api {
            Api::Anthropic => anthropic::url(base),
            Api::Chat => openai::url(base),
        };
        // The user's connectors start with the run and stop with it, however it ends (the same
        // hosting as the CLIs', called in-process).
        let Some(connectors) = hosted::start(&input, &channels, &self.spawner, Reach::InProcess).await else {
            return Ok(cancelled());
        };
        let tools = tools::offered(input.approval, input.tools.as_ref(), connectors.offered());
        let in_process = self.endpoints.in_process(&endpoint);
        let mut call = Call { api, url, in_process, api_key, provider, model, system, tools };

        // The carried turns are the conversation's as shared: written from there, no item made of
        // each (a long chat's thousands of texts are not touched per send).
        let carried = transcript::trim_transcript(&input.transcript, transcript::TRANSCRIPT_BUDGET_CHARS);
        // The preamble rides on this request only: the carried transcript holds the bare message.
        let items = vec![Item::User(input.text_to_send().into())];
        let result = self.drive(&mut call, carried, items, &input, connectors.host(), &channels).await;
        connectors.stop().await;
        result
    }

    /// The loop: call the model, run the tools it asks for, repeat until it answers.
    async fn drive(
        &self,
        call: &mut Call<'_>,
        carried: &[TranscriptTurn],
        mut items: Vec<Item>,
        input: &TurnInput,
        connectors: Option<&HostedConnectors>,
        channels: &RunChannels,
    ) -> Result<RunResult> {
        let mut cancel = channels.cancel.clone();
        if *cancel.borrow_and_update() {
            return Ok(cancelled());
        }
        let mut wrote_text = false;
        for round in 0..MAX_MODEL_CALLS {
            // The last round's tools seen by the run's owner first: a guard they tripped ends
            // the run here, before another model call.
            if round > 0 && channels.settle().await {
                return Ok(cancelled());
            }
            let messages = Messages { carried, items: &items };
            let (body, mut decoder): (Vec<u8>, Box<dyn StreamDecoder>) = match call.api {
                Api::Anthropic => (
                    anthropic::request_bytes(call.model, &call.system, messages, call.tools.sent(), &self.written),
                    Box::new(anthropic::Decoder::new()),
                ),
                Api::Chat => (
                    openai::request_bytes(call.model, &call.system, messages, call.tools.sent(), &self.written),
                    Box::new(openai::Decoder::new()),
                ),
            };
            let mut started_text = false;
            let end = {
                // Text from a later round is set apart from the text before it.
                let mut emit = |event: RunEvent| {
                    if matches!(event, RunEvent::TextDelta { .. }) && !started_text {
                        started_text = true;
                        if wrote_text {
                            channels.emit(RunEvent::TextDelta { text: "\n\n".into() });
                        }
                    }
                    channels.emit(event);
                };
                let who = who(call.provider);
                http::stream_call(
                    self.request(call, body),
                    &call.url,
                    &who,
                    decoder.as_mut(),
                    &mut emit,
                    &mut cancel,
                    &self.retry_waits,
                )
                .await
            };
            wrote_text |= started_text;
            let turn = match end {
                CallEnd::Done(turn) => turn,
                CallEnd::Failed(message) => return Ok(RunResult::failed(message)),
                CallEnd::Cancelled(usage) => {
                    // Spent all the same: the run's Activity counts it.
                    if let Some(usage) = usage {
                        channels.emit(usage.to_event());
                    }
                    return Ok(cancelled());
                }
            };
            if let Some(usage) = turn.usage {
                channels.emit(usage.to_event());
            }
            if turn.assistant.tool_calls.is_empty() {
                if matches!(turn.stop_reason.as_deref(), Some("max_tokens" | "length")) {
                    channels.emit(RunEvent::Warning {
                        message: "The reply was cut off: the model reached its output limit.".into(),
                    });
                }
                return Ok(RunResult::succeeded());
            }
            let calls = turn.assistant.tool_calls.clone();
            items.push(Item::Assistant(turn.assistant));
            let mut outcomes = Vec::with_capacity(calls.len());
            for tool_call in &calls {
                // Told to stop while the model answered (a guard, the user; its usage and the
                // tools before seen by the owner first): no further tool starts. The stream may
                // have ended before the stop was seen.
                if channels.settle().await {
                    return Ok(cancelled());
                }
                if tool_call.name == on_request::LOAD_TOOLS && tool_call.input_error.is_none() {
                    outcomes.push(load_tools(tool_call, &mut call.tools, channels));
                    continue;
                }
                call.tools.called(&tool_call.name);
                match run_tool(tool_call, input, connectors, channels, &mut cancel).await {
                    Some(outcome) => outcomes.push(outcome),
                    None => return Ok(cancelled()),
                }
            }
            items.push(Item::ToolResults(outcomes));
        }
        let limit = format!("Stopped after {MAX_MODEL_CALLS} model calls without a final answer.");
        Ok(RunResult { turn_limit: true, ..RunResult::failed(limit) })
    }

    fn request(&self, call: &Call<'_>, body: Vec<u8>) -> http::Outgoing {
        let mut request = self.client.post(&call.url).header(reqwest::header::CONTENT_TYPE, "application/json");
        if !self.retry_waits.is_empty() {
            // Native tries a brief failure again itself (and says so): the relay need not too.
            request = request.header(http::CLIENT_RETRIES_HEADER, "1");
        }
        let request = match call.api {
            Api::Anthropic => request
                .header("x-api-key", call.api_key.unwrap_or_default())
                .header("anthropic-version", anthropic::API_VERSION),
            Api::Chat => {
                let request = match call.api_key {
                    Some(key) => request.bearer_auth(key),
                    None => request,
                };
                if call.provider == Provider::OpenRouter {
                    request.header("X-Title", "Clawboo")
                } else {
                    request
                }
            }
        };
        http::Outgoing::new(request, body.into(), call.in_process.clone())
    }
}

impl Runtime for NativeRuntime {
    fn kind(&self) -> RuntimeKind {
        RuntimeKind::Native
    }

    fn capabilities(&self) -> Capabilities {
        CAPABILITIES
    }

    fn run(
        &self,
        input: TurnInput,
        channels: RunChannels,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<RunResult>> + Send + '_>> {
        Box::pin(self.run_turn(input, channels))
    }

    fn forget_unused_since(&self, cutoff: std::time::Instant) -> usize {
        self.written.forget_unused_since(cutoff)
    }
}

/// How errors name the provider.
fn who(provider: Provider) -> String {
    match provider {
        Provider::Custom => "The custom provider".into(),
        other => other.label().into(),
    }
}

fn cancelled() -> RunResult {
    RunResult::stopped_by_user()
}

/// A call of `load_tools`: the named tools join the run's next requests (said in Activity).
fn load_tools(call: &ToolCall, tools: &mut on_request::RunTools, channels: &RunChannels) -> ToolOutcome {
    channels.emit(RunEvent::ToolCallStarted {
        call_id: call.id.clone(),
        name: call.name.clone(),
        input: call.input.clone(),
    });
    let (output, is_error) = match tools.load(&call.input) {
        Ok(said) => (said, false),
        Err(problem) => (problem, true),
    };
    channels.emit(RunEvent::ToolResult { call_id: call.id.clone(), output: output.clone(), is_error });
    ToolOutcome { call_id: call.id.clone(), output, is_error }
}

/// Runs one tool call, asking first when the policy says so. `None` when the user cancelled.
async fn run_tool(
    call: &ToolCall,
    input: &TurnInput,
    connectors: Option<&HostedConnectors>,
    channels: &RunChannels,
    cancel: &mut watch::Receiver<bool>,
) -> Option<ToolOutcome> {
    channels.emit(RunEvent::ToolCallStarted {
        call_id: call.id.clone(),
        name: call.name.clone(),
        input: call.input.clone(),
    });
    let result = if let Some(problem) = &call.input_error {
        Err(problem.clone())
    } else if let Some((grant, tool)) =
        input.tools.as_ref().and_then(|g| Some((g, tools::clawboo_tool(g, &call.name)?)))
    {
        // Clawboo's own tools: bound to this run's caller, never about the workspace.
        let output = tokio::select! {
            output = (grant.invoker)(tool, call.input.clone()) => Some(output),
            () = http::cancelled(cancel) => None,
        };
        match output {
            Some(crate::tools::ToolOutput { text, is_error: false }) => Ok(text),
            Some(crate::tools::ToolOutput { text, is_error: true }) => Err(text),
            None => {
                channels.emit(RunEvent::ToolResult {
                    call_id: call.id.clone(),
                    output: "Stopped by the user.".into(),
                    is_error: true,
                });
                return None;
            }
        }
    } else if let Some(host) = connectors.filter(|h| h.tool(&call.name).is_some()) {
        // A connector's tool: the hosting applies the agent's policy, as it does for the CLIs.
        match host.run_tool(&call.name, &call.input).await {
            Some(output) => output,
            None => {
                channels.emit(RunEvent::ToolResult {
                    call_id: call.id.clone(),
                    output: "Stopped by the user.".into(),
                    is_error: true,
                });
                return None;
            }
        }
    } else {
        let allowed = if tools::changes_files(&call.name) { ask(call, input.approval, channels).await } else { Ok(()) };
        match allowed {
            Ok(()) => {
                let (workspace, name, args) = (input.workspace.clone(), call.name.clone(), call.input.clone());
                tokio::task::spawn_blocking(move || tools::execute(&workspace, &name, &args))
                    .await
                    .unwrap_or_else(|e| Err(format!("The tool failed: {e}")))
            }
            Err(Some(denied)) => Err(denied),
            Err(None) => {
                channels.emit(RunEvent::ToolResult {
                    call_id: call.id.clone(),
                    output: "Stopped by the user.".into(),
                    is_error: true,
                });
                return None;
            }
        }
    };
    let (output, is_error) = match result {
        Ok(output) => (output, false),
        Err(message) => (message, true),
    };
    channels.emit(RunEvent::ToolResult { call_id: call.id.clone(), output: output.clone(), is_error });
    Some(ToolOutcome { call_id: call.id.clone(), output, is_error })
}

/// `Ok` to go ahead; `Err(Some(why))` denied; `Err(None)` cancelled while waiting.
async fn ask(call: &ToolCall, policy: ApprovalPolicy, channels: &RunChannels) -> Result<(), Option<String>> {
    match policy {
        ApprovalPolicy::AllowAll => return Ok(()),
        // Not offered to a read-only agent (`tools::offered`); a call naming it anyway is refused.
        ApprovalPolicy::ReadOnly => return Err(Some("denied: this agent is read-only".into())),
        ApprovalPolicy::Ask => {}
    }
    match hosted::ask_user(channels, &call.name, &call.input, tools::describe(&call.name, &call.input)).await {
        Some(true) => Ok(()),
        Some(false) => Err(Some(hosted::DENIED.into())),
        None => Err(None),
    }
}
