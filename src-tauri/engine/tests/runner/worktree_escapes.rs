//! What an agent plants in its worktree never runs when Clawboo runs git there. Every escape's
//! program would leave a marker file: hooks (the repository's own hooks folder, and husky's
//! relative `core.hooksPath=.husky` with hooks the agent wrote), a `core.fsmonitor` program,
//! and the filter, text-converter and external-diff drivers the repository's config defines,
//! applied by a `.gitattributes` the agent wrote. After the card's diff, its close (the work
//! left uncommitted is committed, the worktree removed) and its start again (the branch, with
//! the agent's `.gitattributes` and hooks, checked out anew), no marker exists and the work was
//! diffed and committed all the same.
//!
//! A worktree whose `.git` the agent replaced (by a folder, a link, or a file naming another
//! git folder) is refused as `worktree_tampered`: no diff, no commit, no removal, the branch
//! kept, and a start again blocks the card with the reason.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use clawboo_engine::board::{Actor, Card, CardStatus};
use clawboo_engine::runner::worktree;
use clawboo_engine::ErrorCode;
use clawboo_testkit::wait_for;

use super::worktrees::{git, in_folder, repo, worktree_of};
use super::{fixture, Fixture};

/// Hooks Clawboo's git commands would fire.
const HOOKS: &[&str] = &[
    "pre-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "reference-transaction",
    "post-checkout",
    "post-index-change",
];

/// Reads the repository without running anything it names (plumbing only, hooks and the
/// monitor off), so the test itself leaves no marker.
fn look(dir: &Path, args: &[&str]) -> String {
    let mut all = vec!["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false"];
    all.extend_from_slice(args);
    git(dir, &all)
}

