//! `clawboo-board`: the Board — task cards in columns, their moves, claims, dependencies,
//! comments, activity and runs. It may use `clawboo-vocab` and `clawboo-store` only; the
//! engine re-exports it as `clawboo_engine::board`.
//!
//! Task cards in columns. Every move (the user's, an agent's, the runner's) goes
//! through [`CardStatus::allowed_moves`]; In progress is entered only by a claim, one atomic
//! statement that succeeds for exactly one run however many race for the card; a card waits on
//! its dependencies (never in a cycle) until each is Done. Comments (an agent's report is one)
//! and activity record who did what, the actor bound by the caller, never claimed by it.
//!
//! Every write is one `BEGIN IMMEDIATE` transaction (so two processes, or two services on one
//! file, serialise instead of failing) and publishes [`EngineEvent::BoardChanged`] after it
//! commits. Card numbers (`#12`) are issued from a counter and never reused.

pub mod checks;
mod deps;
pub mod records;
mod store;
mod types;

use std::sync::Arc;

pub use checks::{cut, title_from_task};
pub use types::*;

use clawboo_store::events::{EngineEvent, EventBus};
use clawboo_store::store::Store;
use clawboo_vocab::error::{Error, Result};

pub struct Board {
    store: Arc<Store>,
    events: EventBus,
    watcher: std::sync::OnceLock<Arc<dyn CardWatcher>>,
}

/// Told, once committed, of what a card's assignee (or its team's leader) may need to hear of:
/// the card blocked or done, or a comment on it. Team chat turns it into inbox items. Given at
/// wiring time (team chat sits above this crate).
pub trait CardWatcher: Send + Sync {
    fn card_news(&self, card: &Card, actor: &Actor, news: CardNews<'_>);
}

/// What happened to a card (see [`CardWatcher`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CardNews<'a> {
    Blocked {
        reason: &'a str,
    },
    /// Its run finished and waits for a person's review (no check judged it).
    InReview,
    Done,
    Commented {
        kind: CommentKind,
        text: &'a str,
    },
}

/// What a hand-off in team chat makes a card from (see [`Board::create_for_handoff`]).
#[derive(Debug, Clone)]
pub struct HandoffCard<'a> {
    pub handoff_id: &'a str,
    pub room_id: &'a str,
    pub team_id: &'a str,
    pub from_agent_id: &'a str,
    pub to_agent_id: &'a str,
    /// The exact task text the teammate receives.
    pub task: &'a str,
}

impl Board {
    pub fn new(store: Arc<Store>, events: EventBus) -> Self {
        Self { store, events, watcher: std::sync::OnceLock::new() }
    }

    /// Tells `watcher` of card news from now on (the first one given is kept).
    pub fn watch(&self, watcher: Arc<dyn CardWatcher>) {
        let _ = self.watcher.set(watcher);
    }

    /// A card moved to `card.status` by `actor`: Blocked, In review and Done are news.
    fn moved(&self, card: &Card, actor: &Actor) {
        let Some(watcher) = self.watcher.get() else { return };
        match card.status {
            CardStatus::Blocked => watcher.card_news(
                card,
                actor,
                CardNews::Blocked { reason: card.blocked_reason.as_deref().unwrap_or("") },
            ),
            CardStatus::InReview => watcher.card_news(card, actor, CardNews::InReview),
            CardStatus::Done => watcher.card_news(card, actor, CardNews::Done),
            _ => {}
        }
    }

    /// Runs one write transaction, then tells subscribers (only once it is committed).
    fn change<T>(&self, card_id: Option<&str>, f: impl FnOnce(&rusqlite::Transaction) -> Result<T>) -> Result<T> {
        let value = self.store.write_immediate(f)?;
        self.changed(card_id);
        Ok(value)
    }

    fn changed(&self, card_id: Option<&str>) {
        self.events.publish(EngineEvent::BoardChanged { card_id: card_id.map(str::to_owned) });
    }

    // --- cards -----------------------------------------------------------------------------------

