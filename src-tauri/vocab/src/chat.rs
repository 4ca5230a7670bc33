//! What a chat is made of, as the services and the UI see it: messages and runs.

use serde::Serialize;

use super::RuntimeKind;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum ChatRole {
    User,
    Assistant,
    /// Said by Clawboo, not by either side ("Conversation reset").
    Notice,
}

impl ChatRole {
    pub fn as_str(self) -> &'static str {
        match self {
            ChatRole::User => "user",
            ChatRole::Assistant => "assistant",
            ChatRole::Notice => "notice",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::User, Self::Assistant, Self::Notice].into_iter().find(|r| r.as_str() == s)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct ChatMessage {
    pub id: String,
    /// The chat (conversation) it is in.
    pub chat_id: String,
    pub agent_id: String,
    /// Its place in the conversation: 1, 2, 3… A page of history is a range of these.
    pub seq: i64,
    pub role: ChatRole,
    pub content: String,
    pub run_id: Option<String>,
    pub created_at: i64,
    /// Replaced by a retry or an edit: kept, but out of the transcript and of search, and shown
    /// only behind a fold.
    pub superseded: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Running,
    Succeeded,
    Failed,
    Cancelled,
    TimedOut,
    /// Clawboo stopped (quit, crash) while the run was going.
    Interrupted,
}

impl RunStatus {
    /// How a finished run is recorded.
    pub fn of(outcome: super::RunOutcome) -> Self {
        match outcome {
            super::RunOutcome::Succeeded => RunStatus::Succeeded,
            super::RunOutcome::Failed => RunStatus::Failed,
            super::RunOutcome::Cancelled => RunStatus::Cancelled,
            super::RunOutcome::TimedOut => RunStatus::TimedOut,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Running => "running",
            RunStatus::Succeeded => "succeeded",
            RunStatus::Failed => "failed",
            RunStatus::Cancelled => "cancelled",
            RunStatus::TimedOut => "timed_out",
            RunStatus::Interrupted => "interrupted",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::Running, Self::Succeeded, Self::Failed, Self::Cancelled, Self::TimedOut, Self::Interrupted]
            .into_iter()
            .find(|r| r.as_str() == s)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct RunSummary {
    pub id: String,
    pub agent_id: String,
    pub runtime: RuntimeKind,
    pub status: RunStatus,
    pub error: Option<String>,
    /// Why it failed, for the way to the fix; set when a failed, timed-out or interrupted run ends.
    pub error_code: Option<RunErrorCode>,
    pub started_at: i64,
    pub finished_at: Option<i64>,
}

/// Why a run failed, in a word the UI branches on (the fix it links to), recorded with the run's
/// end next to its message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum RunErrorCode {
    /// The agent has no model or provider, or the provider does not know its model: its profile.
    ModelMissing,
    /// No API key, or the provider refused it: Settings > API keys.
    ApiKey,
    /// The runtime's CLI is missing, broken or not signed in: Settings > Runtimes.
    RuntimeSetup,
    /// The provider was busy or failing (429, 5xx) after the retries: try again later.
    ProviderBusy,
    /// The provider or a server could not be reached.
    Unreachable,
    /// The agent's sandbox could not start, or stopped what the run did.
    Sandbox,
    TimedOut,
    /// Clawboo stopped while the run went.
    Interrupted,
    /// Anything else: the message says what.
    RunFailed,
}

impl RunErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ModelMissing => "model_missing",
            Self::ApiKey => "api_key",
            Self::RuntimeSetup => "runtime_setup",
            Self::ProviderBusy => "provider_busy",
            Self::Unreachable => "unreachable",
            Self::Sandbox => "sandbox",
            Self::TimedOut => "timed_out",
            Self::Interrupted => "interrupted",
            Self::RunFailed => "run_failed",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [
            Self::ModelMissing,
            Self::ApiKey,
            Self::RuntimeSetup,
            Self::ProviderBusy,
            Self::Unreachable,
            Self::Sandbox,
            Self::TimedOut,
            Self::Interrupted,
            Self::RunFailed,
        ]
        .into_iter()
        .find(|c| c.as_str() == s)
    }

