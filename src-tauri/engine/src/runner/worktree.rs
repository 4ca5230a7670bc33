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
//! Git runs only through [`super::git`], hardened against what an agent may have put in the
//! worktree (hooks, a file-system monitor, filters, text converters). Before git runs in a
//! worktree, its `.git` is checked against the file `git worktree add` wrote when Clawboo made
//! it (a copy is kept outside the worktree, in `<data dir>/worktrees/.links/`): the same
//! regular file, linking to the same git folder in the repository. A `.git` replaced by a
//! folder, a link or another file (or removed) is refused as `worktree_tampered`, and nothing
//! is committed, removed or deleted: the user finds the worktree, its files and its branch as
//! they were. Git is then told the checked git folder and work tree, and never reads `.git`.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::git::{run as git_run, run_with, Place};
use crate::board::Card;
use crate::error::{Error, Result};

/// Where the copies of the worktrees' `.git` files are kept, in the worktrees folder.
const LINKS_DIR: &str = ".links";
/// A `.git` file longer than this is not one git wrote.
const MAX_LINK_BYTES: u64 = 4096;

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
    match git_run(Place::Folder(folder), &["rev-parse", "--show-toplevel"]) {
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
/// on a new branch from the repository's HEAD commit. Err WorktreeTampered when the worktree
/// Clawboo made is no longer as it made it.
pub fn ensure(repo: &Path, worktrees: &Path, card: &Card) -> Result<Worktree> {
    let path = worktrees.join(dir_name(card));
    let branch = branch_name(card);
    match found(worktrees, card, Some(repo))? {
        Found::Worktree(_) => return Ok(Worktree { path, branch }),
        Found::Other => {
            return Err(Error::Git(format!(
                "{} exists but is not a git worktree: remove that folder, then run #{} again.",
                path.display(),
                card.number
            )))
        }
        Found::Nothing => {}
    }
    std::fs::create_dir_all(worktrees).map_err(|e| Error::io(format!("Cannot create {}", worktrees.display()), e))?;
    let at = Place::Folder(repo);
    if git_run(at, &["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]).is_err() {
        return Err(Error::Git(format!(
            "The repository {} has no commit yet: make a first commit, then run #{} again.",
            repo.display(),
            card.number
        )));
    }
    // A worktree folder removed by hand is still registered: forget it, or `add` refuses.
    let _ = git_run(at, &["worktree", "prune"]);
    let target = path.to_string_lossy().into_owned();
    let exists = git_run(at, &["rev-parse", "--verify", "--quiet", &format!("refs/heads/{branch}")]).is_ok();
    let added = if exists {
        git_run(at, &["worktree", "add", &target, &branch])
    } else {
        git_run(at, &["worktree", "add", "-b", &branch, &target, "HEAD"])
    };
    added.map_err(|e| Error::Git(format!("#{}'s worktree could not be made: {e}", card.number)))?;
    keep_link(worktrees, card, &path)?;
    Ok(Worktree { path, branch })
}

/// Removes the card's worktree when there is one. When its branch is kept (`!delete_branch`, the
/// card is Done), work left uncommitted is first committed on the branch, so nothing the agent
/// did is lost with the worktree (the worktree stays when that commit fails). When
/// `delete_branch` (Cancelled), the worktree goes with its uncommitted work, then its branch.
/// `repo` is the card's repository now (it vouches for a worktree made before Clawboo kept a
/// copy of its `.git`). Whether there was a worktree to remove. Err WorktreeTampered (nothing
/// committed or removed) when the worktree is no longer as Clawboo made it.
pub fn remove(worktrees: &Path, card: &Card, delete_branch: bool, repo: Option<&Path>) -> Result<bool> {
    let Found::Worktree(tree) = found(worktrees, card, repo)? else { return Ok(false) };
    let at = tree.place();
    let common = git_run(at, &["rev-parse", "--path-format=absolute", "--git-common-dir"])?;
    let common = PathBuf::from(common.trim());
    let branch = git_run(at, &["rev-parse", "--abbrev-ref", "HEAD"])
        .map(|b| b.trim().to_owned())
        .ok()
        .filter(|b| b.starts_with("clawboo/"))
        .unwrap_or_else(|| branch_name(card));
    if !delete_branch {
        commit_left_over(at, card)?;
    }
    let target = tree.path.to_string_lossy().into_owned();
    git_run(Place::GitDir(&common), &["worktree", "remove", "--force", &target])?;
    let _ = std::fs::remove_file(link_copy(worktrees, card));
    if delete_branch {
        // Gone already (the user deleted it) is fine.
        let _ = git_run(Place::GitDir(&common), &["branch", "-D", &branch]);
    }
    Ok(true)
}

/// The card's diff: its worktree as it is now; or, when the worktree was removed, its branch's
/// commits. Err NotFound when the card has neither; WorktreeTampered when its worktree is no
/// longer as Clawboo made it.
pub fn diff(repo: &Path, worktrees: &Path, card: &Card) -> Result<CardDiff> {
    let branch = branch_name(card);
    let user_head = git_run(Place::Folder(repo), &["rev-parse", "HEAD"])?.trim().to_owned();
    if let Found::Worktree(tree) = found(worktrees, card, Some(repo))? {
        let at = tree.place();
        let base = git_run(at, &["merge-base", "HEAD", &user_head])?.trim().to_owned();
        let index = git_run(at, &["rev-parse", "--path-format=absolute", "--git-path", "index"])?;
        let temp = worktrees.join(format!(".diff-index-{}", uuid::Uuid::new_v4()));
        let result = (|| {
            match std::fs::copy(index.trim(), &temp) {
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io("Cannot copy the worktree's index", e)),
            }
            let temp = [("GIT_INDEX_FILE", temp.as_os_str())];
            run_with(at, &["add", "-A"], &temp)?;
            let names = run_with(at, &["diff", "--cached", "--name-only", "-z", &base], &temp)?;
            let patch = run_with(at, &["diff", "--cached", "--no-color", &base], &temp)?;
            Ok((names, patch))
        })();
        let _ = std::fs::remove_file(&temp);
        let (names, patch) = result?;
        return Ok(card_diff(branch, base, &names, patch, true));
    }
    let at = Place::Folder(repo);
    let reference = format!("refs/heads/{branch}");
    if git_run(at, &["rev-parse", "--verify", "--quiet", &reference]).is_err() {
        return Err(Error::NotFound(format!(
            "A worktree or branch of #{} (it has not run in {})",
            card.number,
            repo.display()
        )));
    }
    let base = git_run(at, &["merge-base", &reference, &user_head])?.trim().to_owned();
    let names = git_run(at, &["diff", "--name-only", "-z", &base, &reference])?;
    let patch = git_run(at, &["diff", "--no-color", &base, &reference])?;
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
fn commit_left_over(at: Place, card: &Card) -> Result<()> {
    git_run(at, &["add", "-A"])?;
    if git_run(at, &["diff", "--cached", "--quiet"]).is_ok() {
        return Ok(());
    }
    let message = format!("Clawboo: work left uncommitted on #{} when it was done", card.number);
    let (name, email) = (OsStr::new("Clawboo"), OsStr::new("clawboo@localhost"));
    let identity = [
        ("GIT_AUTHOR_NAME", name),
        ("GIT_AUTHOR_EMAIL", email),
        ("GIT_COMMITTER_NAME", name),
        ("GIT_COMMITTER_EMAIL", email),
    ];
    run_with(at, &["commit", "-q", "--no-verify", "-m", &message], &identity).map(|_| ()).map_err(|e| {
        Error::Git(format!("#{}'s uncommitted work could not be committed, so its worktree stays: {e}", card.number))
    })
}

/// What is at a card's worktree path.
enum Found {
    Nothing,
    /// A folder Clawboo has no record of as a worktree of the card's repository.
    Other,
    /// The worktree Clawboo made, its `.git` as Clawboo made it.
    Worktree(Checked),
}

/// A worktree whose `.git` was checked, and the git folder it links to.
struct Checked {
    path: PathBuf,
    git_dir: PathBuf,
}

impl Checked {
    fn place(&self) -> Place<'_> {
        Place::Worktree { path: &self.path, git_dir: &self.git_dir }
    }
}

/// Where the copy of a card's worktree's `.git` is kept.
fn link_copy(worktrees: &Path, card: &Card) -> PathBuf {
    worktrees.join(LINKS_DIR).join(dir_name(card))
}

/// Keeps a copy of the `.git` file `git worktree add` just wrote in the card's new worktree.
fn keep_link(worktrees: &Path, card: &Card, path: &Path) -> Result<()> {
    let written = read_link_file(&path.join(".git")).map_err(|what| {
        Error::Git(format!("#{}'s new worktree {} has no .git file git made: it {what}.", card.number, path.display()))
    })?;
    let copy = link_copy(worktrees, card);
    let dir = worktrees.join(LINKS_DIR);
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(format!("Cannot create {}", dir.display()), e))?;
    std::fs::write(&copy, written).map_err(|e| Error::io(format!("Cannot write {}", copy.display()), e))
}

