//! How long each step of [`crate::Engine::open`] took: logged in one line once the engine is open,
//! and kept for the app's start-up report, so a slow start can be placed (the database and its
//! migrations, the agents' folders, the servers, the recoveries of an earlier run).

use std::time::{Duration, Instant};

/// The steps of opening the engine, in the order they ran, each with its time.
#[derive(Debug, Clone, Default)]
pub struct OpenSteps {
    steps: Vec<(&'static str, Duration)>,
}

impl OpenSteps {
    pub fn steps(&self) -> &[(&'static str, Duration)] {
        &self.steps
    }

    pub fn total(&self) -> Duration {
        self.steps.iter().map(|(_, took)| *took).sum()
    }

    /// `store 12.3 ms, agents 1.0 ms, …`, in the order they ran.
    pub fn summary(&self) -> String {
        let steps: Vec<String> =
            self.steps.iter().map(|(what, took)| format!("{what} {:.1} ms", took.as_secs_f64() * 1000.0)).collect();
        steps.join(", ")
    }
}

/// Times the steps as they end.
pub(crate) struct StepTimer {
    last: Instant,
    steps: OpenSteps,
}

impl StepTimer {
    pub(crate) fn start() -> Self {
        Self { last: Instant::now(), steps: OpenSteps::default() }
    }

    /// Ends the step `what`: the time since the step before ended (or since the start).
    pub(crate) fn step(&mut self, what: &'static str) {
        let now = Instant::now();
        self.steps.steps.push((what, now - self.last));
        self.last = now;
    }

    /// The steps, logged in one line.
    pub(crate) fn finish(self) -> OpenSteps {
        let total_ms = self.steps.total().as_secs_f64() * 1000.0;
        tracing::info!(total_ms, steps = %self.steps.summary(), "engine open");
        self.steps
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_keep_their_order_and_add_up() {
        let mut timer = StepTimer::start();
        timer.step("store");
        std::thread::sleep(Duration::from_millis(2));
        timer.step("agents");
        let steps = timer.finish();
        let names: Vec<_> = steps.steps().iter().map(|(what, _)| *what).collect();
        assert_eq!(names, ["store", "agents"]);
        assert!(steps.steps()[1].1 >= Duration::from_millis(2));
        assert_eq!(steps.total(), steps.steps()[0].1 + steps.steps()[1].1);
        assert!(steps.summary().starts_with("store ") && steps.summary().contains(" ms, agents "));
    }
}
