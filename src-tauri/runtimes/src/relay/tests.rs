use serde_json::json;

use super::upstream::{allowed_path, check_upstream_url, upstream_url};
use super::usage::{RequestUsage, UsageScanner, MAX_LINE_BYTES};
use crate::secrets::Provider;

/// Feeds `body` to a scanner in pieces of `step` bytes (splitting lines, CRLFs and characters).
fn scan(content_type: &str, body: &str, step: usize) -> Option<RequestUsage> {
    let mut scanner = UsageScanner::new(Some(content_type));
    for piece in body.as_bytes().chunks(step) {
        scanner.push(piece);
    }
    scanner.finish()
}

fn usage(input: u64, output: u64, read: Option<u64>, write: Option<u64>) -> Option<RequestUsage> {
    Some(RequestUsage {
        input_tokens: Some(input),
        output_tokens: Some(output),
        cache_read_tokens: read,
        cache_write_tokens: write,
    })
}

#[test]
fn anthropic_stream_usage_comes_from_message_start_and_the_last_message_delta() {
    let start = json!({"type": "message_start", "message": {"id": "m", "usage": {"input_tokens": 12,
        "cache_creation_input_tokens": 300, "cache_read_input_tokens": 4000, "output_tokens": 1}}});
    let delta = json!({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 57}});
    let body = format!(
        "event: message_start\r\ndata: {start}\r\n\r\nevent: content_block_delta\r\ndata: {}\r\n\r\n\
         event: message_delta\r\ndata: {delta}\r\n\r\nevent: message_stop\r\ndata: {{\"type\":\"message_stop\"}}\r\n\r\n",
        json!({"type": "content_block_delta", "delta": {"type": "text_delta", "text": "héllo \"usage\""}})
    );
    for step in [1, 3, 7, 64, body.len()] {
        assert_eq!(
            scan("text/event-stream; charset=utf-8", &body, step),
            usage(12, 57, Some(4000), Some(300)),
            "{step}"
        );
    }
}

#[test]
fn responses_stream_usage_comes_from_response_completed() {
    let created = json!({"type": "response.created", "response": {"id": "r", "usage": null}});
    let completed = json!({"type": "response.completed", "response": {"id": "r", "output": [], "usage": {
        "input_tokens": 900, "input_tokens_details": {"cached_tokens": 512},
        "output_tokens": 40, "output_tokens_details": {"reasoning_tokens": 8}, "total_tokens": 940}}});
    let body = format!("event: response.created\ndata: {created}\n\nevent: response.completed\ndata: {completed}\n\n");
    for step in [1, 5, body.len()] {
        assert_eq!(scan("text/event-stream", &body, step), usage(900, 40, Some(512), None));
    }
}

#[test]
fn chat_completions_stream_usage_comes_from_the_final_chunk() {
    let chunk = json!({"id": "c", "choices": [{"index": 0, "delta": {"content": "hi"}}], "usage": null});
    let last = json!({"id": "c", "choices": [], "usage": {"prompt_tokens": 70, "completion_tokens": 5,
        "total_tokens": 75, "prompt_tokens_details": {"cached_tokens": 64}}});
    let body = format!("data: {chunk}\n\ndata: {last}\n\ndata: [DONE]\n\n");
    assert_eq!(scan("text/event-stream", &body, 2), usage(70, 5, Some(64), None));
    // A stream whose last line has no newline still counts.
    assert_eq!(scan("text/event-stream", &format!("data: {last}"), 4), usage(70, 5, Some(64), None));
}

#[test]
fn whole_json_answers_of_each_api_carry_their_usage() {
    let anthropic = json!({"type": "message", "usage": {"input_tokens": 3, "output_tokens": 4,
        "cache_read_input_tokens": 5, "cache_creation_input_tokens": 6}});
    assert_eq!(scan("application/json", &anthropic.to_string(), 10), usage(3, 4, Some(5), Some(6)));
    let responses = json!({"object": "response", "usage": {"input_tokens": 8, "output_tokens": 9,
        "input_tokens_details": {"cached_tokens": 2}}});
    assert_eq!(scan("application/json", &responses.to_string(), 10), usage(8, 9, Some(2), None));
    let chat = json!({"object": "chat.completion", "usage": {"prompt_tokens": 11, "completion_tokens": 12}});
    assert_eq!(scan("application/json", &chat.to_string(), 10), usage(11, 12, None, None));
    assert_eq!(scan("application/json", "{\"no\": \"usage\"}", 3), None);
    assert_eq!(scan("text/plain", &chat.to_string(), 3), None);
}