fn executable(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// The marker files written so far.
fn markers(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

/// `<tools>/mark <name> [file]`: leaves the marker `<name>`; as a filter or text converter it
/// passes the content through, as an external diff it prints nothing, as a monitor or a
/// long-running filter it fails (git then goes on without it).
fn mark_script(tools: &Path, markers: &Path) -> PathBuf {
    let script = tools.join("mark");
    executable(
        &script,
        &format!(
            "#!/bin/sh\ntouch '{}'/\"$1\"\ncase \"$1\" in\n  clean|smudge) cat ;;\n  textconv) cat \"$2\" ;;\n  \
             fsmonitor|process) exit 1 ;;\nesac\n",
            markers.display()
        ),
    );
    script
}

fn hook(dir: &Path, name: &str, markers: &Path) {
    executable(&dir.join(name), &format!("#!/bin/sh\ntouch '{}'/hook-{name}\nexit 0\n", markers.display()));
}

/// The repository's config names a program for every way git can run one from a tree's files.
fn configure_drivers(repo: &Path, mark: &Path) {
    let mark = mark.display();
    for (key, value) in [
        ("core.fsmonitor", format!("{mark} fsmonitor")),
        ("filter.evil.clean", format!("{mark} clean")),
        ("filter.evil.smudge", format!("{mark} smudge")),
        ("filter.evil.required", "true".to_owned()),
        ("filter.long.process", format!("{mark} process")),
        ("diff.evil.textconv", format!("{mark} textconv")),
        ("diff.ext.command", format!("{mark} ext-diff")),
        ("diff.external", format!("{mark} diff-external")),
    ] {
        git(repo, &["config", key, &value]);
    }
}

/// What the agent plants in its worktree: attributes applying every driver to its files.
fn plant_attributes(tree: &Path) {
    std::fs::write(tree.join(".gitattributes"), "*.txt filter=evil diff=evil\n*.md diff=ext\n*.dat filter=long\n")
        .unwrap();
    std::fs::write(tree.join("notes.md"), "# Notes\n").unwrap();
    std::fs::write(tree.join("blob.dat"), "data\n").unwrap();
}

/// The card's diff, its close as Done, and its start again: none runs a marker's program, and
/// the work is diffed, committed and checked out again.
fn diff_close_and_start_again(f: &Fixture, card: &Card, repo: &Path, marks: &Path, planted: &[&str]) {
    let tree = worktree_of(f, card);
    let diff = f.engine.runner().diff(&card.id).unwrap();
    assert!(diff.live);
    for file in planted.iter().chain(["work.txt"].iter()) {
        assert!(diff.files_changed.iter().any(|f| f == file), "{file} in {:?}", diff.files_changed);
    }
    assert!(diff.patch.contains("+written by put work.txt"), "{}", diff.patch);
    assert_eq!(markers(marks), Vec::<String>::new(), "the diff ran none of them");

    f.engine.board().move_card(Actor::User, &card.id, CardStatus::Done, None, None).unwrap();
    wait_for("the worktree to go", Duration::from_secs(20), || (!tree.exists()).then_some(()));
    assert_eq!(markers(marks), Vec::<String>::new(), "the close ran none of them");
    let branch = format!("clawboo/card-{}", card.number);
    assert_eq!(look(repo, &["log", "-1", "--format=%an", &branch]), "Clawboo", "the work was committed");
    assert_eq!(look(repo, &["cat-file", "-p", &format!("{branch}:work.txt")]), "written by put work.txt");
    for file in planted {
        look(repo, &["cat-file", "-e", &format!("{branch}:{file}")]);
    }

    // Again: the branch, with the agent's attributes and hooks, is checked out anew.
    f.engine.board().move_card(Actor::User, &card.id, CardStatus::Todo, None, None).unwrap();
    f.start(card);
    assert_eq!(f.settled(card).status, CardStatus::InReview);
    assert_eq!(std::fs::read_to_string(tree.join("work.txt")).unwrap(), "written by put work.txt\n");
    for file in planted {
        assert!(tree.join(file).exists(), "{file} checked out again");
    }
    assert!(f.engine.runner().diff(&card.id).unwrap().live);
    assert_eq!(markers(marks), Vec::<String>::new(), "checking the branch out again ran none of them");
    assert_eq!(look(repo, &["rev-parse", "--abbrev-ref", "HEAD"]), "main", "the user's checkout is untouched");
}

#[test]
fn the_repositorys_hooks_a_monitor_and_drivers_applied_by_the_agents_attributes_never_run() {
    let f = fixture();
    let (_keep, repo) = repo();
    let outside = tempfile::tempdir().unwrap();
    let marks = outside.path().join("markers");
    std::fs::create_dir(&marks).unwrap();
    let mark = mark_script(&outside.path().join("tools"), &marks);
    let hooks = repo.join(".git/hooks");
    for name in HOOKS {
        hook(&hooks, name, &marks);
    }
    configure_drivers(&repo, &mark);

    let card = in_folder(&f, "put work.txt", &repo, None);
    f.start(&card);
    assert_eq!(f.settled(&card).status, CardStatus::InReview);
    assert_eq!(markers(&marks), Vec::<String>::new(), "making the worktree ran no hook");
    plant_attributes(&worktree_of(&f, &card));
    diff_close_and_start_again(&f, &card, &repo, &marks, &[".gitattributes", "notes.md", "blob.dat"]);
}

#[test]
fn hooks_under_a_relative_hooks_path_the_agent_wrote_never_run() {
    let f = fixture();
    let (_keep, repo) = repo();
    let outside = tempfile::tempdir().unwrap();
    let marks = outside.path().join("markers");
    std::fs::create_dir(&marks).unwrap();
    // The user's husky setup: hooks committed in `.husky`, which git resolves in the worktree.
    for name in ["post-checkout", "reference-transaction"] {
        hook(&repo.join(".husky"), name, &marks);
    }
    look(&repo, &["add", ".husky"]);
    look(&repo, &["commit", "-q", "-m", "husky"]);
    git(&repo, &["config", "core.hooksPath", ".husky"]);

    let card = in_folder(&f, "put work.txt", &repo, None);
    f.start(&card);
    assert_eq!(f.settled(&card).status, CardStatus::InReview);
    assert_eq!(markers(&marks), Vec::<String>::new(), "making the worktree ran no hook");
    let tree = worktree_of(&f, &card);
    // The agent adds its own.
    for name in HOOKS {
        hook(&tree.join(".husky"), name, &marks);
    }
    let planted = [".husky/pre-commit", ".husky/prepare-commit-msg", ".husky/commit-msg", ".husky/post-commit"];
    diff_close_and_start_again(&f, &card, &repo, &marks, &planted);
}

/// How the agent replaces its worktree's `.git`.
#[derive(Debug, Clone, Copy)]
enum Tamper {
    /// A folder holding a repository of the agent's.
    Folder,
    /// A symbolic link to a copy of the very file Clawboo made.
    Link,
    /// A file naming the agent's repository.
    Elsewhere,
}

fn tampered_worktree_is_left_alone(how: Tamper, close_as: CardStatus) {
    let f = fixture();
    let (_keep, repo) = repo();
    let head = git(&repo, &["rev-parse", "HEAD"]);
    let card = in_folder(&f, "put work.txt", &repo, None);
    f.start(&card);
    assert_eq!(f.settled(&card).status, CardStatus::InReview);
    let tree = worktree_of(&f, &card);
    let dot_git = tree.join(".git");
    let made = std::fs::read_to_string(&dot_git).unwrap();
    assert!(made.starts_with("gitdir: "), "{made}");

    // The agent's own repository, where a commit Clawboo was fooled into would land.
    let theirs = tempfile::tempdir().unwrap();
    git(theirs.path(), &["init", "-q", "-b", "main"]);
    let copy = theirs.path().join("copy-of-dot-git");
    std::fs::write(&copy, &made).unwrap();
    std::fs::remove_file(&dot_git).unwrap();
    match how {
        Tamper::Folder => {
            let status = Command::new("cp").arg("-r").arg(theirs.path().join(".git")).arg(&dot_git).status();
            assert!(status.unwrap().success());
        }
        Tamper::Link => std::os::unix::fs::symlink(&copy, &dot_git).unwrap(),
        Tamper::Elsewhere => {
            std::fs::write(&dot_git, format!("gitdir: {}\n", theirs.path().join(".git").display())).unwrap()
        }
    }
    let tampered = |err: clawboo_engine::Error| {
        assert_eq!(err.code(), ErrorCode::WorktreeTampered, "{how:?}: {err}");
        let message = err.to_string();
        assert!(message.contains("is not as Clawboo made it"), "{message}");
        assert!(message.contains("nothing was committed or deleted"), "{message}");
        message
    };
    let message = tampered(f.engine.runner().diff(&card.id).unwrap_err());
    let expected = match how {
        Tamper::Folder => "its .git is now a folder".to_owned(),
        Tamper::Link => format!("its .git is now a symbolic link to {}", copy.display()),
        Tamper::Elsewhere => format!("its .git now reads \"gitdir: {}", theirs.path().join(".git").display()),
    };
    assert!(message.contains(&expected), "{message}");

    // Closed: the engine's removal refuses, and so does the close the Board's change sets off.
    let worktrees = f.data.data_dir().join("worktrees");
    let now = f.engine.board().get(&card.id).unwrap();
    let delete_branch = close_as == CardStatus::Cancelled;
    tampered(worktree::remove(&worktrees, &now, delete_branch, Some(&repo)).unwrap_err());
    f.engine.board().move_card(Actor::User, &card.id, close_as, None, None).unwrap();
    f.engine.runner().sweep_worktrees();
    std::thread::sleep(Duration::from_millis(500));

    let branch = format!("clawboo/card-{}", card.number);
    assert_eq!(f.engine.board().get(&card.id).unwrap().status, close_as, "the card stays where the user put it");
    assert_eq!(std::fs::read_to_string(tree.join("work.txt")).unwrap(), "written by put work.txt\n", "{how:?}");
    assert_eq!(git(&repo, &["rev-parse", &branch]), head, "{how:?}: the branch is kept, with no commit");
    assert!(git(&repo, &["worktree", "list"]).contains(&tree.display().to_string()), "still registered");
    assert_eq!(git(theirs.path(), &["rev-list", "--all"]), "", "nothing was committed in the agent's repository");
    match how {
        Tamper::Folder => assert!(dot_git.is_dir()),
        Tamper::Link => assert_eq!(std::fs::read_link(&dot_git).unwrap(), copy),
        Tamper::Elsewhere => {
            assert!(std::fs::read_to_string(&dot_git).unwrap().contains(&*theirs.path().to_string_lossy()))
        }
    }

    // Started again: the card is blocked with the reason, and still nothing changes.
    f.engine.board().move_card(Actor::User, &card.id, CardStatus::Todo, None, None).unwrap();
    f.start(&card);
    let blocked = f.settled(&card);
    assert_eq!(blocked.status, CardStatus::Blocked);
    assert!(blocked.blocked_reason.unwrap_or_default().contains("is not as Clawboo made it"));
    assert_eq!(f.runtime.inputs_for(&card.title).len(), 1, "no second run started");
    assert!(tree.join("work.txt").exists());
    assert_eq!(git(&repo, &["rev-parse", &branch]), head);
}

#[test]
fn a_git_folder_in_place_of_the_worktrees_git_file_is_refused_and_nothing_is_lost() {
    tampered_worktree_is_left_alone(Tamper::Folder, CardStatus::Done);
}

#[test]
fn a_link_in_place_of_the_worktrees_git_file_is_refused_and_the_branch_is_kept_when_cancelled() {
    tampered_worktree_is_left_alone(Tamper::Link, CardStatus::Cancelled);
}

#[test]
fn a_git_file_naming_another_repository_is_refused_and_nothing_is_lost() {
    tampered_worktree_is_left_alone(Tamper::Elsewhere, CardStatus::Done);
}

#[test]
fn a_worktree_made_before_clawboo_kept_its_git_file_is_vouched_for_by_its_repository() {
    let f = fixture();
    let (_keep, repo) = repo();
    let card = in_folder(&f, "put work.txt", &repo, None);
    f.start(&card);
    assert_eq!(f.settled(&card).status, CardStatus::InReview);
    let tree = worktree_of(&f, &card);
    let kept = f.data.data_dir().join("worktrees/.links").join(tree.file_name().unwrap());
    assert_eq!(std::fs::read(&kept).unwrap(), std::fs::read(tree.join(".git")).unwrap(), "a copy of what git wrote");

    // As an older Clawboo left it: no copy. The repository registers the worktree, so its diff
    // is shown and a copy is kept from then on.
    std::fs::remove_file(&kept).unwrap();
    assert_eq!(f.engine.runner().diff(&card.id).unwrap().files_changed, ["work.txt"]);
    assert_eq!(std::fs::read(&kept).unwrap(), std::fs::read(tree.join(".git")).unwrap());

    // Without a copy, a `.git` naming another git folder is refused all the same.
    std::fs::remove_file(&kept).unwrap();
    let theirs = tempfile::tempdir().unwrap();
    git(theirs.path(), &["init", "-q"]);
    std::fs::write(tree.join(".git"), format!("gitdir: {}\n", theirs.path().join(".git").display())).unwrap();
    let err = f.engine.runner().diff(&card.id).unwrap_err();
    assert_eq!(err.code(), ErrorCode::WorktreeTampered, "{err}");
    assert!(!kept.exists(), "no copy is made of a changed file");
}
