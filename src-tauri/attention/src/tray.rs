//! What the tray and the notifications say, and when: the rules, kept here so they are tested
//! without a desktop. The shell passes in the facts (the request that arrived, whether the
//! window has focus, what it shows, the clock) and draws what it is told.
//!
//! - No notification for a request the user is looking at: the window has focus and shows its
//!   team's chat, its agent's chat or its card.
//! - One notification per burst (see [`BurstGate`]): the first request at once, those that
//!   follow within the window summed up in one when it closes.

use serde::{Deserialize, Serialize};

use super::burst::{BurstGate, Notice, BURST_WINDOW_MS};
use super::types::{AttentionRequest, Origin, RequestKind, TrayState};

/// What the window shows, as the UI reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(tag = "kind", rename_all = "snake_case", rename_all_fields = "camelCase")]
pub enum Viewing {
    Team { team_id: String },
    Chat { agent_id: String },
    Card { card_id: String },
}

impl Viewing {
    /// Whether this is where `request` came from.
    pub fn shows(&self, request: &AttentionRequest) -> bool {
        match (self, request.origin) {
            (Viewing::Team { team_id }, Origin::Team) => request.team_id.as_deref() == Some(team_id),
            (Viewing::Chat { agent_id }, Origin::Chat) => request.agent_id == *agent_id,
            (Viewing::Card { card_id }, Origin::Card) => request.card_id.as_deref() == Some(card_id),
            _ => false,
        }
    }
}

/// Whether the user is looking at where `request` came from: the window has focus and shows it.
pub fn is_seen(window_focused: bool, viewing: Option<&Viewing>, request: &AttentionRequest) -> bool {
    window_focused && viewing.is_some_and(|v| v.shows(request))
}

/// What to do about a request that just arrived.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Arrival {
    /// The user is looking at it: no notification.
    Seen,
    /// Show this notification now.
    Notify(Notice),
    /// Held for the burst's summary. `flush_at`: when to call [`Notifier::flush`] (a timer the
    /// shell sets); none when one is already set for this burst.
    Held { flush_at: Option<i64> },
}

/// The notifications' state in the app: what the window shows, the burst gate, and whether a
/// summary is already due.
#[derive(Debug)]
pub struct Notifier {
    viewing: Option<Viewing>,
    gate: BurstGate,
    window_ms: i64,
    flush_scheduled: bool,
}

impl Default for Notifier {
    fn default() -> Self {
        Self::new(BURST_WINDOW_MS)
    }
}

impl Notifier {
    pub fn new(window_ms: i64) -> Self {
        Self { viewing: None, gate: BurstGate::new(window_ms), window_ms, flush_scheduled: false }
    }

    /// What the window shows now, as the UI reported it (none: nothing a request comes from).
    pub fn set_viewing(&mut self, viewing: Option<Viewing>) {
        self.viewing = viewing;
    }

    /// `request` arrived at `now`, the window having focus or not.
    pub fn arrived(&mut self, request: &AttentionRequest, window_focused: bool, now: i64) -> Arrival {
        if is_seen(window_focused, self.viewing.as_ref(), request) {
            return Arrival::Seen;
        }
        if let Some(notice) = self.gate.arrive(&request.id, now) {
            return Arrival::Notify(notice);
        }
        if self.flush_scheduled {
            return Arrival::Held { flush_at: None };
        }
        self.flush_scheduled = true;
        Arrival::Held { flush_at: Some(self.gate.due_at().unwrap_or(now + self.window_ms)) }
    }

    /// The timer set by [`Notifier::arrived`] fired at `now`: the summary of what was held, if
    /// it is due.
    pub fn flush(&mut self, now: i64) -> Option<Notice> {
        self.flush_scheduled = false;
        self.gate.flush(now)
    }
}

/// A native notification's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notification {
    pub title: String,
    pub body: String,
}

/// The longest notification body, in characters (the request's text is cut there).
pub const NOTIFICATION_BODY_CHARS: usize = 200;