    /// The code of a run that ended with `status` and `error`; none for a run that did not fail.
    pub fn of(status: RunStatus, error: Option<&str>) -> Option<Self> {
        match status {
            RunStatus::Running | RunStatus::Succeeded | RunStatus::Cancelled => None,
            RunStatus::TimedOut => Some(Self::TimedOut),
            RunStatus::Interrupted => Some(Self::Interrupted),
            RunStatus::Failed => Some(error.map_or(Self::RunFailed, Self::of_message)),
        }
    }

    /// A failure's code read from its message: the runtimes, the relay and the engine say what
    /// failed in words (a missing key names the key; a provider's refusal carries its HTTP status).
    pub fn of_message(message: &str) -> Self {
        let text = message.to_ascii_lowercase();
        let has = |needles: &[&str]| needles.iter().any(|n| text.contains(n));
        // An OpenClaw Gateway the user runs, lost (the link's reason may quote the Gateway's own
        // words, "unauthorized" among them: it is still the Gateway that is out of reach).
        if has(&["connection to the openclaw gateway"]) {
            return Self::Unreachable;
        }
        if has(&[
            "api key",
            "no key",
            "http 401",
            "http 403",
            "unauthorized",
            "invalid x-api-key",
            "authentication_error",
        ]) {
            Self::ApiKey
        } else if has(&[
            "http 429",
            "http 500",
            "http 502",
            "http 503",
            "http 504",
            "http 529",
            "overloaded",
            "rate limit",
        ]) {
            Self::ProviderBusy
        } else if has(&["could not connect", "could not reach", "did not answer in time", "broke during the reply"]) {
            Self::Unreachable
        } else if has(&["sandbox", "bubblewrap"]) {
            Self::Sandbox
        } else if has(&["not installed", "not found on", "sign in", "sign-in", "signed in", "log in", "login"]) {
            Self::RuntimeSetup
        } else if has(&[
            "choose a model",
            "has no model",
            "no model",
            "model not found",
            "model_not_found",
            "unknown model",
            "invalid model",
            "not a valid model",
            "no provider",
        ]) {
            Self::ModelMissing
        } else {
            Self::RunFailed
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failures_code_names_where_its_fix_is() {
        let code = |m: &str| RunErrorCode::of(RunStatus::Failed, Some(m));
        assert_eq!(code("Choose a model for Ada in its settings."), Some(RunErrorCode::ModelMissing));
        assert_eq!(code("Add an Anthropic API key in Settings > API keys."), Some(RunErrorCode::ApiKey));
        assert_eq!(code("Anthropic answered HTTP 401 Unauthorized: bad key"), Some(RunErrorCode::ApiKey));
        assert_eq!(
            code("Anthropic answered HTTP 503 Service Unavailable: overloaded. The model relay …"),
            Some(RunErrorCode::ProviderBusy)
        );
        assert_eq!(
            code("Could not connect to http://127.0.0.1:9/v1/messages: refused."),
            Some(RunErrorCode::Unreachable)
        );
        assert_eq!(code("Claude Code is not installed on this computer."), Some(RunErrorCode::RuntimeSetup));
        assert_eq!(code("The agent's sandbox could not start: bubblewrap is missing."), Some(RunErrorCode::Sandbox));
        assert_eq!(
            code("Choose a model provider for Ada (Anthropic, …) in its settings."),
            Some(RunErrorCode::ModelMissing)
        );
        assert_eq!(code("OpenAI answered HTTP 404 Not Found: model_not_found"), Some(RunErrorCode::ModelMissing));
        assert_eq!(code("The tool crashed."), Some(RunErrorCode::RunFailed));
        assert_eq!(code("the model said no"), Some(RunErrorCode::RunFailed), "a model's words are not a missing model");
        assert_eq!(RunErrorCode::of(RunStatus::Failed, None), Some(RunErrorCode::RunFailed));
        assert_eq!(RunErrorCode::of(RunStatus::TimedOut, Some("model")), Some(RunErrorCode::TimedOut));
        assert_eq!(RunErrorCode::of(RunStatus::Cancelled, Some("Stopped.")), None);
        assert_eq!(RunErrorCode::of(RunStatus::Succeeded, None), None);
        for code in [RunErrorCode::ApiKey, RunErrorCode::RunFailed, RunErrorCode::TimedOut] {
            assert_eq!(RunErrorCode::parse(code.as_str()), Some(code));
        }
    }
}