#[test]
fn an_overlong_line_is_skipped_without_being_held_and_later_lines_still_count() {
    let last = json!({"usage": {"prompt_tokens": 1, "completion_tokens": 2}});
    let mut scanner = UsageScanner::new(Some("text/event-stream"));
    scanner.push(b"data: {\"usage\": ");
    let filler = vec![b'x'; 1024 * 1024];
    for _ in 0..(MAX_LINE_BYTES / filler.len() + 2) {
        scanner.push(&filler);
    }
    scanner.push(format!("\n\ndata: {last}\n\n").as_bytes());
    assert_eq!(scanner.finish(), usage(1, 2, None, None));
}

#[test]
fn upstream_urls_follow_each_apis_base_convention() {
    let anthropic = |base| upstream_url(Provider::Anthropic, base, "messages", Some("beta=true"));
    assert_eq!(anthropic("https://api.anthropic.com"), "https://api.anthropic.com/v1/messages?beta=true");
    assert_eq!(anthropic("https://proxy.test/v1/"), "https://proxy.test/v1/messages?beta=true");
    let openai = |base, rest| upstream_url(Provider::OpenAi, base, rest, None);
    assert_eq!(openai("https://api.openai.com/v1", "responses"), "https://api.openai.com/v1/responses");
    assert_eq!(
        openai("https://openrouter.ai/api/v1/", "chat/completions"),
        "https://openrouter.ai/api/v1/chat/completions"
    );
    assert_eq!(
        upstream_url(Provider::Custom, "http://127.0.0.1:11434/v1", "models", Some("")),
        "http://127.0.0.1:11434/v1/models"
    );
}

#[test]
fn plain_http_upstreams_are_refused_unless_loopback() {
    for ok in
        ["https://api.anthropic.com/v1/messages", "http://127.0.0.1:9/v1/x", "http://localhost/x", "http://[::1]:1/x"]
    {
        assert!(check_upstream_url(ok).is_ok(), "{ok}");
    }
    for bad in ["http://api.anthropic.com/v1/messages", "http://192.168.1.2:11434/v1/models", "ftp://host/x"] {
        let err = check_upstream_url(bad).unwrap_err();
        assert!(err.contains("https://") || err.contains("Refused"), "{err}");
    }
}

#[test]
fn only_the_model_apis_are_forwarded() {
    use hyper::Method;
    for (method, rest) in [
        (Method::POST, "messages"),
        (Method::POST, "messages/count_tokens"),
        (Method::POST, "responses"),
        (Method::POST, "chat/completions"),
        (Method::GET, "models"),
        (Method::GET, "models/gpt-5"),
    ] {
        assert!(allowed_path(&method, rest), "{method} {rest}");
    }
    for (method, rest) in [
        (Method::GET, "messages"),
        (Method::POST, "files"),
        (Method::DELETE, "models/x"),
        (Method::GET, "organizations/keys"),
        (Method::GET, "models/../files"),
    ] {
        assert!(!allowed_path(&method, rest), "{method} {rest}");
    }
}

/// A run's next request waits until the driver has seen its last recorded call (the budgets are
/// checked there), and no longer than the bound when nobody does.
#[test]
fn a_runs_next_request_waits_until_its_last_call_is_settled() {
    use std::time::Duration;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
    runtime.block_on(async {
        let run = super::run_log(&mut super::Grants::default(), "run-1");
        // Nothing unsettled: at once.
        tokio::time::timeout(Duration::from_millis(50), run.settle(Duration::from_secs(60))).await.unwrap();

        let (first, second) = (run.answer_ended(), run.answer_ended());
        let waiting = tokio::spawn({
            let run = run.clone();
            async move { run.settle(Duration::from_secs(60)).await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(first);
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!waiting.is_finished(), "one call is still unsettled");
        drop(second);
        tokio::time::timeout(Duration::from_secs(5), waiting).await.unwrap().unwrap();

        // A driver that never reads holds the run's calls no longer than the bound.
        let held = run.answer_ended();
        tokio::time::timeout(Duration::from_secs(5), run.settle(Duration::from_millis(30))).await.unwrap();
        drop(held);
        assert_eq!(run.refused(), None);
    });
}