    /// A new card, at the end of its column (Backlog or To do, default To do). Checked: a
    /// one-line title, sizes, an assignee and team that exist (the assignee a member of the
    /// team when both are set), dependencies that exist (at most [`MAX_DEPENDENCIES`]).
    pub fn create(&self, actor: Actor, new: NewCard) -> Result<Card> {
        self.create_with(actor, new, CardOrigin::User, None)
    }

    /// The card of a hand-off: titled by the task's first line, described by the task, holding
    /// the exact task text, assigned to the teammate on the room's team, in To do until the
    /// teammate's run claims it.
    pub fn create_for_handoff(&self, handoff: HandoffCard<'_>) -> Result<Card> {
        let new = NewCard {
            title: title_from_task(handoff.task),
            description: handoff.task.to_owned(),
            assignee_id: Some(handoff.to_agent_id.to_owned()),
            team_id: Some(handoff.team_id.to_owned()),
            status: Some(CardStatus::Todo),
            priority: None,
            depends_on: Vec::new(),
            check_command: None,
            project_folder: None,
        };
        let origin = CardOrigin::Handoff {
            handoff_id: handoff.handoff_id.to_owned(),
            room_id: handoff.room_id.to_owned(),
            from_agent_id: handoff.from_agent_id.to_owned(),
        };
        self.create_with(Actor::Clawboo, new, origin, Some(handoff.task))
    }

    /// A card the local API makes to run `task`: the user's (their script holds their token),
    /// holding the exact task text, marked as made through the API.
    pub fn create_from_api(&self, new: NewCard, task: &str) -> Result<Card> {
        self.create_with(Actor::User, new, CardOrigin::Api, Some(task))
    }

    /// The card of a routine's run (`origin` says which): the task runner gives its runs the
    /// routine note.
    pub fn create_for_routine(&self, new: NewCard, origin: CardOrigin) -> Result<Card> {
        self.create_with(Actor::Clawboo, new, origin, None)
    }

    fn create_with(&self, actor: Actor, new: NewCard, origin: CardOrigin, task_text: Option<&str>) -> Result<Card> {
        let title = checks::title(&new.title)?;
        let description = checks::description(&new.description)?;
        let check_command = checks::check_command(new.check_command.as_deref())?;
        let project_folder = checks::project_folder(new.project_folder.as_deref())?;
        let depends_on = checks::dependencies(&new.depends_on)?;
        let status = new.status.unwrap_or(CardStatus::Todo);
        if !matches!(status, CardStatus::Backlog | CardStatus::Todo) {
            return Err(Error::InvalidInput(format!(
                "A new card starts in Backlog or To do, not in {}.",
                status.label()
            )));
        }
        let handoff_id = match &origin {
            CardOrigin::Handoff { handoff_id, .. } => Some(handoff_id.clone()),
            CardOrigin::User | CardOrigin::Api | CardOrigin::Routine { .. } => None,
        };
        let id = records::new_id();
        let now = now_ms();
        let card = self.store.write_immediate(|tx| {
            store::check_people(tx, new.assignee_id.as_deref(), new.team_id.as_deref())?;
            store::check_cards_exist(tx, &depends_on)?;
            let card = Card {
                id: id.clone(),
                number: store::issue_number(tx)?,
                title,
                description,
                assignee_id: new.assignee_id,
                team_id: new.team_id,
                status,
                priority: new.priority.unwrap_or(Priority::Medium),
                depends_on: Vec::new(),
                waiting_on: Vec::new(),
                check_command,
                project_folder,
                task_text: task_text.map(str::to_owned),
                origin,
                claimed_by_run: None,
                blocked_reason: None,
                position: store::end_of_column(tx, status)?,
                created_at: now,
                updated_at: now,
            };
            store::insert(tx, &card, handoff_id.as_deref())?;
            store::set_dependencies(tx, &card.id, &depends_on)?;
            records::add_activity(tx, &card.id, &actor, &ActivityKind::Created, now)?;
            store::load(tx, &card.id)
        })?;
        self.changed(Some(&card.id));
        Ok(card)
    }

