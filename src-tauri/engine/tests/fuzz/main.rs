//! Every parser of untrusted input, fed cut, flipped, spliced and random input for a time box:
//! none may panic. Seeds are the recorded real CLI outputs in tests/fixtures (and the model API
//! streams in tests/fixtures/native). Each test runs `CLAWBOO_FUZZ_SECONDS` (1 s by default;
//! `scripts/soak.d/fuzz` runs 60 s each); see harness.rs for the knobs.

mod harness;
mod mutate;

use std::path::PathBuf;

use clawboo_engine::relay::UsageScanner;
use clawboo_engine::runtimes::claude_code::DuplexProtocol;
use clawboo_engine::runtimes::codex::{AppServerProtocol, ThreadSetup};
use clawboo_engine::runtimes::hermes::AcpProtocol;
use clawboo_engine::runtimes::lines::{CappedLines, ReadLine};
use clawboo_engine::runtimes::native::conversation::StreamDecoder;
use clawboo_engine::runtimes::native::sse::SseParser;
use clawboo_engine::runtimes::native::{anthropic, openai};
use clawboo_engine::runtimes::openclaw::{summarize, OpenclawAcp};
use clawboo_engine::runtimes::process::ExitInfo;
use clawboo_engine::runtimes::supervise::{Step, StreamProtocol};
use clawboo_engine::runtimes::PermissionAnswer;
use harness::{fuzz, Case};
use mutate::{chunks, Corpus};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// The recorded sessions in `dir` whose names end with one of `endings`, a line each.
fn sessions(dir: &str, endings: &[&str]) -> Vec<Vec<String>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixtures().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| endings.iter().any(|end| p.to_string_lossy().ends_with(end)))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no seeds in {dir} ending {endings:?}");
    files.iter().map(|f| std::fs::read_to_string(f).unwrap().lines().map(str::to_owned).collect()).collect()
}

/// Runs a CLI protocol over the lines as its supervisor would: answering each permission
/// question (allow or deny at random), now and then an interrupt or a stray answer, and
/// judging the exit at the end.
fn drive_protocol(protocol: &mut dyn StreamProtocol, case: Case) {
    let Case { lines, rng } = case;
    let _ = protocol.opening();
    let mut out = Vec::new();
    let mut answers = Vec::new();
    for line in &lines {
        protocol.on_line(line, &mut out);
        for step in out.drain(..) {
            if let Step::Ask { request_id, .. } = step {
                protocol.on_permission(&request_id, PermissionAnswer { allow: rng.chance(50) }, &mut answers);
            }
        }
        if rng.chance(2) {
            let _ = protocol.interrupt();
        }
        if rng.chance(2) {
            protocol.on_permission(&rng.next().to_string(), PermissionAnswer { allow: true }, &mut answers);
        }
        answers.clear();
    }
    let exit = *rng.pick(&[
        ExitInfo { code: Some(0), signal: None },
        ExitInfo { code: Some(1), signal: None },
        ExitInfo { code: None, signal: Some(9) },
    ]);
    let stderr = lines.last().cloned().unwrap_or_default();
    let _ = protocol.finish(exit, &stderr);
}

#[test]
fn claude_code_stream_json() {
    let corpus = Corpus::new(sessions("claude-code", &[".stdout.jsonl", "-turn.jsonl", "-500.jsonl"]));
    fuzz("claude_code", "Claude Code stream-json (duplex)", &corpus, |case| {
        let mut protocol = DuplexProtocol::new("Run echo", case.rng.chance(50));
        drive_protocol(&mut protocol, case);
    });
}

#[test]
fn codex_app_server() {
    let corpus = Corpus::new(sessions("codex", &[".stdout.jsonl", "exec-json-500.jsonl", "-turn.jsonl"]));
    fuzz("codex", "Codex app-server JSON-RPC", &corpus, |case| {
        let setup = ThreadSetup {
            cwd: "/w".into(),
            model: "gpt-5.5".into(),
            approval_policy: "on-request",
            sandbox: Some("workspace-write"),
            developer_instructions: None,
            config: None,
        };
        let resume = case.rng.chance(50).then(|| "thread-1".to_owned());
        let mut protocol = AppServerProtocol::new(setup, resume, "Run echo".into());
        drive_protocol(&mut protocol, case);
    });
}

#[test]
fn hermes_acp() {
    let corpus = Corpus::new(sessions("hermes", &[".stdout.jsonl"]));
    fuzz("hermes", "Hermes ACP", &corpus, |case| {
        let resume = case.rng.chance(50).then(|| "session-1".to_owned());
        let mut protocol = AcpProtocol::new("/w".into(), "Run echo".into(), resume);
        drive_protocol(&mut protocol, case);
    });
}

