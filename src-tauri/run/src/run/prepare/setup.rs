//! Session setup: what a runtime session is started with (the persona now; later the rules,
//! About you, membership). The conversation keeps a fingerprint of the setup its runtime
//! session started with; when the setup of now differs, [`plan`] decides by the runtime's
//! [`SetupChange`] capability how the turn applies it, and [`notice`] says so in the activity.

use crate::context::files::FilePlan;
use crate::runtimes::native::transcript::recent_turns_within;
use crate::runtimes::{SetupChange, Transcript, TranscriptTurn};

/// The setup part holding the agent's persona, named as the user knows it.
pub const PERSONA: &str = "SOUL.md";

/// How much earlier conversation a fresh session carries forward, in characters of message
/// text, newest first, whole messages only (about 12k tokens).
pub const CARRY_BUDGET_CHARS: usize = 48_000;

/// The parts of a session setup, in a fixed order. Each part is fingerprinted on its own, so
/// a change can be named ("SOUL.md changed") without storing the text twice.
#[derive(Debug, Clone, Default)]
pub struct SessionSetup {
    /// (name, content hash)
    parts: Vec<(&'static str, String)>,
}

impl SessionSetup {
    pub fn with(self, name: &'static str, text: impl AsRef<str>) -> Self {
        self.with_hash(name, crate::context::files::hash(text.as_ref()))
    }

    pub fn with_hash(mut self, name: &'static str, hash: impl Into<String>) -> Self {
        self.parts.push((name, hash.into()));
        self
    }

    /// Every agent file the session starts with (instructions, files the runtime reads itself).
    pub fn with_files(self, plan: &FilePlan) -> Self {
        plan.setup_parts().into_iter().fold(self, |setup, (name, hash)| setup.with_hash(name, hash))
    }

    /// `name=hash` per part, joined by `;`. Stable across builds and platforms (FNV-1a), as it
    /// is stored: a different hash after an upgrade would restart every session once.
    pub fn fingerprint(&self) -> String {
        self.parts.iter().map(|(name, hash)| format!("{name}={hash}")).collect::<Vec<_>>().join(";")
    }
}

/// A one-to-one session's setup: the agent files it starts with.
pub fn files_fingerprint(plan: &FilePlan) -> String {
    SessionSetup::default().with_files(plan).fingerprint()
}

/// The names of the parts that differ between two fingerprints (added, removed or changed).
pub fn changed_parts(stored: &str, current: &str) -> Vec<String> {
    let parse = |f: &str| -> Vec<(String, String)> {
        f.split(';')
            .filter(|p| !p.is_empty())
            .map(|p| match p.split_once('=') {
                Some((name, hash)) => (name.to_owned(), hash.to_owned()),
                None => (p.to_owned(), String::new()),
            })
            .collect()
    };
    let (old, new) = (parse(stored), parse(current));
    let mut changed: Vec<String> =
        new.iter().filter(|part| !old.contains(part)).map(|(name, _)| name.clone()).collect();
    for (name, _) in &old {
        if !new.iter().any(|(n, _)| n == name) && !changed.contains(name) {
            changed.push(name.clone());
        }
    }
    changed
}

/// How a turn continues the conversation's runtime session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// No session to continue: a new one starts (first turn, after /reset, another runtime).
    New,
    /// Continue the session; its setup is current, or the runtime applies the new one itself.
    Resume,
    /// Branch the session into a new one built from the changed setup ([`SetupChange::Fork`]).
    Fork { changed: Vec<String> },
    /// Start a fresh session and carry the conversation forward ([`SetupChange::FreshSession`]).
    Fresh { changed: Vec<String> },
}

/// What this turn does, given the runtime's capability, whether there is a session to resume,
/// the fingerprint that session started with and the one of now. A session whose fingerprint
/// is unknown (stored before fingerprints were kept) is taken as current.
pub fn plan(change: SetupChange, resumable: bool, stored: Option<&str>, current: &str) -> Plan {
    if !resumable {
        return Plan::New;
    }
    let changed = match stored {
        Some(stored) if stored != current => changed_parts(stored, current),
        _ => return Plan::Resume,
    };
    match change {
        SetupChange::AppliedOnResume => Plan::Resume,
        SetupChange::Fork => Plan::Fork { changed },
        SetupChange::FreshSession => Plan::Fresh { changed },
    }
}

/// The newest user/assistant pairs that fit `budget` characters, oldest first, with (pairs
/// kept, pairs in all) for [`notice`].
pub fn carry_forward(pairs: Transcript, budget: usize) -> (Transcript, (usize, usize)) {
    let total = pairs.len();
    let kept = recent_turns_within(pairs.iter().map(|t| (&*t.user, &*t.assistant)), budget);
    if kept == total {
        return (pairs, (kept, total));
    }
    (Transcript::from(pairs[total - kept..].to_vec()), (kept, total))
}

/// What the activity says when a turn applied a changed setup some way other than resuming.
/// `carried` is (pairs carried, pairs in all) for a fresh session.
pub fn notice(runtime: &str, plan: &Plan, carried: (usize, usize)) -> Option<String> {
    let (changed, done) = match plan {
        Plan::New | Plan::Resume => return None,
        Plan::Fork { changed } => (
            changed,
            "continued in a new session branched from it, which takes the change and keeps the whole conversation"
                .to_owned(),
        ),
        Plan::Fresh { changed } => (
            changed,
            format!("started a fresh session carrying the conversation forward ({})", carried_messages(carried)),
        ),
    };
    Some(format!("{} changed since this {runtime} session started: {done}.", names(changed)))
}

