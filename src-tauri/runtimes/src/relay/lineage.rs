//! A conversation's requests to the model each repeat the one before and add a little: the same
//! instructions and tools, the carried turns, then the new ones. Compressing and storing every
//! body whole costs time and disk that grow with the conversation (a 1,000-exchange chat sends
//! ~190 KB per exchange). So the relay remembers the last body it stored for each agent in each
//! conversation (its *lineage*) and stores the next one as what it adds: the start and end it
//! shares with that body are counted, only the middle is compressed. Every
//! [`KEYFRAME_EVERY`]th request of a lineage is stored whole, so reading any body decompresses
//! at most that many rows. A base is always of the same agent and conversation, so it goes when
//! they go (runs are deleted by conversation or by agent).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

use bytes::Bytes;

/// One request in this many of a lineage is stored whole (a read walks at most this many rows).
pub const KEYFRAME_EVERY: u32 = 32;
/// Lineages remembered at once (the least recently recorded is forgotten first) ...
const KEPT_LINEAGES: usize = 16;
/// ... and the most bytes of bodies they hold together ...
const KEPT_BYTES: usize = 8 * 1024 * 1024;
/// ... each at most this big (a bigger body, one with images, is stored whole and not kept: the
/// app's idle memory stays small whatever a runtime sends).
const KEPT_BODY_BYTES: usize = 2 * 1024 * 1024;

/// The agent and conversation a run belongs to.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct LineageKey {
    pub(crate) agent_id: String,
    pub(crate) conversation_id: String,
}

/// The last request of a lineage stored with its whole body recoverable.
#[derive(Clone)]
pub(crate) struct Last {
    pub(crate) run_id: String,
    pub(crate) seq: u32,
    pub(crate) body: Bytes,
    /// Requests since the last one stored whole (0: this one is).
    pub(crate) chain: u32,
}

/// How a body is stored against its base: its first `prefix` and last `suffix` bytes are the
/// base's; the rest is stored.
pub(crate) struct Delta {
    pub(crate) base: Last,
    pub(crate) prefix: usize,
    pub(crate) suffix: usize,
}

impl Delta {
    /// What is stored of `body`.
    pub(crate) fn middle<'a>(&self, body: &'a [u8]) -> &'a [u8] {
        &body[self.prefix..body.len() - self.suffix]
    }

    /// Requests since the lineage's last whole body, this one included.
    pub(crate) fn chain(&self) -> u32 {
        self.base.chain + 1
    }
}

/// `body` as what it adds to `base`, or `None` when it should be stored whole: the lineage is
/// due a whole body, or the two share less than half of `body`.
pub(crate) fn delta(base: Last, body: &[u8]) -> Option<Delta> {
    if base.chain + 1 >= KEYFRAME_EVERY {
        return None;
    }
    let prefix = common_prefix(&base.body, body);
    let room = base.body.len().min(body.len()) - prefix;
    let suffix = common_suffix(&base.body, body).min(room);
    if prefix + suffix < body.len() / 2 {
        return None;
    }
    Some(Delta { base, prefix, suffix })
}

/// The body stored as `middle` against `base` (see [`Delta`]); `None` when the numbers do not
/// fit the base (a damaged row).
pub(crate) fn rebuild(base: &[u8], prefix: usize, suffix: usize, middle: &[u8]) -> Option<Vec<u8>> {
    if prefix.checked_add(suffix)? > base.len() {
        return None;
    }
    let mut body = Vec::with_capacity(prefix + middle.len() + suffix);
    body.extend_from_slice(&base[..prefix]);
    body.extend_from_slice(middle);
    body.extend_from_slice(&base[base.len() - suffix..]);
    Some(body)
}

/// Bytes compared at once: slices compare with `memcmp`, far faster than byte by byte.
const BLOCK: usize = 256;

fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut i = 0;
    while i + BLOCK <= n && a[i..i + BLOCK] == b[i..i + BLOCK] {
        i += BLOCK;
    }
    while i < n && a[i] == b[i] {
        i += 1;
    }
    i
}

fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (&a[a.len() - n..], &b[b.len() - n..]);
    let mut i = 0;
    while i + BLOCK <= n && a[n - i - BLOCK..n - i] == b[n - i - BLOCK..n - i] {
        i += BLOCK;
    }
    while i < n && a[n - i - 1] == b[n - i - 1] {
        i += 1;
    }
    i
}

