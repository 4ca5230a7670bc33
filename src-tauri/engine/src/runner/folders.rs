//! The runner's side of project folders: where a task works, its worktree removed when its card
//! closes (and at start, for cards closed while Clawboo was not running), and a card's diff.

use std::path::PathBuf;

use super::worktree::{self, CardDiff, Folder};
use super::{lock, Runner};
use crate::board::{Card, CardStatus};
use crate::error::{Error, Result};

impl Runner {
    /// The card with the folder its runs work in: its own project folder, else its team's.
    pub(super) fn with_folder(&self, mut card: Card) -> Card {
        if card.project_folder.is_none() {
            if let Some(team_id) = card.team_id.as_deref() {
                card.project_folder = self.parts.teams.get(team_id).ok().and_then(|team| team.project_folder);
            }
        }
        card
    }

    /// Where the card's task works: its worktree (made when missing) when its project folder is
    /// in a git repository, the folder itself when it is not, `None` without a project folder.
    pub(super) fn work_folder(&self, card: &Card) -> Result<Option<PathBuf>> {
        let Some(folder) = card.project_folder.as_deref() else { return Ok(None) };
        match worktree::detect(folder.as_ref())? {
            Folder::Plain(folder) => Ok(Some(folder)),
            Folder::Repo(repo) => Ok(Some(worktree::ensure(&repo, &self.parts.worktrees, card)?.path)),
        }
    }

    /// Removes the card's worktree once the card is Done (keeping its branch, for the user to
    /// merge) or Cancelled (deleting its branch too), and no run of it is going.
    pub(super) fn tidy_worktree(&self, card_id: &str) {
        if self.runs.runs_card(card_id) {
            return;
        }
        let Ok(card) = self.parts.board.get(card_id) else { return };
        self.tidy(&card);
    }

    fn tidy(&self, card: &Card) {
        let delete_branch = match card.status {
            CardStatus::Done => false,
            CardStatus::Cancelled => true,
            _ => return,
        };
        let _one_at_a_time = lock(&self.tidying);
        if !self.parts.worktrees.join(worktree::dir_name(card)).exists() {
            return;
        }
        // The card's repository now: it vouches for a worktree made before Clawboo kept a copy
        // of its `.git`.
        let folder = self.with_folder(card.clone()).project_folder;
        let repo = match folder.as_deref().map(|f| worktree::detect(f.as_ref())) {
            Some(Ok(Folder::Repo(repo))) => Some(repo),
            _ => None,
        };
        if let Err(e) = worktree::remove(&self.parts.worktrees, card, delete_branch, repo.as_deref()) {
            tracing::warn!(card = card.number, error = %e, "could not remove a card's worktree");
        }
    }

    /// At start: the worktrees of cards closed while Clawboo was not running are removed. Those
    /// of deleted cards are left for the user (they may hold work nobody has looked at).
    pub fn sweep_worktrees(&self) {
        let Ok(entries) = std::fs::read_dir(&self.parts.worktrees) else { return };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(number) = name.split_once('-').and_then(|(n, _)| n.parse::<u32>().ok()) else { continue };
            match self.parts.board.by_number(number) {
                Ok(card) if worktree::dir_name(&card) == name => self.tidy(&card),
                _ => {}
            }
        }
    }

    /// What the card's runs changed in its git worktree (uncommitted and untracked files
    /// included), against where its branch left the user's HEAD. Once the card is Done (its
    /// worktree removed, its branch kept), the branch's commits. Err InvalidInput when the card
    /// has no project folder or it is not in a git repository; NotFound when it never ran there.
    pub fn diff(&self, card_id: &str) -> Result<CardDiff> {
        let card = self.with_folder(self.parts.board.get(card_id)?);
        let Some(folder) = card.project_folder.as_deref() else {
            return Err(Error::InvalidInput(format!(
                "#{} has no project folder (nor has its team), so its runs have no diff: they work in the agent's \
                 own folder.",
                card.number
            )));
        };
        match worktree::detect(folder.as_ref())? {
            Folder::Plain(_) => Err(Error::InvalidInput(format!(
                "#{}'s project folder {folder} is not in a git repository, so Clawboo cannot show a diff of its \
                 runs.",
                card.number
            ))),
            Folder::Repo(repo) => worktree::diff(&repo, &self.parts.worktrees, &card),
        }
    }
}
