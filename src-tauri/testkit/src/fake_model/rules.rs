//! Scripted replies chosen by what the turn says: a rule matches when the text of the last user
//! message (the turn's message, with whatever rides in front of it) contains its needle; its
//! steps are the replies to that message and to each tool result after it, in order. Lets one
//! server play several agents (a leader that hands off twice, teammates that answer).

use serde_json::Value;

use super::Reply;

/// See the module docs. The first matching rule wins; the last step repeats.
#[derive(Debug, Clone)]
pub struct Rule {
    pub contains: String,
    pub steps: Vec<Reply>,
}

/// The reply the rules give this request body, if one matches.
pub(crate) fn reply_for<'a>(rules: &'a [Rule], body: &Value) -> Option<&'a Reply> {
    if rules.is_empty() {
        return None;
    }
    let (text, tool_results) = last_user_text(body)?;
    let rule = rules.iter().find(|r| text.contains(&r.contains))?;
    rule.steps.get(tool_results.min(rule.steps.len().saturating_sub(1)))
}

/// How OpenClaw's internal context message starts.
const OPENCLAW_INTERNAL_CONTEXT: &str = "<<<BEGIN_OPENCLAW_INTERNAL_CONTEXT>>>";

/// The text of the last user message that has text (across the three APIs), and how many tool
/// results follow it.
pub fn last_user_text(body: &Value) -> Option<(String, usize)> {
    let items = body["messages"].as_array().or_else(|| body["input"].as_array())?;
    let mut tool_results = 0;
    for item in items.iter().rev() {
        if is_tool_result(item) {
            tool_results += tool_result_count(item);
            continue;
        }
        if item["role"] != "user" {
            continue;
        }
        let text = text_of(&item["content"]);
        // OpenClaw (2026.9.6) may add its own internal context as a user message after the
        // turn's (active exec sessions, subagents): never the turn's message.
        if !text.trim().is_empty() && !text.trim_start().starts_with(OPENCLAW_INTERNAL_CONTEXT) {
            return Some((text, tool_results));
        }
    }
    None
}

fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter(|p| p["type"] != "tool_result")
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn is_tool_result(item: &Value) -> bool {
    // A client tool_search only loads a deferred tool; it is no step of the script.
    item["role"] == "tool"
        || item["type"].as_str().is_some_and(|t| t.ends_with("_output") && t != "tool_search_output")
        || (item["role"] == "user"
            && item["content"].as_array().is_some_and(|b| b.iter().any(|p| p["type"] == "tool_result")))
}

fn tool_result_count(item: &Value) -> usize {
    item["content"].as_array().map_or(1, |b| b.iter().filter(|p| p["type"] == "tool_result").count().max(1))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn steps_follow_the_tool_results_after_the_matching_message() {
        let rules = vec![
            Rule { contains: "RESULTS".into(), steps: vec![Reply::Text("final".into())] },
            Rule {
                contains: "plan".into(),
                steps: vec![
                    Reply::ToolCall { name: "a".into(), input: json!({}) },
                    Reply::ToolCall { name: "b".into(), input: json!({}) },
                    Reply::Text("done".into()),
                ],
            },
        ];
        let anthropic = json!({"messages": [
            {"role": "user", "content": [{"type": "text", "text": "ctx\n\nplan it"}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "1", "name": "a", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "1", "content": "ok"}]},
        ]});
        assert!(matches!(reply_for(&rules, &anthropic), Some(Reply::ToolCall { name, .. }) if name == "b"));
        let chat = json!({"messages": [{"role": "system", "content": "s"}, {"role": "user", "content": "plan"},
            {"role": "assistant", "tool_calls": []}, {"role": "tool", "content": "ok"}, {"role": "tool", "content": "ok"}]});
        assert!(matches!(reply_for(&rules, &chat), Some(Reply::Text(t)) if t == "done"));
        let responses =
            json!({"input": [{"role": "user", "content": [{"type": "input_text", "text": "RESULTS of plan"}]}]});
        assert!(matches!(reply_for(&rules, &responses), Some(Reply::Text(t)) if t == "final"));
        assert!(reply_for(&rules, &json!({"messages": [{"role": "user", "content": "hello"}]})).is_none());
    }
}