/// The card's worktree, its `.git` checked against the copy Clawboo kept when it made the
/// worktree. A worktree made before Clawboo kept copies is vouched for by `repo`: one of its
/// registered worktrees is this folder, and `.git` links to that one (a copy is kept from then
/// on). Without a copy or such a registration, the folder is [`Found::Other`] and git never runs
/// in it.
fn found(worktrees: &Path, card: &Card, repo: Option<&Path>) -> Result<Found> {
    let path = worktrees.join(dir_name(card));
    let tampered = |what: String, git_dir: &Path| {
        Err(Error::WorktreeTampered(format!(
            "#{}'s worktree {} is not as Clawboo made it: {what} (Clawboo made it a file linking to {}). An agent \
             may have changed it, so Clawboo ran no git there: nothing was committed or deleted, and the worktree, \
             its files and its branch {} are as they were. Look at it, then remove it yourself (`git worktree remove \
             --force` from the repository).",
            card.number,
            path.display(),
            git_dir.display(),
            branch_name(card),
        )))
    };
    match std::fs::symlink_metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Found::Nothing),
        Err(e) => return Err(Error::io(format!("Cannot look at {}", path.display()), e)),
        Ok(meta) if !meta.is_dir() => return Ok(Found::Other),
        Ok(_) => {}
    }
    let copy = link_copy(worktrees, card);
    let found = read_link_file(&path.join(".git"));
    match std::fs::read(&copy) {
        Ok(kept) => {
            let Some(git_dir) = links_to(&kept, &path) else {
                return Err(Error::Git(format!("{} is not a copy of a .git file: remove it.", copy.display())));
            };
            match found {
                Ok(bytes) if bytes == kept => Ok(Found::Worktree(Checked { path, git_dir })),
                Ok(bytes) => tampered(format!("its .git now reads {:?}", String::from_utf8_lossy(&bytes)), &git_dir),
                Err(what) => tampered(format!("its .git {what}"), &git_dir),
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let Some(git_dir) = repo.and_then(|repo| registered(repo, &path)) else { return Ok(Found::Other) };
            let same = |bytes: &[u8]| {
                let linked = links_to(bytes, &path).and_then(|p| p.canonicalize().ok());
                linked.is_some() && linked == git_dir.canonicalize().ok()
            };
            match found {
                Ok(bytes) if same(&bytes) => {
                    keep_link(worktrees, card, &path)?;
                    Ok(Found::Worktree(Checked { path, git_dir }))
                }
                Ok(bytes) => tampered(format!("its .git now reads {:?}", String::from_utf8_lossy(&bytes)), &git_dir),
                Err(what) => tampered(format!("its .git {what}"), &git_dir),
            }
        }
        Err(e) => Err(Error::io(format!("Cannot read {}", copy.display()), e)),
    }
}