    pub fn get(&self, id: &str) -> Result<Card> {
        self.store.read(|conn| store::load(conn, id.trim()))
    }

    /// The card numbered `number` (`#12`).
    pub fn by_number(&self, number: u32) -> Result<Card> {
        self.store
            .read(|conn| store::by_number(conn, number))?
            .ok_or_else(|| Error::NotFound(format!("Card #{number}")))
    }

    /// The card a hand-off made, if it made one (and it was not deleted).
    pub fn card_of_handoff(&self, handoff_id: &str) -> Result<Option<Card>> {
        self.store.read(|conn| store::by_handoff(conn, handoff_id))
    }

    /// A card with its comments and activity, oldest first.
    pub fn detail(&self, id: &str) -> Result<CardDetail> {
        self.store.read(|conn| {
            let card = store::load(conn, id.trim())?;
            Ok(CardDetail {
                comments: records::comments(conn, &card.id)?,
                activity: records::activity(conn, &card.id)?,
                card,
            })
        })
    }

    /// Cards matching the filter, in column order, then by position.
    pub fn list(&self, filter: &CardFilter) -> Result<Vec<Card>> {
        self.store.read(|conn| store::list(conn, filter))
    }

    /// The handle of each agent id given (agents deleted meanwhile left out).
    pub fn handles(&self, agent_ids: &[&str]) -> Result<Vec<(String, String)>> {
        self.store.read(|conn| {
            let mut found = Vec::new();
            for id in agent_ids {
                if let Some(handle) = store::agent_handle(conn, id)? {
                    found.push(((*id).to_owned(), handle));
                }
            }
            Ok(found)
        })
    }

    /// Changes what `edit` sets (same checks as [`Board::create`]); dependencies never form a
    /// cycle. A card being worked on keeps its assignee. An edit that changes nothing records
    /// nothing.
    pub fn edit(&self, actor: Actor, id: &str, edit: CardEdit) -> Result<Card> {
        let title = edit.title.as_deref().map(checks::title).transpose()?;
        let description = edit.description.as_deref().map(checks::description).transpose()?;
        let check_command = edit.check_command.as_ref().map(|c| checks::check_command(c.as_deref())).transpose()?;
        let project_folder = edit.project_folder.as_ref().map(|f| checks::project_folder(f.as_deref())).transpose()?;
        let depends_on = edit.depends_on.as_deref().map(checks::dependencies).transpose()?;
        let now = now_ms();
        let (card, changed) = self.store.write_immediate(|tx| {
            let before = store::load(tx, id.trim())?;
            let mut card = before.clone();
            let mut fields: Vec<String> = Vec::new();
            let mut set = |name: &str, changed: bool| {
                if changed {
                    fields.push(name.to_owned());
                }
            };
            if let Some(title) = title {
                set("title", title != card.title);
                card.title = title;
            }
            if let Some(description) = description {
                set("description", description != card.description);
                card.description = description;
            }
            if let Some(priority) = edit.priority {
                set("priority", priority != card.priority);
                card.priority = priority;
            }
            if let Some(command) = check_command {
                set("checkCommand", command != card.check_command);
                card.check_command = command;
            }
            if let Some(folder) = project_folder {
                set("projectFolder", folder != card.project_folder);
                card.project_folder = folder;
            }
            if let Some(team) = &edit.team_id {
                let team = team.as_deref().map(str::trim).filter(|t| !t.is_empty()).map(str::to_owned);
                set("team", team != card.team_id);
                card.team_id = team;
            }
            if let Some(assignee) = &edit.assignee_id {
                card.assignee_id = assignee.as_deref().map(str::trim).filter(|a| !a.is_empty()).map(str::to_owned);
            }
            let reassigned = card.assignee_id != before.assignee_id;
            if reassigned {
                if let Some(run) = &card.claimed_by_run {
                    return Err(Error::Conflict(format!(
                        "#{} is being worked on (run {run}); stop that run before reassigning the card.",
                        card.number
                    )));
                }
            }
            if reassigned || card.team_id != before.team_id {
                store::check_people(tx, card.assignee_id.as_deref(), card.team_id.as_deref())?;
            }
            let deps_changed = depends_on.as_ref().is_some_and(|d| *d != before.depends_on);
            if !fields.is_empty() || reassigned || deps_changed {
                card.updated_at = now;
                store::update(tx, &card)?;
            } else {
                return Ok((before, false));
            }
            if let Some(depends_on) = depends_on.filter(|_| deps_changed) {
                store::check_cards_exist(tx, &depends_on)?;
                deps::check_no_cycle(tx, &card.id, &depends_on)?;
                store::set_dependencies(tx, &card.id, &depends_on)?;
                for added in depends_on.iter().filter(|d| !before.depends_on.contains(d)) {
                    let activity = ActivityKind::DependencyAdded { card_id: added.clone() };
                    records::add_activity(tx, &card.id, &actor, &activity, now)?;
                }
                for removed in before.depends_on.iter().filter(|d| !depends_on.contains(d)) {
                    let activity = ActivityKind::DependencyRemoved { card_id: removed.clone() };
                    records::add_activity(tx, &card.id, &actor, &activity, now)?;
                }
            }
            if !fields.is_empty() {
                records::add_activity(tx, &card.id, &actor, &ActivityKind::Edited { fields }, now)?;
            }
            if reassigned {
                let activity =
                    ActivityKind::Assigned { from: before.assignee_id.clone(), to: card.assignee_id.clone() };
                records::add_activity(tx, &card.id, &actor, &activity, now)?;
            }
            Ok((store::load(tx, &card.id)?, true))
        })?;
        if changed {
            self.changed(Some(&card.id));
        }
        Ok(card)
    }