/// "3 earlier messages", or how many of them fit. `carried` is (pairs carried, pairs in all).
fn carried_messages(carried: (usize, usize)) -> String {
    match (carried.0 * 2, carried.1 * 2) {
        (_, 0) => "no earlier messages".to_owned(),
        (k, t) if k == t => format!("{k} earlier message{}", if k == 1 { "" } else { "s" }),
        (k, t) => format!("the latest {k} of {t} earlier messages; older ones did not fit"),
    }
}

/// What the activity says when a retry or an edit replaced the last exchange: the runtime's
/// session held it, so a fresh one starts without it. `None` when Clawboo carries the history
/// itself (Native): the replaced exchange simply is not sent.
pub fn replaced_notice(runtime: &str, runtime_session: bool, carried: (usize, usize)) -> Option<String> {
    runtime_session.then(|| {
        format!(
            "The last exchange was replaced, so {runtime} started a fresh session without it, carrying the \
             conversation forward ({}).",
            carried_messages(carried)
        )
    })
}

/// A fresh session's carried conversation as text in front of the message, for a runtime that
/// takes no carried turns of its own (Claude Code, Hermes, OpenClaw). Empty when nothing is
/// carried.
pub fn carried_text(turns: &[TranscriptTurn]) -> String {
    if turns.is_empty() {
        return String::new();
    }
    let mut text = String::from(
        "<earlier-conversation>\nThis session is new; the conversation so far, as Clawboo kept it (oldest first):\n",
    );
    for turn in turns {
        text.push_str(&format!("\n[user]\n{}\n\n[you]\n{}\n", turn.user.trim(), turn.assistant.trim()));
    }
    text.push_str("</earlier-conversation>");
    text
}

/// "A", "A and B", "A, B and C".
fn names(parts: &[String]) -> String {
    match parts {
        [] => "The session setup".to_owned(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fp(soul: &str) -> String {
        SessionSetup::default().with(PERSONA, soul).fingerprint()
    }

    #[test]
    fn the_fingerprint_is_stable_and_names_its_parts() {
        assert_eq!(fp("You are Pip."), fp("You are Pip."));
        assert_ne!(fp("You are Pip."), fp("You are Pip!"));
        // Pinned: the stored value must not change between builds.
        assert_eq!(fp(""), "SOUL.md=cbf29ce484222325");
        let two = SessionSetup::default().with(PERSONA, "a").with("the rules", "b").fingerprint();
        let edited = SessionSetup::default().with(PERSONA, "a").with("the rules", "c").fingerprint();
        assert_eq!(changed_parts(&two, &edited), ["the rules"]);
        assert_eq!(changed_parts(&fp("a"), &two), ["the rules"], "a part that joined counts as changed");
        assert_eq!(changed_parts(&two, &fp("a")), ["the rules"], "so does one that left");
    }

    #[test]
    fn the_plan_follows_the_capability_only_when_the_setup_changed() {
        let (old, new) = (fp("old"), fp("new"));
        let changed = vec![PERSONA.to_owned()];
        for change in [SetupChange::AppliedOnResume, SetupChange::Fork, SetupChange::FreshSession] {
            assert_eq!(plan(change, false, Some(&old), &new), Plan::New);
            assert_eq!(plan(change, true, Some(&new), &new), Plan::Resume);
            assert_eq!(plan(change, true, None, &new), Plan::Resume, "unknown counts as current");
        }
        assert_eq!(plan(SetupChange::AppliedOnResume, true, Some(&old), &new), Plan::Resume);
        assert_eq!(plan(SetupChange::Fork, true, Some(&old), &new), Plan::Fork { changed: changed.clone() });
        assert_eq!(plan(SetupChange::FreshSession, true, Some(&old), &new), Plan::Fresh { changed });
    }

    #[test]
    fn carrying_forward_keeps_the_newest_whole_pairs_within_the_budget() {
        let pairs: Transcript =
            (1..=4).map(|i| TranscriptTurn::new(format!("u{i}"), "a".repeat(8))).collect::<Vec<_>>().into();
        let (kept, counts) = carry_forward(Transcript::clone(&pairs), 100);
        assert_eq!(counts, (4, 4));
        assert_eq!(&*kept[0].user, "u1", "oldest first");
        let (kept, counts) = carry_forward(pairs, 25);
        assert_eq!(counts, (2, 4));
        assert_eq!([&*kept[0].user, &*kept[1].user], ["u3", "u4"]);
    }

    #[test]
    fn the_notice_says_what_changed_and_what_was_done() {
        let fresh = Plan::Fresh { changed: vec![PERSONA.into()] };
        assert_eq!(
            notice("Codex", &fresh, (3, 3)).unwrap(),
            "SOUL.md changed since this Codex session started: started a fresh session carrying the conversation \
             forward (6 earlier messages)."
        );
        assert!(notice("Codex", &fresh, (2, 5)).unwrap().contains("the latest 4 of 10 earlier messages"));
        let fork = Plan::Fork { changed: vec![PERSONA.into(), "the rules".into()] };
        assert!(notice("Hermes", &fork, (0, 0))
            .unwrap()
            .starts_with("SOUL.md and the rules changed since this Hermes"));
        assert_eq!(notice("Codex", &Plan::Resume, (0, 0)), None);
    }
}