#[test]
fn openclaw_acp() {
    let corpus = Corpus::new(sessions("openclaw", &[".stdout.jsonl"]));
    fuzz("openclaw", "OpenClaw ACP bridge", &corpus, |case| {
        let resume = case.rng.chance(50).then(|| "session-1".to_owned());
        let mut protocol = OpenclawAcp::new("/w".into(), "Run echo".into(), resume, None, None);
        drive_protocol(&mut protocol, case);
    });
}

#[test]
fn openclaw_transcript() {
    let corpus = Corpus::new(sessions("openclaw", &["transcript-500.jsonl", "transcript-tool-then-resume.jsonl"]));
    fuzz("openclaw_transcript", "OpenClaw session transcript (usage, errors)", &corpus, |case| {
        // As `events_since` reads them: rows that are not JSON are skipped.
        let events: Vec<serde_json::Value> = case.lines.iter().filter_map(|l| serde_json::from_str(l).ok()).collect();
        let _ = summarize(&events);
    });
}

/// A model API stream, in random chunks, through the SSE parser into a decoder, as a Native
/// call reads it; a small line cap now and then to reach the over-the-cap paths.
fn drive_sse(decoder: &mut dyn StreamDecoder, case: Case) {
    let Case { lines, rng } = case;
    let stream = lines.join("\n");
    let mut parser = if rng.chance(10) { SseParser::with_cap(1 + rng.below(256)) } else { SseParser::new() };
    let mut events = Vec::new();
    let mut ended = false;
    for chunk in chunks(stream.as_bytes(), rng) {
        events.extend(parser.push(chunk));
        for event in events.drain(..) {
            match decoder.on_event(&event, &mut |_| {}) {
                Ok(false) => {}
                Ok(true) | Err(_) => ended = true,
            }
            let _ = event.is_done();
        }
        if ended {
            break;
        }
    }
    if !ended {
        for event in parser.finish() {
            let _ = decoder.on_event(&event, &mut |_| {});
        }
        let _ = parser.take_error();
    }
    let _ = decoder.finish();
}

#[test]
fn native_anthropic_stream() {
    let corpus = Corpus::new(sessions("native", &["anthropic-tool-turn.sse", "anthropic-error.sse"]));
    fuzz("native_anthropic", "Native: Anthropic Messages SSE stream", &corpus, |case| {
        drive_sse(&mut anthropic::Decoder::new(), case);
    });
}

#[test]
fn native_openai_stream() {
    let corpus = Corpus::new(sessions("native", &["openai-tool-turn.sse", "openai-error.sse"]));
    fuzz("native_openai", "Native: OpenAI-compatible chat completions SSE stream", &corpus, |case| {
        drive_sse(&mut openai::Decoder::new(), case);
    });
}

#[test]
fn relay_usage_scanner() {
    let corpus = Corpus::new(sessions("native", &[".sse", ".json"]));
    fuzz("relay_usage", "Model relay: usage read from the provider's answers", &corpus, |case| {
        let Case { lines, rng } = case;
        let body = lines.join("\n");
        let content_type = *rng.pick(&[Some("text/event-stream; charset=utf-8"), Some("application/json"), None]);
        let mut scanner = UsageScanner::new(content_type);
        for chunk in chunks(body.as_bytes(), rng) {
            scanner.push(chunk);
        }
        let _ = scanner.finish();
    });
}

#[test]
fn cli_output_lines() {
    let mut all = sessions("claude-code", &[".jsonl"]);
    all.extend(sessions("hermes", &[".jsonl"]));
    let corpus = Corpus::new(all);
    let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
    fuzz("cli_lines", "CLI stdout split into capped lines", &corpus, |case| {
        let Case { lines, rng } = case;
        let mut bytes = lines.join(if rng.chance(30) { "\r\n" } else { "\n" }).into_bytes();
        if rng.chance(20) {
            bytes.extend((0..rng.below(64)).map(|_| rng.next() as u8));
        }
        let cap = if rng.chance(50) { 1 + rng.below(512) } else { 1 << 20 };
        runtime.block_on(async {
            let mut reader = CappedLines::with_cap(&bytes[..], cap);
            loop {
                match reader.next().await.unwrap() {
                    ReadLine::Eof => break,
                    ReadLine::Line { text, lossy } => {
                        assert!(lossy || text.len() <= cap, "a line over the cap came through")
                    }
                    ReadLine::TooLong(n) => assert!(n > cap, "a line within the cap was called too long"),
                }
            }
        });
    });
}

/// A self-check of the harness: a parser that panics on some inputs is caught and reported,
/// so a zero in the figures means something.
#[test]
fn the_harness_catches_a_panicking_parser() {
    let corpus = Corpus::new(sessions("hermes", &["acp-500.stdout.jsonl"]));
    let failure = harness::run("self_check", "harness self-check", &corpus, |case| {
        if case.lines.join("\n").len() % 7 == 3 {
            panic!("planted panic");
        }
    })
    .expect_err("the planted panic must fail the run");
    assert!(failure.contains("planted panic") && failure.contains("inputs panicked"), "{failure}");
}