    /// Moves a card to column `to`, checked against the table of allowed moves, at `position`
    /// (the end of the column when `None`). Blocked needs a reason (kept until the card leaves
    /// Blocked); leaving In progress ends the run's claim. Within the same column no move is
    /// checked: only the position changes, and a blocked card's reason when a new one is given.
    pub fn move_card(
        &self,
        actor: Actor,
        id: &str,
        to: CardStatus,
        reason: Option<String>,
        position: Option<f64>,
    ) -> Result<Card> {
        let reason = checks::reason(reason.as_deref())?;
        let position = checks::position(position)?;
        let now = now_ms();
        let mut moved_column = false;
        let (card, changed) = self.store.write_immediate(|tx| {
            let mut card = store::load(tx, id.trim())?;
            moved_column = card.status != to;
            if card.status == to {
                // Within a column: a new position, and for a blocked card a new reason.
                let new_reason =
                    reason.filter(|r| to == CardStatus::Blocked && card.blocked_reason.as_ref() != Some(r));
                let new_position = position.filter(|p| *p != card.position);
                if new_reason.is_none() && new_position.is_none() {
                    return Ok((card, false));
                }
                card.position = new_position.unwrap_or(card.position);
                if let Some(reason) = new_reason {
                    card.blocked_reason = Some(reason);
                    let edited = ActivityKind::Edited { fields: vec!["blockedReason".into()] };
                    records::add_activity(tx, &card.id, &actor, &edited, now)?;
                }
                card.updated_at = now;
                store::update(tx, &card)?;
                return Ok((card, true));
            }
            apply_move(tx, &actor, &mut card, to, reason, position, now)?;
            Ok((store::load(tx, &card.id)?, true))
        })?;
        if changed {
            self.changed(Some(&card.id));
            if card.status == to && moved_column {
                self.moved(&card, &actor);
            }
        }
        Ok(card)
    }