/// The last request of each recent lineage, in memory (bounded by [`KEPT_LINEAGES`] and
/// [`KEPT_BYTES`]). Forgetting one costs only a whole body stored next time.
#[derive(Default)]
pub(crate) struct Lineages {
    kept: Mutex<Kept>,
    /// One deflate state for every record, reset between bodies, and when it was last used:
    /// making one allocates and clears ~250 KiB, which cost a short chat's record more than
    /// compressing its few hundred new bytes.
    compressor: Mutex<Option<(flate2::Compress, Instant)>>,
}

#[derive(Default)]
struct Kept {
    /// Each lineage's last request, its clock stamp and when it was remembered.
    by_key: HashMap<LineageKey, (Last, u64, Instant)>,
    /// Increases with every request remembered: the smallest is the least recent.
    clock: u64,
    bytes: usize,
}

impl Kept {
    fn forget(&mut self, key: &LineageKey) {
        if let Some((gone, ..)) = self.by_key.remove(key) {
            self.bytes -= gone.body.len();
        }
    }
}

impl Lineages {
    pub(crate) fn last(&self, key: &LineageKey) -> Option<Last> {
        self.lock().by_key.get(key).map(|(last, ..)| last.clone())
    }

    /// `last` is now its lineage's newest request (call once it is stored).
    pub(crate) fn remember(&self, key: LineageKey, last: Last) {
        if last.body.len() > KEPT_BODY_BYTES {
            // Its lineage starts again from its next body.
            self.lock().forget(&key);
            return;
        }
        let mut kept = self.lock();
        kept.clock += 1;
        let stamp = kept.clock;
        kept.bytes += last.body.len();
        if let Some((old, ..)) = kept.by_key.insert(key, (last, stamp, Instant::now())) {
            kept.bytes -= old.body.len();
        }
        while kept.by_key.len() > KEPT_LINEAGES || kept.bytes > KEPT_BYTES {
            let Some(oldest) = kept.by_key.iter().min_by_key(|(_, (_, stamp, _))| *stamp).map(|(k, _)| k.clone())
            else {
                break;
            };
            kept.forget(&oldest);
        }
    }

    /// Runs `compress` with the relay's deflate state, reset (made on first use).
    pub(crate) fn with_compressor<T>(&self, compress: impl FnOnce(&mut flate2::Compress) -> T) -> T {
        let mut guard = self.compressor.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        let (compressor, used) = guard.get_or_insert_with(|| {
            // Fast level: JSON bodies still shrink several times, at a fraction of the CPU.
            (flate2::Compress::new(flate2::Compression::fast(), false), Instant::now())
        });
        compressor.reset();
        *used = Instant::now();
        compress(compressor)
    }

    /// Forgets the lineages nothing was recorded in since `cutoff` (each one's next request is
    /// stored whole), and the deflate state if unused since; the bytes of bodies given back.
    pub(crate) fn forget_unused_since(&self, cutoff: Instant) -> usize {
        let mut compressor = self.compressor.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if compressor.as_ref().is_some_and(|(_, used)| *used < cutoff) {
            *compressor = None;
        }
        drop(compressor);
        let mut kept = self.lock();
        let before = kept.bytes;
        kept.by_key.retain(|_, (_, _, remembered)| *remembered >= cutoff);
        kept.bytes = kept.by_key.values().map(|(last, ..)| last.body.len()).sum();
        before - kept.bytes
    }

