//! What a link or a path in a reply may open, checked here (the shell only opens what passes):
//!
//! - a link opens in the default browser (after the user confirmed the whole URL) only when it
//!   is `http`, `https` or `mailto`; anything else (`file:`, `javascript:`, a custom scheme that
//!   launches an app) is refused and shows as text;
//! - a path opens in the file manager only when it is inside an agent's folder, a card's
//!   worktree or a project folder (a team's or a card's): compared after the path and the
//!   folders are made canonical, so `..` and symlinks cannot lead out.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::store::Store;

/// The schemes a link may open with.
pub const LINK_SCHEMES: [&str; 3] = ["http", "https", "mailto"];

/// `text` as a link to open, normalised (`url` crate), when its scheme is allowed.
pub fn checked_link(text: &str) -> Result<String> {
    let text = text.trim();
    let url = url::Url::parse(text).map_err(|e| Error::InvalidInput(format!("“{text}” is not a link: {e}.")))?;
    if !LINK_SCHEMES.contains(&url.scheme()) {
        return Err(Error::InvalidInput(format!(
            "Only http, https and mailto links open; this one is {}:.",
            url.scheme()
        )));
    }
    if url.scheme() != "mailto" && url.host_str().is_none_or(str::is_empty) {
        return Err(Error::InvalidInput(format!("“{text}” names no host.")));
    }
    Ok(url.to_string())
}

/// Where paths may be opened: the folders of agents, cards' worktrees, and every project folder
/// a team or a card names.
pub struct OpenableFolders {
    pub agents_dir: PathBuf,
    pub worktrees_dir: PathBuf,
}

impl OpenableFolders {
    /// `path` made canonical, when it exists inside one of the folders. A relative path is taken
    /// inside `base` (an agent's folder, when the reply was an agent's), else refused.
    pub fn check(&self, store: &Store, path: &str, base: Option<&Path>) -> Result<PathBuf> {
        let given = Path::new(path.trim());
        let joined = if given.is_absolute() {
            given.to_owned()
        } else if let Some(base) = base {
            base.join(given)
        } else {
            return Err(Error::InvalidInput(format!("“{path}” is not a full path.")));
        };
        let real =
            joined.canonicalize().map_err(|_| Error::NotFound(format!("The file or folder “{}”", joined.display())))?;
        let mut folders = vec![self.agents_dir.clone(), self.worktrees_dir.clone()];
        folders.extend(project_folders(store)?.into_iter().map(PathBuf::from));
        let inside =
            folders.iter().filter_map(|folder| folder.canonicalize().ok()).any(|folder| real.starts_with(&folder));
        if !inside {
            return Err(Error::InvalidInput(format!(
                "“{}” is outside the agents' folders, the cards' worktrees and the project folders, so Clawboo does not open it.",
                real.display()
            )));
        }
        Ok(real)
    }
}

/// Every project folder a team or a card names.
fn project_folders(store: &Store) -> Result<Vec<String>> {
    store.read(|c| {
        let mut stmt = c.prepare_cached(
            "SELECT project_folder FROM teams WHERE project_folder IS NOT NULL
             UNION SELECT project_folder FROM cards WHERE project_folder IS NOT NULL",
        )?;
        let rows = stmt.query_map([], |r| r.get::<_, String>(0))?;
        Ok(rows.collect::<rusqlite::Result<_>>()?)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_web_and_mail_links_open() {
        assert_eq!(checked_link(" https://example.com/a b ").unwrap(), "https://example.com/a%20b");
        assert!(checked_link("http://localhost:3000/x").is_ok());
        assert!(checked_link("mailto:ada@example.com").is_ok());
        for bad in [
            "file:///etc/passwd",
            "javascript:alert(1)",
            "vscode://open?x",
            "data:text/html,hi",
            "ftp://example.com",
            "not a url",
            "https://",
            "",
        ] {
            let err = checked_link(bad).unwrap_err();
            assert_eq!(err.code(), crate::error::ErrorCode::InvalidInput, "{bad}");
        }
    }

    #[test]
    fn paths_open_only_inside_the_allowed_folders() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("clawboo.db")).unwrap();
        let agents = dir.path().join("agents");
        let worktrees = dir.path().join("worktrees");
        let project = dir.path().join("project");
        let outside = dir.path().join("outside");
        for d in [&agents.join("ada"), &worktrees.join("card-1"), &project.join("src"), &outside] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(outside.join("secret.txt"), "x").unwrap();
        std::fs::write(project.join("src/main.rs"), "fn main() {}").unwrap();
        store
            .write(|tx| {
                tx.execute(
                    "INSERT INTO teams (id, name, project_folder, created_at, updated_at) VALUES ('t', 'T', ?1, 0, 0)",
                    [project.to_str().unwrap()],
                )?;
                Ok(())
            })
            .unwrap();
        let folders = OpenableFolders { agents_dir: agents.clone(), worktrees_dir: worktrees.clone() };
        let ok = |p: &Path, base: Option<&Path>| folders.check(&store, p.to_str().unwrap(), base);
        assert!(ok(&agents.join("ada"), None).is_ok());
        assert!(ok(&worktrees.join("card-1"), None).is_ok());
        assert_eq!(
            ok(&project.join("src/main.rs"), None).unwrap(),
            project.join("src/main.rs").canonicalize().unwrap()
        );
        // Relative to the agent's folder; `..` out of every folder is refused.
        assert!(folders.check(&store, ".", Some(&agents.join("ada"))).is_ok());
        assert!(folders.check(&store, "../../outside/secret.txt", Some(&agents.join("ada"))).is_err());
        assert!(folders.check(&store, "relative/path", None).is_err());
        assert!(ok(&outside.join("secret.txt"), None).is_err());
        assert!(ok(&agents.join("ada/../../outside/secret.txt"), None).is_err());
        assert!(ok(&agents.join("missing.md"), None).is_err());
        // A symlink inside an allowed folder that points out of them is refused.
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(&outside, agents.join("ada/escape")).unwrap();
            assert!(ok(&agents.join("ada/escape/secret.txt"), None).is_err());
        }
    }
}