/// What a notice says: about its request ("Ada asks you", the question), or a summary that
/// counts the `open` requests.
pub fn notification(notice: &Notice, request: Option<&AttentionRequest>, open: u32) -> Notification {
    match (notice, request) {
        (Notice::One { .. }, Some(request)) => Notification {
            title: match request.kind {
                RequestKind::Question => format!("{} asks you", request.agent_name),
                RequestKind::ScopePaused => "Clawboo paused a loop".to_owned(),
                RequestKind::BudgetWarning => "A budget is at 80%".to_owned(),
                RequestKind::BudgetReached => "A budget is spent".to_owned(),
                _ => format!("{} needs your approval", request.agent_name),
            },
            body: request.text.chars().take(NOTIFICATION_BODY_CHARS).collect(),
        },
        _ => Notification {
            title: "Clawboo".to_owned(),
            body: format!("{open} requests need you. Open the inbox from the tray."),
        },
    }
}

impl TrayState {
    /// Nothing open: the tray as it starts.
    pub fn empty() -> Self {
        Self { open: 0, questions: 0, approvals: 0, tooltip: tooltip(0), newest: Vec::new() }
    }

    /// The first line of the tray's menu.
    pub fn heading(&self) -> String {
        match self.open {
            0 => "Nothing needs you".to_owned(),
            1 => "1 request needs you".to_owned(),
            n => format!("{n} requests need you"),
        }
    }
}

/// The tray icon's tooltip with `open` requests.
pub fn tooltip(open: u32) -> String {
    match open {
        0 => "Clawboo".to_owned(),
        1 => "Clawboo: 1 request needs you".to_owned(),
        n => format!("Clawboo: {n} requests need you"),
    }
}

/// "Ada asks: Which region?" / "Ada wants to use Write", on one line, at most
/// [`MENU_LABEL_CHARS`] characters.
pub fn menu_label(request: &AttentionRequest) -> String {
    let label = match request.kind {
        RequestKind::Question => format!("{} asks: {}", request.agent_name, request.text),
        RequestKind::Permission => {
            format!("{} wants to use {}", request.agent_name, request.tool.as_deref().unwrap_or("a tool"))
        }
        RequestKind::Promotion => format!("{} wants to share a note", request.agent_name),
        RequestKind::RoutineProposal => format!("{} proposes a routine", request.agent_name),
        RequestKind::RoutinePaused => "A routine paused itself".to_owned(),
        RequestKind::MemorySave => format!("{} wants to save a fact to memory", request.agent_name),
        RequestKind::ScopePaused => "Clawboo paused a loop".to_owned(),
        RequestKind::BudgetWarning => "A budget is at 80%".to_owned(),
        RequestKind::BudgetReached => "A budget is spent: runs stopped".to_owned(),
    };
    let one_line = label.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= MENU_LABEL_CHARS {
        one_line
    } else {
        format!("{}…", one_line.chars().take(MENU_LABEL_CHARS - 1).collect::<String>())
    }
}

