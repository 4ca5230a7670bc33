//! One notification per burst: the first request in a quiet spell is announced at once; those
//! that follow within the window are counted and announced together when it closes. Pure, so
//! the shell's timer and the tests drive it with their own clock.

/// How long after a notification further arrivals wait to be summed up.
pub const BURST_WINDOW_MS: i64 = 60_000;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Notice {
    /// Announce this request now.
    One { request_id: String },
    /// Announce that `count` more arrived during the window.
    Summary { count: u32 },
}

#[derive(Debug, Default)]
pub struct BurstGate {
    window_ms: i64,
    last_notice: Option<i64>,
    held: u32,
}

impl BurstGate {
    pub fn new(window_ms: i64) -> Self {
        Self { window_ms, last_notice: None, held: 0 }
    }

    /// A request arrived at `now`: announce it, or hold it for the window's summary.
    pub fn arrive(&mut self, request_id: &str, now: i64) -> Option<Notice> {
        match self.last_notice {
            Some(at) if now - at < self.window_ms => {
                self.held += 1;
                None
            }
            _ => {
                self.last_notice = Some(now);
                match std::mem::take(&mut self.held) {
                    0 => Some(Notice::One { request_id: request_id.to_owned() }),
                    // The last window's summary is still due (its flush came late, or not at
                    // all): this arrival joins it, so no held request goes unannounced.
                    held => Some(Notice::Summary { count: held + 1 }),
                }
            }
        }
    }

    /// When the held arrivals are due to be summed up (the window's end), if any are held.
    pub fn due_at(&self) -> Option<i64> {
        self.last_notice.filter(|_| self.held > 0).map(|at| at + self.window_ms)
    }

    /// At `now`, past the window: one summary of what was held (which opens a new window).
    pub fn flush(&mut self, now: i64) -> Option<Notice> {
        let due = self.due_at()?;
        if now < due {
            return None;
        }
        let count = std::mem::take(&mut self.held);
        self.last_notice = Some(now);
        Some(Notice::Summary { count })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_of_a_burst_is_announced_the_rest_summed_up_once() {
        let mut gate = BurstGate::new(60_000);
        assert_eq!(gate.arrive("r-1", 0), Some(Notice::One { request_id: "r-1".into() }));
        for (i, at) in [1_000, 2_000, 30_000, 59_999].into_iter().enumerate() {
            assert_eq!(gate.arrive(&format!("r-{}", i + 2), at), None, "held within the window");
        }
        assert_eq!(gate.due_at(), Some(60_000));
        assert_eq!(gate.flush(59_999), None, "not before the window closes");
        assert_eq!(gate.flush(60_000), Some(Notice::Summary { count: 4 }));
        assert_eq!(gate.flush(200_000), None, "nothing held, nothing to say");
        // The summary opened a window of its own.
        assert_eq!(gate.arrive("r-6", 61_000), None);
        assert_eq!(gate.flush(120_000), Some(Notice::Summary { count: 1 }));
    }

    #[test]
    fn an_arrival_after_the_window_before_its_flush_announces_the_held_ones_too() {
        let mut gate = BurstGate::new(60_000);
        assert!(gate.arrive("r-1", 0).is_some());
        assert_eq!(gate.arrive("r-2", 10_000), None);
        assert_eq!(gate.arrive("r-3", 20_000), None);
        // The flush due at 60 s has not run yet when r-4 arrives.
        assert_eq!(gate.arrive("r-4", 60_500), Some(Notice::Summary { count: 3 }));
        assert_eq!(gate.due_at(), None, "nothing is held any more");
        assert_eq!(gate.flush(200_000), None, "and nothing is said twice");
    }

    #[test]
    fn after_a_quiet_window_the_next_is_announced_at_once() {
        let mut gate = BurstGate::new(60_000);
        assert!(gate.arrive("r-1", 0).is_some());
        assert_eq!(gate.due_at(), None, "nothing held");
        assert_eq!(gate.arrive("r-2", 60_000), Some(Notice::One { request_id: "r-2".into() }));
    }
}