/// The git folder in `repo` of its worktree at `path`: the one whose `gitdir` names
/// `<path>/.git`.
fn registered(repo: &Path, path: &Path) -> Option<PathBuf> {
    let common = git_run(Place::Folder(repo), &["rev-parse", "--path-format=absolute", "--git-common-dir"]).ok()?;
    let wanted = path.canonicalize().ok()?.join(".git");
    let entries = std::fs::read_dir(Path::new(common.trim()).join("worktrees")).ok()?;
    entries.flatten().map(|e| e.path()).find(|admin| {
        std::fs::read_to_string(admin.join("gitdir")).is_ok_and(|named| Path::new(named.trim()) == wanted)
    })
}

/// A worktree's `.git`: a regular file's bytes, else what it is instead (in words).
fn read_link_file(dot_git: &Path) -> std::result::Result<Vec<u8>, String> {
    let meta = match std::fs::symlink_metadata(dot_git) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err("is gone".into()),
        Err(e) => return Err(format!("cannot be looked at ({e})")),
    };
    if meta.file_type().is_symlink() {
        let target = std::fs::read_link(dot_git).map(|t| t.display().to_string()).unwrap_or_default();
        return Err(format!("is now a symbolic link to {target}"));
    }
    if meta.is_dir() {
        return Err("is now a folder".into());
    }
    if !meta.is_file() {
        return Err("is not a regular file".into());
    }
    if meta.len() > MAX_LINK_BYTES {
        return Err(format!("is now a file of {} bytes", meta.len()));
    }
    std::fs::read(dot_git).map_err(|e| format!("cannot be read ({e})"))
}

/// The git folder a `.git` file's `gitdir: <path>` line names (relative to the worktree when
/// relative).
fn links_to(bytes: &[u8], worktree: &Path) -> Option<PathBuf> {
    let text = std::str::from_utf8(bytes).ok()?;
    let named = text.strip_prefix("gitdir: ")?.trim_end_matches(['\n', '\r']);
    (!named.is_empty() && !named.contains('\n')).then(|| worktree.join(named))
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
