//! A card's project folder. A git repository is never worked in directly: each card gets its own
//! git worktree at `<data dir>/worktrees/<number>-<short id>` on its own branch
//! `clawboo/card-<number>`, made from the repository's current HEAD commit, so two agents on two
//! cards of one repository never write into each other's files and the user's checked-out
//! branch, index and working tree are never touched (no `checkout` ever runs in them).
//! The worktree is removed when the card is Done (its branch is kept, for the user to merge) or
//! Cancelled (its branch is deleted too). A folder that is not in a repository is used in place,
//! by one run at a time (the runner's queue holds the others).
//!
//! A card's diff is everything its worktree holds that its base does not, uncommitted and
//! untracked files included: the worktree's index is copied to a temporary index, `git add -A`
//! stages the whole working tree into that copy (the worktree's own index is left as it was), and
//! `git diff --cached <base>` compares. The base is where the card's branch left the user's
//! current HEAD (`git merge-base`).
//!
//! Git runs through `std::process::Command` with a time limit (the runner's blocking threads call
//! it), never through a shell.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::board::Card;
use crate::error::{Error, Result};

/// A git command is stopped after this long.
const GIT_TIMEOUT: Duration = Duration::from_secs(120);
/// A diff's patch is cut after this many bytes, with a note saying so.
pub const DIFF_PATCH_BYTES: usize = 1024 * 1024;

/// What a card's project folder is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Folder {
    /// Not in a git repository: used in place, one run at a time.
    Plain(PathBuf),
    /// In the git repository whose top level is this.
    Repo(PathBuf),
}

/// A card's worktree and its branch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Worktree {
    pub path: PathBuf,
    pub branch: String,
}

/// What a card's run changed, against where its branch started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct CardDiff {
    /// The card's branch (`clawboo/card-<number>`).
    pub branch: String,
    /// The commit the diff is against: where the branch left the user's current HEAD.
    pub base: String,
    /// The paths changed, added or removed, relative to the repository.
    pub files_changed: Vec<String>,
    /// The unified diff, cut after [`DIFF_PATCH_BYTES`] (then `truncated`, and the patch ends
    /// with a note saying so).
    pub patch: String,
    pub truncated: bool,
    /// Whether this is the worktree as it is now (uncommitted work included); false when the
    /// worktree was removed (the card is Done) and only the branch's commits are shown.
    pub live: bool,
}

/// `<number>-<first 8 chars of the card's id>`.
pub fn dir_name(card: &Card) -> String {
    let short: String = card.id.chars().filter(char::is_ascii_alphanumeric).take(8).collect();
    format!("{}-{short}", card.number)
}

pub fn branch_name(card: &Card) -> String {
    format!("clawboo/card-{}", card.number)
}

/// Whether `folder` lies in a git repository (its top level then), or is a plain folder. When git
/// cannot say (it is missing, or refuses the repository, e.g. `safe.directory`) but the folder
/// looks like it is in one, Err: working in place could write into the user's checkout.
pub fn detect(folder: &Path) -> Result<Folder> {
    match git(folder, &["rev-parse", "--show-toplevel"], None) {
        Ok(top) => Ok(Folder::Repo(PathBuf::from(top.trim()))),
        // Git looked in the folder and every parent and found no repository.
        Err(e) if e.to_string().contains(NOT_A_REPOSITORY) => Ok(Folder::Plain(plain(folder))),
        Err(e) if folder.ancestors().any(|dir| dir.join(".git").exists()) => Err(Error::Git(format!(
            "{} looks like it is in a git repository, but git could not open it, so no run starts there: {e}",
            folder.display()
        ))),
        Err(_) => Ok(Folder::Plain(plain(folder))),
    }
}

/// What git says (in the C locale) when no folder up to the root holds a repository.
const NOT_A_REPOSITORY: &str = "not a git repository (or any of the parent directories)";

fn plain(folder: &Path) -> PathBuf {
    folder.canonicalize().unwrap_or_else(|_| folder.to_owned())
}

