//! `@handle` addressing: which members a message names. A mention is an `@` at the start of the
//! text or after a character that cannot be part of a word (so `a@b.com` is no mention), followed
//! by a handle; among members, the longest handle that matches wins (`@dev-lead` is not `@dev`).

/// Characters a handle may contain (see `agents::profile::validate_handle`).
fn is_handle_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '-' || c == '_'
}

/// One `@word` in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention<'a> {
    /// Byte offset of the `@`.
    pub at: usize,
    /// Byte offset just after the handle.
    pub end: usize,
    /// The member's handle as given in `handles` (None: no member has it; `word` is what was typed).
    pub handle: Option<&'a str>,
    pub word: &'a str,
}

/// Every mention in `text`, in order, resolved against `handles` (case-insensitive, longest match).
pub fn mentions<'a>(text: &'a str, handles: &[&'a str]) -> Vec<Mention<'a>> {
    let mut found = Vec::new();
    let mut previous: Option<char> = None;
    for (at, c) in text.char_indices() {
        let starts = c == '@' && !previous.is_some_and(|p| is_handle_char(p) || p == '@');
        previous = Some(c);
        if !starts {
            continue;
        }
        let rest = &text[at + 1..];
        let word_len = rest.find(|ch: char| !is_handle_char(ch)).unwrap_or(rest.len());
        if word_len == 0 {
            continue;
        }
        let word = &rest[..word_len];
        // The longest member handle that the word starts with and that ends on a word boundary
        // (a handle may contain '-', so "@dev-lead" against {dev, dev-lead} is dev-lead, and
        // "@dev-x" against {dev} is no member: the typed word is "dev-x").
        let handle = handles
            .iter()
            .filter(|h| h.len() == word.len() && word.eq_ignore_ascii_case(h))
            .max_by_key(|h| h.len())
            .copied();
        found.push(Mention { at, end: at + 1 + word_len, handle, word });
    }
    found
}

/// Tasks an agent hands off by addressing a member at the start of a line of its reply
/// (`@scout find three sources`, also after a list marker). A mention inside a sentence ("as
/// @scout found") addresses nobody. A task runs to the next such line or the end of the reply.
pub fn line_tasks<'a>(reply: &'a str, handles: &[&'a str]) -> Vec<(&'a str, String)> {
    let mut tasks: Vec<(&'a str, String)> = Vec::new();
    for line in reply.lines() {
        let body = line.trim_start().trim_start_matches(['-', '*', '•', '>']).trim_start();
        let body = strip_number(body);
        let addressed = mentions(body, handles).into_iter().next().filter(|m| m.at == 0 && m.handle.is_some());
        match addressed {
            Some(mention) => {
                let task = body[mention.end..].trim_start_matches([',', ':', ' ']).trim().to_owned();
                tasks.push((mention.handle.unwrap_or_default(), task));
            }
            None => {
                if let Some((_, task)) = tasks.last_mut() {
                    task.push('\n');
                    task.push_str(line);
                }
            }
        }
    }
    tasks.into_iter().map(|(h, t)| (h, t.trim().to_owned())).filter(|(_, t)| !t.is_empty()).collect()
}

/// What a reply that writes `@user` asks the user: the paragraphs that mention `@user`, at most
/// `max_chars` (the whole message stays in the chat). None: no `@user` in it.
pub fn user_question(reply: &str, max_chars: usize) -> Option<String> {
    if !mentions(reply, &["user"]).iter().any(|m| m.handle.is_some()) {
        return None;
    }
    let asked: Vec<&str> = reply
        .split("\n\n")
        .filter(|p| mentions(p, &["user"]).iter().any(|m| m.handle.is_some()))
        .map(str::trim)
        .collect();
    let text = asked.join("\n\n");
    Some(if text.chars().count() <= max_chars {
        text
    } else {
        format!("{}…", text.chars().take(max_chars - 1).collect::<String>())
    })
}

/// "1. rest" or "1) rest" → "rest".
fn strip_number(line: &str) -> &str {
    let digits = line.len() - line.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits > 0 {
        if let Some(rest) = line[digits..].strip_prefix(['.', ')']) {
            return rest.trim_start();
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longest_exact_handle_wins_case_insensitively() {
        let handles = ["dev", "dev-lead", "Scout"];
        let found = mentions("@dev-lead and @DEV, ask @scout.", &handles);
        let got: Vec<_> = found.iter().map(|m| m.handle).collect();
        assert_eq!(got, [Some("dev-lead"), Some("dev"), Some("Scout")]);
    }

    #[test]
    fn emails_and_unknown_words_are_told_apart() {
        let found = mentions("mail a@b.com or @nobody, @ alone", &["b"]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].handle, None);
        assert_eq!(found[0].word, "nobody");
        // "@dev-x" is not @dev: the typed handle is the whole word.
        assert_eq!(mentions("@dev-x", &["dev"])[0].handle, None);
    }

    #[test]
    fn only_mentions_that_start_a_line_hand_off_work() {
        let handles = ["scout", "writer"];
        let reply = "Here is the plan.\n- @scout: find three sources on X.\n  Prefer 2025 papers.\n2. @writer draft it\nAs @scout said, fine.";
        let tasks = line_tasks(reply, &handles);
        assert_eq!(
            tasks,
            [
                ("scout", "find three sources on X.\n  Prefer 2025 papers.".to_owned()),
                ("writer", "draft it\nAs @scout said, fine.".to_owned())
            ]
        );
        assert!(line_tasks("Thanks @scout, well done.", &handles).is_empty());
        assert!(line_tasks("@scout", &handles).is_empty(), "a bare mention carries no task");
    }
}
