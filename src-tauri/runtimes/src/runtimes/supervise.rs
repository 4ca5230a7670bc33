//! Runs one CLI turn: reads its stdout line by line through a [`StreamProtocol`], answers
//! permission questions, stops it on cancel or silence, and makes sure nothing it started is
//! left running when the turn ends.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::stream::{FuturesUnordered, StreamExt};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{oneshot, watch};
use tokio::time::{sleep_until, Instant};

use super::lines::{CappedLines, ReadLine};
use super::process::{ChildControl, CommandSpec, ExitInfo, Spawner};
use super::{ApprovalPolicy, PendingPermission, PermissionAnswer, RunChannels, RunEvent, RunOutcome, RunResult};
use crate::error::{Error, Result};

/// What a protocol wants done after reading a line.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    Emit(RunEvent),
    /// Write this line (a newline is added) to the process's stdin.
    Send(String),
    /// The runtime asks permission. `read_only` tools are allowed under the read-only policy.
    Ask {
        request_id: String,
        tool: String,
        input: serde_json::Value,
        description: String,
        read_only: bool,
    },
    /// The turn is complete: close stdin so a duplex CLI exits.
    EndInput,
}

/// The part of an adapter that understands its CLI's output.
pub trait StreamProtocol: Send {
    /// Lines written to stdin right after the process starts (duplex protocols).
    fn opening(&mut self) -> Vec<String> {
        Vec::new()
    }
    fn on_line(&mut self, line: &str, out: &mut Vec<Step>);
    /// The user (or the policy) answered a permission question.
    fn on_permission(&mut self, _request_id: &str, _answer: PermissionAnswer, _out: &mut Vec<Step>) {}
    /// The protocol's own interrupt message, tried before any signal.
    fn interrupt(&mut self) -> Option<String> {
        None
    }
    /// Whether the turn's result is already decided (the CLI answered the turn and its input
    /// is closed): only the process's own exit is left, which [`AFTER_RESULT`] bounds.
    fn has_result(&self) -> bool {
        false
    }
    /// Judges the run once the process has exited, or was ended after [`has_result`]
    /// (not called on cancel or time-out).
    ///
    /// [`has_result`]: StreamProtocol::has_result
    fn finish(&mut self, exit: ExitInfo, stderr_tail: &str) -> RunResult;
}

#[derive(Debug, Clone, Copy)]
pub struct Timeouts {
    /// A run that prints nothing for this long is stopped as timed out.
    pub silence: Duration,
    /// How long each step of the stop ladder (interrupt, SIGTERM) waits before the next.
    pub grace: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self { silence: Duration::from_secs(600), grace: Duration::from_secs(3) }
    }
}

const STDERR_TAIL_BYTES: usize = 8 * 1024;
/// How often the leader's exit is checked once its stdout has closed.
const EXIT_POLL: Duration = Duration::from_millis(10);
/// How long a CLI whose turn is decided may take to exit on its own before its group is ended.
/// The turn is stored by then (Hermes saves its session before it answers the prompt), and
/// what is left is teardown nobody waits for: Hermes' interpreter spends ~1.3 s of CPU on it
/// (seconds of wall time on a busy machine), which every team exchange used to wait out.
pub const AFTER_RESULT: Duration = Duration::from_millis(300);

enum Stopping {
    No,
    /// Why the stop began, and the ladder step reached (0 interrupt, 1 SIGTERM, 2 SIGKILL).
    Yes {
        outcome: RunOutcome,
        step: u8,
        next: Instant,
    },
}

pub async fn supervise(
    spawner: &dyn Spawner,
    spec: &CommandSpec,
    protocol: Box<dyn StreamProtocol>,
    channels: RunChannels,
    policy: ApprovalPolicy,
    timeouts: Timeouts,
) -> Result<RunResult> {
    supervise_with(spawner, spec, protocol, channels, policy, timeouts, None).await
}