/// The card's worktree, made when missing: on its branch when an earlier start left one, else
/// on a new branch from the repository's HEAD commit.
pub fn ensure(repo: &Path, worktrees: &Path, card: &Card) -> Result<Worktree> {
    let path = worktrees.join(dir_name(card));
    let branch = branch_name(card);
    if path.exists() {
        if is_worktree(&path) {
            return Ok(Worktree { path, branch });
        }
        return Err(Error::Git(format!(
            "{} exists but is not a git worktree: remove that folder, then run #{} again.",
            path.display(),
            card.number
        )));
    }
    std::fs::create_dir_all(worktrees).map_err(|e| Error::io(format!("Cannot create {}", worktrees.display()), e))?;
    if git(repo, &["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], None).is_err() {
        return Err(Error::Git(format!(
            "The repository {} has no commit yet: make a first commit, then run #{} again.",
            repo.display(),
            card.number
        )));
    }
    // A worktree folder removed by hand is still registered: forget it, or `add` refuses.
    let _ = git(repo, &["worktree", "prune"], None);
    let target = path.to_string_lossy().into_owned();
    let exists = git(repo, &["rev-parse", "--verify", "--quiet", &format!("refs/heads/{branch}")], None).is_ok();
    let added = if exists {
        git(repo, &["worktree", "add", &target, &branch], None)
    } else {
        git(repo, &["worktree", "add", "-b", &branch, &target, "HEAD"], None)
    };
    added.map_err(|e| Error::Git(format!("#{}'s worktree could not be made: {e}", card.number)))?;
    Ok(Worktree { path, branch })
}

/// Removes the card's worktree when there is one. When its branch is kept (`!delete_branch`, the
/// card is Done), work left uncommitted is first committed on the branch, so nothing the agent
/// did is lost with the worktree (the worktree stays when that commit fails). When
/// `delete_branch` (Cancelled), the worktree goes with its uncommitted work, then its branch.
/// Whether there was a worktree to remove.
pub fn remove(worktrees: &Path, card: &Card, delete_branch: bool) -> Result<bool> {
    let path = worktrees.join(dir_name(card));
    if !path.exists() || !is_worktree(&path) {
        return Ok(false);
    }
    let common = common_dir(&path)?;
    let branch = git(&path, &["rev-parse", "--abbrev-ref", "HEAD"], None)
        .map(|b| b.trim().to_owned())
        .ok()
        .filter(|b| b.starts_with("clawboo/"))
        .unwrap_or_else(|| branch_name(card));
    if !delete_branch {
        commit_left_over(&path, card)?;
    }
    let target = path.to_string_lossy().into_owned();
    git_in(&common, &["worktree", "remove", "--force", &target])?;
    if delete_branch {
        // Gone already (the user deleted it) is fine.
        let _ = git_in(&common, &["branch", "-D", &branch]);
    }
    Ok(true)
}

/// The card's diff: its worktree as it is now; or, when the worktree was removed, its branch's
/// commits. Err NotFound when the card has neither.
pub fn diff(repo: &Path, worktrees: &Path, card: &Card) -> Result<CardDiff> {
    let path = worktrees.join(dir_name(card));
    let branch = branch_name(card);
    let user_head = git(repo, &["rev-parse", "HEAD"], None)?.trim().to_owned();
    if path.exists() && is_worktree(&path) {
        let base = git(&path, &["merge-base", "HEAD", &user_head], None)?.trim().to_owned();
        let index = git(&path, &["rev-parse", "--path-format=absolute", "--git-path", "index"], None)?;
        let temp = worktrees.join(format!(".diff-index-{}", uuid::Uuid::new_v4()));
        let result = (|| {
            match std::fs::copy(index.trim(), &temp) {
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io("Cannot copy the worktree's index", e)),
            }
            let temp = Some(temp.as_path());
            git(&path, &["add", "-A"], temp)?;
            let names = git(&path, &["diff", "--cached", "--name-only", "-z", &base], temp)?;
            let patch = git(&path, &["diff", "--cached", "--no-color", "--no-ext-diff", &base], temp)?;
            Ok((names, patch))
        })();
        let _ = std::fs::remove_file(&temp);
        let (names, patch) = result?;
        return Ok(card_diff(branch, base, &names, patch, true));
    }
    let reference = format!("refs/heads/{branch}");
    if git(repo, &["rev-parse", "--verify", "--quiet", &reference], None).is_err() {
        return Err(Error::NotFound(format!(
            "A worktree or branch of #{} (it has not run in {})",
            card.number,
            repo.display()
        )));
    }
    let base = git(repo, &["merge-base", &reference, &user_head], None)?.trim().to_owned();
    let names = git(repo, &["diff", "--name-only", "-z", &base, &reference], None)?;
    let patch = git(repo, &["diff", "--no-color", "--no-ext-diff", &base, &reference], None)?;
    Ok(card_diff(branch, base, &names, patch, false))
}

fn card_diff(branch: String, base: String, names: &str, mut patch: String, live: bool) -> CardDiff {
    let files_changed = names.split('\0').filter(|n| !n.is_empty()).map(str::to_owned).collect();
    let truncated = patch.len() > DIFF_PATCH_BYTES;
    if truncated {
        let total = patch.len();
        let mut cut = DIFF_PATCH_BYTES;
        while !patch.is_char_boundary(cut) {
            cut -= 1;
        }
        patch.truncate(cut);
        patch.push_str(&format!(
            "\n[Cut: the patch is {total} bytes and only the first {DIFF_PATCH_BYTES} are shown. See the whole diff \
             with `git diff {base}` in the card's worktree.]\n"
        ));
    }
    CardDiff { branch, base, files_changed, patch, truncated, live }
}