    /// Claims card `id` for run `run_id`, atomically: it moves to In progress only if no run
    /// holds it, it is in a claimable column, and every card it depends on is done. Otherwise
    /// nothing changes and the error says why (held by a run: `Conflict`; waiting on cards:
    /// `Conflict`, naming them; closed or in a column that cannot be claimed: `InvalidInput`).
    pub fn claim(&self, id: &str, run_id: &str) -> Result<Card> {
        let run_id = run_id.trim();
        if run_id.is_empty() {
            return Err(Error::InvalidInput("A claim needs the run's id.".into()));
        }
        let now = now_ms();
        let card = self.change(Some(id), |tx| {
            let before = store::find(tx, id)?.ok_or_else(|| store::not_found(id))?;
            if !store::claim(tx, id, run_id, now)? {
                return Err(claim_refusal(tx, &before)?);
            }
            let activity = ActivityKind::Claimed { run_id: run_id.to_owned() };
            records::add_activity(tx, id, &Actor::Clawboo, &activity, now)?;
            store::load(tx, id)
        })?;
        Ok(card)
    }

    /// Ends run `run_id`'s claim on card `id` with the run's outcome: `to` is a column In
    /// progress may go to (Blocked needs `reason`). Refused when `run_id` does not hold the card.
    pub fn release(&self, id: &str, run_id: &str, to: CardStatus, reason: Option<String>) -> Result<Card> {
        let reason = checks::reason(reason.as_deref())?;
        let now = now_ms();
        self.change(Some(id), |tx| {
            let mut card = store::load(tx, id)?;
            if card.claimed_by_run.as_deref() != Some(run_id) {
                let holder = match &card.claimed_by_run {
                    Some(other) => format!("run {other} holds it"),
                    None => format!("nobody holds it; it is in {}", card.status.label()),
                };
                return Err(Error::Conflict(format!("Run {run_id} does not hold #{}: {holder}.", card.number)));
            }
            apply_move(tx, &Actor::Clawboo, &mut card, to, reason, None, now)?;
            store::load(tx, id)
        })
        .inspect(|card| self.moved(card, &Actor::Clawboo))
    }

    /// Cards held by a run, as (card id, run id): at start, the runner decides what to do
    /// with those whose run is not running.
    pub fn claimed_cards(&self) -> Result<Vec<(String, String)>> {
        self.store.read(store::claimed)
    }

    /// A comment on a card (at most [`MAX_COMMENT_CHARS`], not empty).
    pub fn comment(
        &self,
        actor: Actor,
        card_id: &str,
        kind: CommentKind,
        text: &str,
        run_id: Option<String>,
    ) -> Result<Comment> {
        let text = checks::comment(text)?;
        let now = now_ms();
        let mut commented = None;
        let comment = self.change(Some(card_id), |tx| {
            let card = store::load(tx, card_id.trim())?;
            let comment = Comment {
                id: records::new_id(),
                card_id: card.id.clone(),
                author: actor.clone(),
                kind,
                text,
                run_id,
                created_at: now,
            };
            records::add_comment(tx, &comment)?;
            let activity = ActivityKind::Commented { comment_id: comment.id.clone() };
            records::add_activity(tx, &card.id, &actor, &activity, now)?;
            commented = Some(card);
            Ok(comment)
        })?;
        if let (Some(watcher), Some(card)) = (self.watcher.get(), &commented) {
            watcher.card_news(card, &actor, CardNews::Commented { kind: comment.kind, text: &comment.text });
        }
        Ok(comment)
    }

    /// Deletes a card (the user's), with its comments, activity and runs; cards that waited on
    /// it stop waiting (recorded on them). Refused while a run holds it. Its number is never
    /// issued again.
    pub fn delete(&self, id: &str) -> Result<()> {
        let now = now_ms();
        self.change(Some(id), |tx| {
            let card = store::load(tx, id.trim())?;
            if let Some(run) = &card.claimed_by_run {
                return Err(Error::Conflict(format!(
                    "#{} is being worked on (run {run}); stop the run, or move the card out of In progress, first.",
                    card.number
                )));
            }
            for dependent in store::dependents(tx, &card.id)? {
                let activity = ActivityKind::DependencyRemoved { card_id: card.id.clone() };
                records::add_activity(tx, &dependent, &Actor::User, &activity, now)?;
            }
            store::delete(tx, &card.id)
        })
    }