/// [`supervise`], also told how many questions wait for the user outside the CLI's own stream
/// (`asking`: the run's hosted connectors, whose calls the CLI awaits in silence): while any
/// waits the run is not silent, and its silence counts again from the answer.
pub async fn supervise_with(
    spawner: &dyn Spawner,
    spec: &CommandSpec,
    mut protocol: Box<dyn StreamProtocol>,
    channels: RunChannels,
    policy: ApprovalPolicy,
    timeouts: Timeouts,
    asking: Option<watch::Receiver<usize>>,
) -> Result<RunResult> {
    // No hosting (or once it ends): a count that is always zero and never changes.
    let (idle, idle_count) = watch::channel(0usize);
    let mut asking = asking.unwrap_or(idle_count);
    // The proxy of the run's sandbox reports the hosts it refused on the run's Activity.
    let mut spec = spec.clone();
    if let Some(confinement) = spec.confine.as_mut() {
        let events = channels.events.clone();
        confinement.notify =
            super::sandbox::Notify(Some(std::sync::Arc::new(move |blocked: super::sandbox::Blocked| {
                let _ = events.send(RunEvent::Warning { message: blocked.message() });
            })));
    }
    let spec = &spec;
    let mut child = spawner.spawn(spec).map_err(|e| {
        super::sandbox::spawn_error(e, |e| {
            Error::RuntimeFailed(format!("Could not start {}: {e}", spec.program.display()))
        })
    })?;
    let mut stdin = child.stdin.take();
    let mut control = child.control;
    let (stderr_tail, stderr_done) = collect_tail(child.stderr);
    let mut lines = CappedLines::new(child.stdout);
    let mut cancel = channels.cancel.clone();

    let mut steps = Vec::new();
    for line in protocol.opening() {
        steps.push(Step::Send(line));
    }
    let mut waiting: FuturesUnordered<_> = FuturesUnordered::new();
    let mut stopping = Stopping::No;
    let mut silence_deadline = Instant::now() + timeouts.silence;
    let mut stdout_open = true;
    let mut warned_lossy = false;
    // The leader can exit while something it left behind keeps stdout open.
    let mut leader_exit: Option<ExitInfo> = None;
    let mut tick = tokio::time::interval(Duration::from_millis(250));
    // Set once the protocol has its result and stdin is closed: the latest the exit is awaited.
    let mut exit_by: Option<Instant> = None;

    // Until the leader has exited, cancel and the silence timeout are watched, whether or not
    // stdout is still open: a CLI that closed its output can still hang.
    let mut exit = loop {
        apply(&mut steps, &mut stdin, &channels, policy, &mut waiting, protocol.as_mut()).await;
        if exit_by.is_none() && stdin.is_none() && protocol.has_result() {
            exit_by = Some(Instant::now() + AFTER_RESULT);
        }
        let ladder_at = match &stopping {
            Stopping::Yes { next, .. } => *next,
            Stopping::No => silence_deadline,
        };
        tokio::select! {
            line = lines.next(), if stdout_open => match line {
                Ok(ReadLine::Line { text, lossy }) => {
                    silence_deadline = Instant::now() + timeouts.silence;
                    if lossy && !warned_lossy {
                        warned_lossy = true;
                        channels.emit(RunEvent::Warning {
                            message: "The runtime printed bytes that are not UTF-8; they were replaced with \u{fffd}.".into(),
                        });
                    }
                    if !text.trim().is_empty() {
                        protocol.on_line(&text, &mut steps);
                    }
                }
                Ok(ReadLine::TooLong(bytes)) => {
                    silence_deadline = Instant::now() + timeouts.silence;
                    channels.emit(RunEvent::Warning { message: ReadLine::too_long_message(bytes) });
                }
                Ok(ReadLine::Eof) => stdout_open = false,
                Err(e) => {
                    channels.emit(RunEvent::Warning { message: format!("Could not read the runtime's output: {e}") });
                    stdout_open = false;
                }
            },
            changed = asking.changed() => {
                // Asked or answered elsewhere: the silence counts from now (a closed channel
                // means the hosting ended; nothing waits there any more).
                if changed.is_err() {
                    asking = idle.subscribe();
                }
                silence_deadline = Instant::now() + timeouts.silence;
            }
            Some((request_id, answer)) = waiting.next(), if !waiting.is_empty() => {
                let answer: PermissionAnswer = answer;
                // The run was waiting for the user, not silent: its silence counts from now.
                silence_deadline = Instant::now() + timeouts.silence;
                channels.emit(RunEvent::PermissionResolved { request_id: request_id.clone(), allowed: answer.allow });
                protocol.on_permission(&request_id, answer, &mut steps);
            }
            changed = cancel.changed(), if matches!(stopping, Stopping::No) => {
                if changed.is_err() || *cancel.borrow() {
                    stopping = begin_stop(RunOutcome::Cancelled, protocol.as_mut(), &mut stdin, control.as_mut(), timeouts).await;
                }
            }
            _ = tick.tick(), if stdout_open => {
                if let Some(info) = leader_exit {
                    break Exited::Status(info);
                }
                if let Ok(Some(info)) = control.try_wait() {
                    leader_exit = Some(info); // one more tick to read what is already written
                }
            }
            // Stdout is closed: nothing more to read, so the leader's exit is polled closely.
            _ = tokio::time::sleep(EXIT_POLL), if !stdout_open => {
                match control.try_wait() {
                    Ok(Some(info)) => break Exited::Status(info),
                    Ok(None) => {}
                    Err(_) => break Exited::Unknown,
                }
            }
            // The turn is decided and the CLI is still tearing down: end it (below) and go on.
            _ = sleep_until(exit_by.unwrap_or(ladder_at)), if exit_by.is_some() && matches!(stopping, Stopping::No) => {
                break match control.try_wait() {
                    Ok(Some(info)) => Exited::Status(info),
                    _ => Exited::Unknown,
                };
            }
            // No silence timeout while a permission question waits for the user: the user may be
            // away for hours (the question has its own expiry, and Stop still works).
            _ = sleep_until(ladder_at), if (waiting.is_empty() && !busy(&asking)) || !matches!(stopping, Stopping::No) => {
                match &mut stopping {
                    Stopping::No => {
                        channels.emit(RunEvent::Warning {
                            message: format!("No output for {} s: stopping the run.", timeouts.silence.as_secs()),
                        });
                        stopping = begin_stop(RunOutcome::TimedOut, protocol.as_mut(), &mut stdin, control.as_mut(), timeouts).await;
                    }
                    // SIGKILL was sent a grace ago and the leader is still not reaped.
                    Stopping::Yes { step, .. } if *step >= 2 => break Exited::Unknown,
                    Stopping::Yes { .. } => escalate(control.as_mut(), &mut stopping, timeouts),
                }
            }
        }
    };
    // Whatever the CLI left behind in its group (background tools) goes with it.
    let _ = control.kill();
    let gone_by = Instant::now() + Duration::from_secs(2);
    while control.group_alive() && Instant::now() < gone_by {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // Stderr closes once the group is gone; a grandchild that kept it open is not waited for.
    let _ = tokio::time::timeout(Duration::from_millis(500), stderr_done).await;
    let tail = stderr_tail.lock().map(|t| String::from_utf8_lossy(&t).into_owned()).unwrap_or_default();
    let result = match stopping {
        Stopping::Yes { outcome: RunOutcome::Cancelled, .. } => RunResult::stopped_by_user(),
        Stopping::Yes { outcome, .. } if outcome == RunOutcome::TimedOut => RunResult::with_outcome(
            outcome,
            format!("The runtime printed nothing for {} s and was stopped.", timeouts.silence.as_secs()),
        ),
        _ => {
            let exit = exit.take_exit();
            protocol.finish(exit, &tail)
        }
    };
    Ok(result)
}

/// The exit status, or why there is none.
enum Exited {
    Status(ExitInfo),
    Unknown,
}

impl Exited {
    fn take_exit(&mut self) -> ExitInfo {
        match self {
            Exited::Status(info) => *info,
            Exited::Unknown => ExitInfo { code: None, signal: None },
        }
    }
}

async fn apply(
    steps: &mut Vec<Step>,
    stdin: &mut Option<Box<dyn tokio::io::AsyncWrite + Send + Unpin>>,
    channels: &RunChannels,
    policy: ApprovalPolicy,
    waiting: &mut FuturesUnordered<PermissionWait>,
    protocol: &mut dyn StreamProtocol,
) {
    // Policy answers can produce more steps; loop until none are left.
    while !steps.is_empty() {
        for step in std::mem::take(steps) {
            match step {
                Step::Emit(event) => channels.emit(event),
                Step::Send(line) => {
                    if let Some(pipe) = stdin.as_mut() {
                        let mut bytes = line.into_bytes();
                        bytes.push(b'\n');
                        if let Err(e) = async {
                            pipe.write_all(&bytes).await?;
                            pipe.flush().await
                        }
                        .await
                        {
                            channels
                                .emit(RunEvent::Warning { message: format!("Could not write to the runtime: {e}") });
                        }
                    }
                }
                Step::EndInput => {
                    if let Some(mut pipe) = stdin.take() {
                        let _ = pipe.shutdown().await;
                    }
                }
                Step::Ask { request_id, tool, input, description, read_only } => {
                    let decided = match policy {
                        ApprovalPolicy::AllowAll => Some(true),
                        ApprovalPolicy::ReadOnly => Some(read_only),
                        ApprovalPolicy::Ask => None,
                    };
                    channels.emit(RunEvent::PermissionRequest {
                        request_id: request_id.clone(),
                        tool: tool.clone(),
                        input: input.clone(),
                        description: description.clone(),
                    });
                    match decided {
                        Some(allow) => {
                            channels
                                .emit(RunEvent::PermissionResolved { request_id: request_id.clone(), allowed: allow });
                            protocol.on_permission(&request_id, PermissionAnswer { allow }, steps);
                        }
                        None => {
                            let (reply, answer) = oneshot::channel();
                            let asked = channels.permissions.send(PendingPermission {
                                request_id: request_id.clone(),
                                tool,
                                input,
                                description,
                                reply,
                            });
                            if asked.is_err() {
                                // Nobody can answer: deny rather than hang.
                                protocol.on_permission(&request_id, PermissionAnswer { allow: false }, steps);
                            } else {
                                waiting.push(Box::pin(async move {
                                    let answer = answer.await.unwrap_or(PermissionAnswer { allow: false });
                                    (request_id, answer)
                                }));
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Whether a question waits elsewhere, or the count changed unseen (its answer resets the
/// silence first).
fn busy(asking: &watch::Receiver<usize>) -> bool {
    *asking.borrow() > 0 || asking.has_changed().unwrap_or(false)
}

type PermissionWait = std::pin::Pin<Box<dyn std::future::Future<Output = (String, PermissionAnswer)> + Send>>;

async fn begin_stop(
    outcome: RunOutcome,
    protocol: &mut dyn StreamProtocol,
    stdin: &mut Option<Box<dyn tokio::io::AsyncWrite + Send + Unpin>>,
    control: &mut dyn ChildControl,
    timeouts: Timeouts,
) -> Stopping {
    let mut interrupted = false;
    if let (Some(message), Some(pipe)) = (protocol.interrupt(), stdin.as_mut()) {
        let mut bytes = message.into_bytes();
        bytes.push(b'\n');
        interrupted = pipe.write_all(&bytes).await.is_ok() && pipe.flush().await.is_ok();
    }
    if !interrupted {
        let _ = control.interrupt();
    }
    Stopping::Yes { outcome, step: 0, next: Instant::now() + timeouts.grace }
}

fn escalate(control: &mut dyn ChildControl, stopping: &mut Stopping, timeouts: Timeouts) {
    if let Stopping::Yes { step, next, .. } = stopping {
        *step += 1;
        let _ = if *step == 1 { control.terminate() } else { control.kill() };
        *next = Instant::now() + timeouts.grace;
    }
}

fn collect_tail(
    stderr: Box<dyn tokio::io::AsyncRead + Send + Unpin>,
) -> (Arc<Mutex<Vec<u8>>>, tokio::task::JoinHandle<()>) {
    let tail = Arc::new(Mutex::new(Vec::new()));
    let sink = tail.clone();
    let done = tokio::spawn(async move {
        let mut stderr = stderr;
        let mut buf = [0u8; 4096];
        while let Ok(n) = stderr.read(&mut buf).await {
            if n == 0 {
                break;
            }
            if let Ok(mut tail) = sink.lock() {
                tail.extend_from_slice(&buf[..n]);
                let excess = tail.len().saturating_sub(STDERR_TAIL_BYTES);
                tail.drain(..excess);
            }
        }
    });
    (tail, done)
}

/// Pending permission questions by request id; kept by the run's owner.
pub type PendingAnswers = HashMap<String, oneshot::Sender<PermissionAnswer>>;

/// For adapters' unit tests: replaying recorded output through a protocol as `supervise` does.
#[cfg(test)]
pub(crate) mod replay {
    use super::{Step, StreamProtocol};
    use crate::runtimes::RunEvent;

    /// Feeds every line (blank lines skipped, as the supervisor does); the steps, in order.
    pub fn feed(protocol: &mut dyn StreamProtocol, text: &str) -> Vec<Step> {
        let mut out = Vec::new();
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            protocol.on_line(line, &mut out);
        }
        out
    }

    /// The events among `steps`.
    pub fn events(steps: &[Step]) -> Vec<RunEvent> {
        steps
            .iter()
            .filter_map(|s| match s {
                Step::Emit(e) => Some(e.clone()),
                _ => None,
            })
            .collect()
    }

    /// The lines written to stdin among `steps`, parsed as JSON.
    pub fn sent(steps: &[Step]) -> Vec<serde_json::Value> {
        steps
            .iter()
            .filter_map(|s| match s {
                Step::Send(line) => Some(serde_json::from_str(line).expect("protocols send JSON")),
                _ => None,
            })
            .collect()
    }
}