    #[cfg(test)]
    pub(crate) fn keeps_compressor(&self) -> bool {
        self.compressor.lock().unwrap().is_some()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        // Only plain values are held: a panic elsewhere leaves them usable.
        self.kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn last(body: &str, chain: u32) -> Last {
        Last { run_id: "r1".into(), seq: 1, body: Bytes::from(body.to_owned()), chain }
    }

    #[test]
    fn a_body_that_grows_in_the_middle_is_stored_as_its_middle_and_rebuilt_exactly() {
        let tail = "],\"tools\":[{\"name\":\"x\"}]}";
        let before =
            format!("{{\"model\":\"m\",\"messages\":[{}{tail}", "{\"role\":\"user\",\"content\":\"hi\"}".repeat(40));
        let added = ",{\"role\":\"assistant\",\"content\":\"hello\"}";
        let after = before.replacen(tail, &format!("{added}{tail}"), 1);
        let d = delta(last(&before, 3), after.as_bytes()).expect("a delta");
        assert_eq!(d.chain(), 4);
        assert_eq!(d.middle(after.as_bytes()), added.as_bytes());
        assert_eq!(
            rebuild(before.as_bytes(), d.prefix, d.suffix, d.middle(after.as_bytes())).unwrap(),
            after.as_bytes()
        );
    }

    #[test]
    fn shared_starts_and_ends_never_overlap_and_still_rebuild() {
        // "aaaa" → "aaaaaa": the common prefix and suffix would both cover the base.
        for (before, after) in [("aaaa", "aaaaaa"), ("aaaaaa", "aaaa"), ("abcabc", "abcXabc"), ("", "x"), ("xy", "xy")]
        {
            let d = delta(last(before, 0), after.as_bytes());
            if let Some(d) = d {
                assert!(d.prefix + d.suffix <= before.len().min(after.len()), "{before} → {after}");
                let rebuilt = rebuild(before.as_bytes(), d.prefix, d.suffix, d.middle(after.as_bytes())).unwrap();
                assert_eq!(rebuilt, after.as_bytes(), "{before} → {after}");
            }
        }
        // Longer than a comparison block, differing in one byte in the middle.
        let before = "x".repeat(1_000);
        let mut after = before.clone().into_bytes();
        after[517] = b'y';
        let d = delta(last(&before, 0), &after).unwrap();
        assert_eq!((d.prefix, d.suffix), (517, 482));
        assert_eq!(rebuild(before.as_bytes(), d.prefix, d.suffix, d.middle(&after)).unwrap(), after);
    }

    #[test]
    fn a_lineage_due_a_whole_body_or_a_different_body_gets_none() {
        let body = "{\"model\":\"m\",\"messages\":[]}";
        assert!(delta(last(body, KEYFRAME_EVERY - 2), body.as_bytes()).is_some());
        assert!(delta(last(body, KEYFRAME_EVERY - 1), body.as_bytes()).is_none(), "every 32nd is whole");
        assert!(delta(last("something else entirely", 0), body.as_bytes()).is_none());
        assert_eq!(rebuild(b"short", 4, 4, b""), None, "numbers that do not fit the base");
    }

    #[test]
    fn the_least_recent_lineage_is_forgotten_past_the_bound() {
        let lineages = Lineages::default();
        let key = |i: usize| LineageKey { agent_id: format!("a{i}"), conversation_id: "c".into() };
        for i in 0..=KEPT_LINEAGES {
            lineages.remember(key(i), last("body", 0));
        }
        assert!(lineages.last(&key(0)).is_none(), "the oldest went");
        assert!(lineages.last(&key(KEPT_LINEAGES)).is_some());
        lineages.remember(key(1), last("newer", 0));
        assert_eq!(lineages.last(&key(1)).unwrap().body, Bytes::from_static(b"newer"));
        assert_eq!(lineages.lock().bytes, KEPT_LINEAGES * 4 + 1, "bytes follow what is kept");

        // A body too big to keep ends its lineage's base: the next is stored whole.
        let big = Last { body: Bytes::from(vec![b'x'; KEPT_BODY_BYTES + 1]), ..last("", 0) };
        lineages.remember(key(1), big);
        assert!(lineages.last(&key(1)).is_none());
        assert_eq!(lineages.lock().bytes, (KEPT_LINEAGES - 1) * 4);
    }

    #[test]
    fn lineages_nothing_was_recorded_in_since_a_time_are_forgotten() {
        let lineages = Lineages::default();
        let key = |i: usize| LineageKey { agent_id: format!("a{i}"), conversation_id: "c".into() };
        lineages.remember(key(0), last("quiet body", 0));
        let cutoff = Instant::now();
        lineages.remember(key(1), last("busy", 0));
        assert_eq!(lineages.forget_unused_since(cutoff), "quiet body".len());
        assert!(lineages.last(&key(0)).is_none(), "the quiet lineage went");
        assert!(lineages.last(&key(1)).is_some(), "the one recorded in since stays");
        assert_eq!(lineages.lock().bytes, "busy".len(), "bytes follow what is kept");
        assert_eq!(lineages.forget_unused_since(Instant::now()), "busy".len());
        assert_eq!(lineages.lock().bytes, 0);
    }
}