/// Commits whatever the worktree holds uncommitted (untracked files included, ignored ones not),
/// as Clawboo, without the repository's hooks (they are the user's, for the user's commits).
fn commit_left_over(path: &Path, card: &Card) -> Result<()> {
    git(path, &["add", "-A"], None)?;
    if git(path, &["diff", "--cached", "--quiet"], None).is_ok() {
        return Ok(());
    }
    let message = format!("Clawboo: work left uncommitted on #{} when it was done", card.number);
    git(
        path,
        &[
            "-c",
            "user.name=Clawboo",
            "-c",
            "user.email=clawboo@localhost",
            "commit",
            "-q",
            "--no-verify",
            "-m",
            &message,
        ],
        None,
    )
    .map(|_| ())
    .map_err(|e| {
        Error::Git(format!("#{}'s uncommitted work could not be committed, so its worktree stays: {e}", card.number))
    })
}

fn is_worktree(path: &Path) -> bool {
    let Ok(top) = git(path, &["rev-parse", "--show-toplevel"], None) else { return false };
    let (Ok(top), Ok(path)) = (Path::new(top.trim()).canonicalize(), path.canonicalize()) else { return false };
    top == path
}

/// The repository's own git folder (shared by all its worktrees).
fn common_dir(worktree: &Path) -> Result<PathBuf> {
    let dir = git(worktree, &["rev-parse", "--path-format=absolute", "--git-common-dir"], None)?;
    Ok(PathBuf::from(dir.trim()))
}

/// Runs git on the repository's own git folder (not from inside a worktree being removed).
fn git_in(common: &Path, args: &[&str]) -> Result<String> {
    let mut all = vec!["--git-dir", common.to_str().unwrap_or_default()];
    all.extend_from_slice(args);
    run_git(None, &all, None)
}

/// `git -C dir <args>`: its stdout, or Err Git with its stderr.
fn git(dir: &Path, args: &[&str], index: Option<&Path>) -> Result<String> {
    run_git(Some(dir), args, index)
}

fn run_git(dir: Option<&Path>, args: &[&str], index: Option<&Path>) -> Result<String> {
    let mut command = Command::new("git");
    if let Some(dir) = dir {
        command.arg("-C").arg(dir);
    }
    command
        .args(args)
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("LC_ALL", "C")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(index) = index {
        command.env("GIT_INDEX_FILE", index);
    }
    let shown = format!("git {}", args.join(" "));
    let mut child = command.spawn().map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => Error::Git(
            "Git was not found on this machine's PATH: install git to run cards whose project folder is a git \
             repository."
                .into(),
        ),
        _ => Error::Git(format!("`{shown}` could not start: {e}")),
    })?;
    // Read both pipes while waiting, so a large output never blocks the child.
    let reader = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            bytes
        })
    };
    let stdout = reader(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let stderr = reader(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let deadline = Instant::now() + GIT_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(Error::Git(format!("`{shown}` was stopped after {} s.", GIT_TIMEOUT.as_secs())));
            }
            Err(e) => return Err(Error::Git(format!("`{shown}` could not be waited for: {e}"))),
        }
    };
    let stdout = String::from_utf8_lossy(&stdout.join().unwrap_or_default()).into_owned();
    let stderr = String::from_utf8_lossy(&stderr.join().unwrap_or_default()).trim().to_owned();
    if status.success() {
        Ok(stdout)
    } else {
        let why = if stderr.is_empty() { format!("exit {status}") } else { stderr };
        Err(Error::Git(format!("`{shown}` failed: {why}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_patch_over_the_cap_is_cut_at_a_char_boundary_with_a_note() {
        let names = "a.txt\0dir/b.txt\0";
        let whole = card_diff("b".into(), "base".into(), names, "+é\n".into(), true);
        assert_eq!(whole.files_changed, ["a.txt", "dir/b.txt"]);
        assert!(!whole.truncated);
        assert_eq!(whole.patch, "+é\n");

        let big = "é".repeat(DIFF_PATCH_BYTES); // two bytes each
        let cut = card_diff("b".into(), "base".into(), "", big, true);
        assert!(cut.truncated);
        assert!(cut.patch.starts_with('é'));
        assert!(cut.patch.contains("[Cut: the patch is 2097152 bytes"), "never cut quietly");
        assert!(cut.patch.len() < DIFF_PATCH_BYTES + 300);
    }

    #[test]
    fn a_worktree_is_named_by_the_cards_number_and_short_id() {
        let card = Card {
            id: "0f3a9c1e-77aa-4b1c-9d2e-000000000000".into(),
            number: 12,
            title: "t".into(),
            description: String::new(),
            assignee_id: None,
            team_id: None,
            status: crate::board::CardStatus::Todo,
            priority: crate::board::Priority::Medium,
            depends_on: Vec::new(),
            waiting_on: Vec::new(),
            check_command: None,
            project_folder: None,
            task_text: None,
            origin: crate::board::CardOrigin::User,
            claimed_by_run: None,
            blocked_reason: None,
            position: 1.0,
            created_at: 0,
            updated_at: 0,
        };
        assert_eq!(dir_name(&card), "12-0f3a9c1e");
        assert_eq!(branch_name(&card), "clawboo/card-12");
    }
}