pub const MENU_LABEL_CHARS: usize = 60;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RequestStatus;

    fn request(id: &str, kind: RequestKind, origin: Origin) -> AttentionRequest {
        AttentionRequest {
            id: id.into(),
            kind,
            status: RequestStatus::Open,
            origin,
            agent_id: "a-ada".into(),
            agent_name: "Ada".into(),
            agent_handle: "ada".into(),
            team_id: (origin == Origin::Team).then(|| "t-1".into()),
            team_name: None,
            room_id: None,
            room_name: None,
            run_id: None,
            card_id: (origin == Origin::Card).then(|| "c-1".into()),
            card_number: None,
            card_title: None,
            message_id: None,
            text: "Which region should we deploy to?".into(),
            tool: (kind == RequestKind::Permission).then(|| "Write".into()),
            input: None,
            runtime_request_id: None,
            command_prefix: None,
            allow_always: false,
            promotion_id: None,
            created_at: 0,
            expires_at: None,
            decision: None,
            answer: None,
            answered_at: None,
        }
    }

    #[test]
    fn a_request_is_seen_only_where_it_came_from_with_the_window_focused() {
        let team = request("r-1", RequestKind::Question, Origin::Team);
        let chat = request("r-2", RequestKind::Question, Origin::Chat);
        let card = request("r-3", RequestKind::Permission, Origin::Card);
        let team_view = Viewing::Team { team_id: "t-1".into() };
        let chat_view = Viewing::Chat { agent_id: "a-ada".into() };
        let card_view = Viewing::Card { card_id: "c-1".into() };
        assert!(is_seen(true, Some(&team_view), &team));
        assert!(is_seen(true, Some(&chat_view), &chat));
        assert!(is_seen(true, Some(&card_view), &card));
        assert!(!is_seen(false, Some(&team_view), &team), "the window without focus: not seen");
        assert!(!is_seen(true, None, &team), "nothing shown: not seen");
        assert!(!is_seen(true, Some(&Viewing::Team { team_id: "t-2".into() }), &team), "another team");
        // Ada's one-to-one chat is not where her team question or her card's came from.
        assert!(!is_seen(true, Some(&chat_view), &team));
        assert!(!is_seen(true, Some(&chat_view), &card));
        assert!(!is_seen(true, Some(&team_view), &chat));
    }

    #[test]
    fn a_burst_is_one_notification_then_one_summary_with_one_timer() {
        let mut notifier = Notifier::new(60_000);
        let arrive = |n: &mut Notifier, id: &str, at: i64| {
            n.arrived(&request(id, RequestKind::Question, Origin::Chat), false, at)
        };
        assert_eq!(arrive(&mut notifier, "r-1", 0), Arrival::Notify(Notice::One { request_id: "r-1".into() }));
        assert_eq!(arrive(&mut notifier, "r-2", 1_000), Arrival::Held { flush_at: Some(60_000) }, "the timer, once");
        assert_eq!(arrive(&mut notifier, "r-3", 2_000), Arrival::Held { flush_at: None });
        assert_eq!(notifier.flush(60_000), Some(Notice::Summary { count: 2 }));
        // The summary opened a window; the next arrival within it sets a timer again.
        assert_eq!(arrive(&mut notifier, "r-4", 61_000), Arrival::Held { flush_at: Some(120_000) });
        assert_eq!(notifier.flush(120_000), Some(Notice::Summary { count: 1 }));
        assert_eq!(arrive(&mut notifier, "r-5", 500_000), Arrival::Notify(Notice::One { request_id: "r-5".into() }));
    }

    #[test]
    fn a_seen_request_neither_notifies_nor_counts_in_the_burst() {
        let mut notifier = Notifier::default();
        notifier.set_viewing(Some(Viewing::Chat { agent_id: "a-ada".into() }));
        let chat = request("r-1", RequestKind::Question, Origin::Chat);
        assert_eq!(notifier.arrived(&chat, true, 0), Arrival::Seen);
        assert_eq!(notifier.arrived(&chat, false, 10), Arrival::Notify(Notice::One { request_id: "r-1".into() }));
        notifier.set_viewing(None);
        assert_eq!(notifier.arrived(&chat, true, 20), Arrival::Held { flush_at: Some(10 + BURST_WINDOW_MS) });
    }

    #[test]
    fn notifications_say_who_asks_and_what_or_how_many_wait() {
        let question = request("r-1", RequestKind::Question, Origin::Chat);
        let one = Notice::One { request_id: "r-1".into() };
        assert_eq!(
            notification(&one, Some(&question), 1),
            Notification { title: "Ada asks you".into(), body: "Which region should we deploy to?".into() }
        );
        let mut approval = request("r-2", RequestKind::Permission, Origin::Card);
        approval.text = "x".repeat(500);
        let told = notification(&one, Some(&approval), 1);
        assert_eq!(told.title, "Ada needs your approval");
        assert_eq!(told.body.chars().count(), NOTIFICATION_BODY_CHARS);
        let summary = notification(&Notice::Summary { count: 3 }, None, 7);
        assert_eq!(summary.title, "Clawboo");
        assert_eq!(summary.body, "7 requests need you. Open the inbox from the tray.");
    }

    #[test]
    fn the_tray_says_how_many_need_you_and_names_each_on_one_short_line() {
        assert_eq!(TrayState::empty().heading(), "Nothing needs you");
        assert_eq!(TrayState::empty().tooltip, "Clawboo");
        assert_eq!(TrayState { open: 1, ..TrayState::empty() }.heading(), "1 request needs you");
        assert_eq!(TrayState { open: 4, ..TrayState::empty() }.heading(), "4 requests need you");
        assert_eq!(tooltip(1), "Clawboo: 1 request needs you");
        assert_eq!(tooltip(3), "Clawboo: 3 requests need you");
        let mut question = request("r-1", RequestKind::Question, Origin::Chat);
        question.text = "Which\nregion?".into();
        assert_eq!(menu_label(&question), "Ada asks: Which region?");
        assert_eq!(menu_label(&request("r-2", RequestKind::Permission, Origin::Chat)), "Ada wants to use Write");
        question.text = "word ".repeat(40);
        let label = menu_label(&question);
        assert_eq!(label.chars().count(), MENU_LABEL_CHARS);
        assert!(label.ends_with('…'));
    }
}
