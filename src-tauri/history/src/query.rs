//! Any text the user or an agent types becomes a safe FTS5 query: its words, each quoted as an
//! FTS5 string, so none of FTS5's syntax (`"`, `*`, `^`, `:`, `-`, `(`, `NEAR`, `AND`, `OR`,
//! column filters) ever reaches `MATCH`; the last word, still being typed, also matches as a
//! prefix. Text with no word in it is no query (it matches nothing, and is no error).

/// A query uses at most this many words (a pasted page stays a bounded query).
pub const MAX_QUERY_WORDS: usize = 16;

/// A last word this short is not taken as a prefix: one letter would expand to a large part of
/// the vocabulary and match most messages (the index keeps 2- and 3-letter prefixes).
const MIN_PREFIX_CHARS: usize = 2;

/// How the words of a query combine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Words {
    /// Every word must be in a message (the palette: each word typed narrows the list).
    All,
    /// Any word may be (an agent's `search_threads`: bm25 ranks those with more of them, and
    /// rarer ones, first).
    Any,
}

/// Runs of Unicode letters and digits, lowercased, distinct, in order, at most `MAX_QUERY_WORDS`.
pub fn words_of(text: &str) -> Vec<String> {
    let mut words: Vec<String> = Vec::new();
    for word in text.split(|c: char| !c.is_alphanumeric()).filter(|w| !w.is_empty()) {
        if words.len() == MAX_QUERY_WORDS {
            break;
        }
        let word = word.to_lowercase();
        if !words.contains(&word) {
            words.push(word);
        }
    }
    words
}

/// The FTS5 `MATCH` expression for `text`, or `None` when it has no word. `typing`: the last
/// word matches as a prefix too, when the text ends inside it (not after a space or a stop).
pub fn match_expression(text: &str, words: Words, typing: bool) -> Option<String> {
    let list = words_of(text);
    let prefix_last = typing && text.ends_with(char::is_alphanumeric);
    let terms: Vec<String> = list
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let last = i + 1 == list.len();
            if last && prefix_last && w.chars().count() >= MIN_PREFIX_CHARS {
                format!("\"{w}\"*")
            } else {
                format!("\"{w}\"")
            }
        })
        .collect();
    let joiner = match words {
        Words::All => " ",
        Words::Any => " OR ",
    };
    (!terms.is_empty()).then(|| terms.join(joiner))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_word_is_quoted_and_only_the_last_typed_one_is_a_prefix() {
        assert_eq!(
            match_expression("deploy the api", Words::All, true).as_deref(),
            Some("\"deploy\" \"the\" \"api\"*")
        );
        assert_eq!(
            match_expression("deploy the api ", Words::All, true).as_deref(),
            Some("\"deploy\" \"the\" \"api\"")
        );
        assert_eq!(match_expression("Deploy API", Words::Any, false).as_deref(), Some("\"deploy\" OR \"api\""));
        assert_eq!(match_expression("deploy a", Words::All, true).as_deref(), Some("\"deploy\" \"a\""));
        assert_eq!(match_expression("café crème", Words::All, true).as_deref(), Some("\"café\" \"crème\"*"));
    }

    #[test]
    fn fts_syntax_becomes_plain_words() {
        let cases = [
            ("\"unbalanced", Some("\"unbalanced\"*")),
            ("a*", Some("\"a\"")),
            ("-minus NOT this", Some("\"minus\" \"not\" \"this\"*")),
            ("NEAR(a b, 3)", Some("\"near\" \"a\" \"b\" \"3\"")),
            ("content:secret", Some("\"content\" \"secret\"*")),
            ("x AND y OR z", Some("\"x\" \"and\" \"y\" \"or\" \"z\"")),
            ("^start {col}", Some("\"start\" \"col\"")),
            ("\" * - : ( ) ^", None),
            ("", None),
            ("   ", None),
        ];
        for (text, expected) in cases {
            let got = match_expression(text, Words::All, true);
            assert_eq!(got.as_deref(), expected, "{text:?}");
        }
    }

    #[test]
    fn a_long_paste_is_bounded() {
        let text = (0..500).map(|i| format!("w{i}")).collect::<Vec<_>>().join(" ");
        assert_eq!(words_of(&text).len(), MAX_QUERY_WORDS);
    }
}
