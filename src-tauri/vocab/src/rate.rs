//! A sliding-window rate limit: at most `max` events per key within any `window_ms`. Each key
//! keeps the times of its latest events (at most `max`); an event is counted only when it is let
//! through. Keys whose events have all left the window are dropped lazily, at most once a window,
//! so the map holds only the keys used lately. The time is given by the caller (a clock seam:
//! tests pass their own).

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::sync::Mutex;

pub struct RateLimiter<K> {
    max: usize,
    window_ms: i64,
    state: Mutex<State<K>>,
}

struct State<K> {
    recent: HashMap<K, VecDeque<i64>>,
    swept_at: i64,
}

impl<K: Eq + Hash> RateLimiter<K> {
    pub fn new(max: usize, window_ms: i64) -> Self {
        Self { max, window_ms: window_ms.max(1), state: Mutex::new(State { recent: HashMap::new(), swept_at: 0 }) }
    }

    /// Counts an event of `key` at `now` when the key has room in the window: `Ok`; else the
    /// milliseconds until it has (at least 1, at most the window), and nothing is counted.
    pub fn take(&self, key: K, now: i64) -> Result<(), i64> {
        let window = self.window_ms;
        let mut state = self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if now - state.swept_at >= window || now < state.swept_at {
            state.recent.retain(|_, times| times.back().is_some_and(|&at| now - at < window));
            state.swept_at = now;
        }
        let times = state.recent.entry(key).or_default();
        while times.front().is_some_and(|&at| now - at >= window) {
            times.pop_front();
        }
        if times.len() < self.max {
            times.push_back(now);
            return Ok(());
        }
        let oldest = times.front().copied().unwrap_or(now);
        Err((oldest + window - now).clamp(1, window))
    }

    /// How many keys are held (events in the last window or two).
    pub fn keys(&self) -> usize {
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner()).recent.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MINUTE: i64 = 60_000;

    #[test]
    fn the_eleventh_event_in_a_window_is_refused_with_the_wait_until_a_slot_frees() {
        let limiter = RateLimiter::new(10, MINUTE);
        for i in 0..10 {
            assert_eq!(limiter.take("run-1", 1_000 + i * 2_000), Ok(()), "event {}", i + 1);
        }
        // The oldest (at 1 s) leaves the window at 61 s.
        assert_eq!(limiter.take("run-1", 21_000), Err(40_000));
        assert_eq!(limiter.take("run-1", 60_999), Err(1), "a refusal is not counted");
        assert_eq!(limiter.take("run-1", 61_000), Ok(()), "the window slid past the first");
        assert_eq!(limiter.take("run-1", 61_001), Err(1_999), "the next frees when the second leaves");
    }

    #[test]
    fn keys_are_counted_apart() {
        let limiter = RateLimiter::new(2, MINUTE);
        assert!(limiter.take(("run-1", "ask_user"), 0).is_ok());
        assert!(limiter.take(("run-1", "ask_user"), 0).is_ok());
        assert!(limiter.take(("run-1", "ask_user"), 0).is_err());
        assert!(limiter.take(("run-1", "peer_post"), 0).is_ok(), "another action of the run");
        assert!(limiter.take(("run-2", "ask_user"), 0).is_ok(), "another run");
    }

    #[test]
    fn keys_idle_for_a_window_are_dropped() {
        let limiter = RateLimiter::new(3, MINUTE);
        for run in ["a", "b", "c"] {
            assert!(limiter.take(run, 0).is_ok());
        }
        assert!(limiter.take("c", 30_000).is_ok());
        assert_eq!(limiter.keys(), 3);
        // A window after the sweep at 0: "a" and "b" are idle, "c" had an event within it.
        assert!(limiter.take("d", 60_000).is_ok());
        assert_eq!(limiter.keys(), 2, "c and d are left");
        assert!(limiter.take("d", 200_000).is_ok());
        assert_eq!(limiter.keys(), 1);
    }

    #[test]
    fn a_clock_set_back_neither_frees_nor_overstates_the_wait() {
        let limiter = RateLimiter::new(1, MINUTE);
        assert!(limiter.take("k", 100_000).is_ok());
        assert_eq!(limiter.take("k", 10_000), Err(MINUTE), "at most a window");
    }
}
