//! Runs the fake model server by hand, e.g. to record what a real agent CLI does against it:
//!
//! ```text
//! cargo run -p clawboo-testkit --example fake_model_server -- \
//!     tool '{"command":"echo hello-from-tool"}' 'All done.' --log /path/requests.jsonl
//! ```
//!
//! Behaviors: `text ANSWER`, `tool INPUT_JSON ANSWER [TOOL_NAME]`, `slow TEXT CHUNKS DELAY_MS`, `error MESSAGE`.
//! `--rules JSON` adds rules tried first (see `clawboo_testkit::Rule`): a list of
//! `{"contains": "…", "steps": [{"text": "…"} | {"tool": "NAME", "input": {…}} |
//! {"slow": "…", "chunks": N, "delayMs": MS}, …]}`. `POST /testkit/fail-next {"count": N,
//! "status": S}` makes the next N model requests fail with HTTP S (503 unless said); with
//! `"only": "TEXT"`, only requests whose turn's message contains TEXT fail (others are answered).
//! Prints `listening http://127.0.0.1:PORT`, appends every request to `--log` as a JSON line, and
//! runs until killed or for `--exit-after SECS` (default 600). `--no-log` keeps no request at all
//! (a bench's model server, in a process of its own as a provider's is).

use std::io::Write;
use std::time::{Duration, Instant};

use clawboo_testkit::{Behavior, FakeModelServer};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let log = take_flag(&mut args, "--log");
    let no_log = take_switch(&mut args, "--no-log");
    let exit_after = take_flag(&mut args, "--exit-after").map_or(600, |s| s.parse().expect("--exit-after SECS"));
    let rules = take_flag(&mut args, "--rules").map(|json| parse_rules(&json)).unwrap_or_default();
    let arg = |i: usize| args.get(i).cloned().unwrap_or_default();
    let behavior = match arg(0).as_str() {
        "text" => Behavior::text(arg(1)),
        "tool" => {
            let input = serde_json::from_str(&arg(1)).expect("INPUT_JSON");
            let name = args.get(3).cloned().unwrap_or_else(|| "*".into());
            Behavior::tool_then_answer(name, input, arg(2))
        }
        "slow" => Behavior::slow(
            arg(1),
            arg(2).parse().expect("CHUNKS"),
            Duration::from_millis(arg(3).parse().expect("DELAY_MS")),
        ),
        "error" => Behavior::server_error(arg(1)),
        other => panic!("unknown behavior {other:?}: use text, tool, slow or error"),
    };
    let behavior = Behavior { rules, ..behavior };
    let server = FakeModelServer::start_blocking(behavior);
    if no_log {
        server.stop_logging();
    }
    println!("listening {}", server.base_url());
    std::io::stdout().flush().expect("flush stdout");

    let deadline = Instant::now() + Duration::from_secs(exit_after);
    let mut written = 0;
    loop {
        std::thread::sleep(Duration::from_millis(100));
        let stop = Instant::now() > deadline;
        // Only what arrived since the last look: copying every request so far, ten times a
        // second, kept a core busy once a bench had sent a few thousand large ones.
        let requests = server.requests_from(written);
        if let Some(path) = &log {
            let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path).expect("open --log");
            for r in &requests {
                let line = serde_json::json!({"method": r.method, "path": r.path, "query": r.query,
                                              "headers": r.headers, "body": r.body, "raw_body": r.raw_body});
                writeln!(file, "{line}").expect("write --log");
            }
        }
        for r in &requests {
            eprintln!("{} {}{}{}", r.method, r.path, if r.query.is_empty() { "" } else { "?" }, r.query);
        }
        written += requests.len();
        if stop {
            break;
        }
    }
}

fn take_switch(args: &mut Vec<String>, switch: &str) -> bool {
    match args.iter().position(|a| a == switch) {
        Some(at) => {
            args.remove(at);
            true
        }
        None => false,
    }
}

fn take_flag(args: &mut Vec<String>, flag: &str) -> Option<String> {
    let at = args.iter().position(|a| a == flag)?;
    let value = args.get(at + 1).cloned().expect("flag value");
    args.drain(at..at + 2);
    Some(value)
}

fn parse_rules(json: &str) -> Vec<clawboo_testkit::Rule> {
    let value: serde_json::Value = serde_json::from_str(json).expect("--rules takes a JSON list");
    let rules = value.as_array().expect("--rules takes a JSON list");
    rules
        .iter()
        .map(|rule| clawboo_testkit::Rule {
            contains: rule["contains"].as_str().expect("a rule's \"contains\"").to_owned(),
            steps: rule["steps"]
                .as_array()
                .expect("a rule's \"steps\"")
                .iter()
                .map(|step| match (step["text"].as_str(), step["tool"].as_str()) {
                    _ if step["slow"].is_string() => clawboo_testkit::Reply::Slow {
                        text: step["slow"].as_str().unwrap_or_default().to_owned(),
                        chunks: step["chunks"].as_u64().unwrap_or(10) as u32,
                        delay: Duration::from_millis(step["delayMs"].as_u64().unwrap_or(500)),
                    },
                    (Some(text), _) => clawboo_testkit::Reply::Text(text.to_owned()),
                    (None, Some(tool)) => {
                        clawboo_testkit::Reply::ToolCall { name: tool.to_owned(), input: step["input"].clone() }
                    }
                    _ => panic!("a step is {{\"text\": …}}, {{\"tool\": …, \"input\": …}} or {{\"slow\": …}}"),
                })
                .collect(),
        })
        .collect()
}