    // --- runs ------------------------------------------------------------------------------------

    /// Records that run `run_id` (attempt `attempt`, from 1) started on the card.
    pub fn record_run(&self, card_id: &str, run_id: &str, attempt: u32, kind: CardRunKind) -> Result<CardRun> {
        if attempt == 0 {
            return Err(Error::InvalidInput("Attempts count from 1.".into()));
        }
        let now = now_ms();
        self.change(Some(card_id), |tx| {
            store::load(tx, card_id)?;
            records::record_run(tx, card_id, run_id, attempt, kind, now)
        })
    }

    /// Records how run `run_id` ended.
    pub fn finish_run(&self, run_id: &str, status: CardRunStatus, reason: Option<String>) -> Result<CardRun> {
        if status == CardRunStatus::Running {
            return Err(Error::InvalidInput("A finished run cannot be running.".into()));
        }
        let now = now_ms();
        let run = self.store.write_immediate(|tx| records::finish_run(tx, run_id, status, reason.as_deref(), now))?;
        self.changed(Some(&run.card_id));
        Ok(run)
    }

    /// The card run `run_id` is, if it is one of a card's runs.
    pub fn run(&self, run_id: &str) -> Result<Option<CardRun>> {
        self.store.read(|conn| records::run(conn, run_id))
    }

    /// A card's runs, oldest first.
    pub fn runs(&self, card_id: &str) -> Result<Vec<CardRun>> {
        self.store.read(|conn| {
            store::load(conn, card_id.trim())?;
            records::runs(conn, card_id.trim())
        })
    }
}

/// Moves `card` (already loaded in `tx`) to `to` and records it: the table of allowed moves,
/// Blocked's reason, and the end of a claim when it leaves In progress.
fn apply_move(
    tx: &rusqlite::Transaction,
    actor: &Actor,
    card: &mut Card,
    to: CardStatus,
    reason: Option<String>,
    position: Option<f64>,
    now: i64,
) -> Result<()> {
    let from = card.status;
    checks::transition(card.number, from, to)?;
    if to == CardStatus::Blocked && reason.is_none() {
        return Err(Error::InvalidInput(format!(
            "Say why #{} is blocked: a blocked card needs a reason.",
            card.number
        )));
    }
    let released = card.claimed_by_run.take();
    card.status = to;
    card.blocked_reason = reason.clone().filter(|_| to == CardStatus::Blocked);
    card.position = match position {
        Some(p) => p,
        None => store::end_of_column(tx, to)?,
    };
    card.updated_at = now;
    store::update(tx, card)?;
    records::add_activity(tx, &card.id, actor, &ActivityKind::Moved { from, to, reason }, now)?;
    if let Some(run_id) = released {
        records::add_activity(tx, &card.id, actor, &ActivityKind::Released { run_id }, now)?;
    }
    Ok(())
}

/// Why a claim changed nothing, read in the same transaction.
fn claim_refusal(tx: &rusqlite::Transaction, card: &Card) -> Result<Error> {
    let n = card.number;
    Ok(if let Some(run) = &card.claimed_by_run {
        Error::Conflict(format!("#{n} is already claimed by run {run}."))
    } else if card.status.is_closed() {
        Error::InvalidInput(format!("#{n} is {}; reopen it before a run can take it.", card.status.label()))
    } else if !card.waiting_on.is_empty() {
        Error::Conflict(format!("#{n} is waiting on {} (not done yet).", store::numbers_text(tx, &card.waiting_on)?))
    } else if !card.status.claimable() {
        Error::InvalidInput(format!("#{n} is in {}, which a run cannot take.", card.status.label()))
    } else {
        Error::Internal(format!("#{n} could not be claimed, for no reason Clawboo knows"))
    })
}

fn now_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}
