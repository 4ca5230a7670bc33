//! The model a request body names, read without parsing the body. The relay records it with
//! every request, and a body carries the whole carried conversation (hundreds of KB at a long
//! chat's end), while `model` is a top-level key most clients write first: the keys before it
//! are stepped over (strings and brackets matched), never parsed into values.

/// The top-level `model` string of a JSON request body; `None` when it names none, names an
/// empty one or no string, or the body is not a JSON object up to that key.
pub fn model_in_body(body: &[u8]) -> Option<String> {
    let mut at = skip_space(body, 0);
    if body.get(at) != Some(&b'{') {
        return None;
    }
    at += 1;
    loop {
        at = skip_space(body, at);
        // `}`: an object without the key; anything else but a key: not JSON.
        if body.get(at) != Some(&b'"') {
            return None;
        }
        let key_end = string_end(body, at)?;
        let key = &body[at..key_end];
        at = skip_space(body, key_end);
        if body.get(at) != Some(&b':') {
            return None;
        }
        at = skip_space(body, at + 1);
        if is_model_key(key) {
            if body.get(at) != Some(&b'"') {
                return None;
            }
            let end = string_end(body, at)?;
            let model: String = serde_json::from_slice(&body[at..end]).ok()?;
            return (!model.is_empty()).then_some(model);
        }
        at = skip_space(body, skip_value(body, at)?);
        if body.get(at) != Some(&b',') {
            return None;
        }
        at += 1;
    }
}

/// `"model"`, also when written with escapes.
fn is_model_key(quoted: &[u8]) -> bool {
    quoted == b"\"model\""
        || (quoted.contains(&b'\\') && serde_json::from_slice::<String>(quoted).is_ok_and(|key| key == "model"))
}

fn skip_space(body: &[u8], mut at: usize) -> usize {
    while matches!(body.get(at), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        at += 1;
    }
    at
}

/// From a string's opening quote at `at`, the index just past its closing quote.
fn string_end(body: &[u8], mut at: usize) -> Option<usize> {
    at += 1;
    loop {
        at += body.get(at..)?.iter().position(|b| matches!(b, b'"' | b'\\'))?;
        if body[at] == b'"' {
            return Some(at + 1);
        }
        at += 2; // the escape and the byte it escapes
    }
}

/// From the first byte of a value at `at`, the index just past it.
fn skip_value(body: &[u8], mut at: usize) -> Option<usize> {
    match body.get(at)? {
        b'"' => string_end(body, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            loop {
                at += body.get(at..)?.iter().position(|b| matches!(b, b'"' | b'{' | b'[' | b'}' | b']'))?;
                match body[at] {
                    b'"' => at = string_end(body, at)?,
                    b'{' | b'[' => {
                        depth += 1;
                        at += 1;
                    }
                    _ => {
                        depth -= 1;
                        at += 1;
                        if depth == 0 {
                            return Some(at);
                        }
                    }
                }
            }
        }
        // A number, true, false or null: up to what ends it.
        _ => Some(
            at + body.get(at..)?.iter().position(|b| matches!(b, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))?,
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::model_in_body;

    fn model(body: &str) -> Option<String> {
        model_in_body(body.as_bytes())
    }

    #[test]
    fn the_top_level_model_is_found_wherever_it_stands() {
        assert_eq!(model(r#"{"model":"claude-x","messages":[]}"#).as_deref(), Some("claude-x"));
        let after = r#" { "max_tokens" : 8192, "stream": true, "temperature": -1.5e3, "stop": null,
            "messages": [{"role": "user", "content": "say \"model\": \"wrong\" {[ and \\"}],
            "metadata": {"model": "nested-not-this", "list": [1, [2, {"x": "]}"}]]},
            "model" : "gpt-5.5", "tools": []}"#;
        assert_eq!(model(after).as_deref(), Some("gpt-5.5"));
        assert_eq!(model(r#"{"mod\u0065l": "esc\"aped"}"#).as_deref(), Some("esc\"aped"));
    }

    #[test]
    fn no_model_an_empty_or_odd_one_or_no_json_object_is_none() {
        for body in [
            r#"{"messages": [], "metadata": {"model": "nested"}}"#,
            r#"{"model": ""}"#,
            r#"{"model": 5}"#,
            r#"{"model": null}"#,
            r#"["model", "x"]"#,
            r#"{"messages": [1, 2"#,
            r#"{"model" "x"}"#,
            r#"{"a": 1 "model": "x"}"#,
            r#"{"model": "unterminated"#,
            "",
            "not json",
            "{}",
        ] {
            assert_eq!(model(body), None, "{body}");
        }
    }

    #[test]
    fn agrees_with_a_full_parse_on_real_shapes() {
        let bodies = [
            serde_json::json!({"model": "m1", "messages": [{"role": "user", "content": "x\ny \u{1F600} \"q\""}]}),
            serde_json::json!({"messages": [{"content": [{"type": "text", "text": "}]{["}]}], "model": "m2", "stream": true}),
            serde_json::json!({"input": [], "model": "m3", "tools": [{"name": "a", "input_schema": {"type": "object"}}]}),
        ];
        for body in bodies {
            let text = body.to_string();
            assert_eq!(model(&text).as_deref(), body["model"].as_str(), "{text}");
        }
    }
}
