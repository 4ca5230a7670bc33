//! What the app asks of the desktop: open a link in the browser, a folder in the file manager,
//! a file selected in its folder, and where to save a file (the system's save dialog). Behind a
//! trait so the commands need no runtime type (tauri-specta takes only concrete commands) and a
//! test can stand in for the desktop. The real one is the opener and dialog plugins, used from
//! Rust only: the webview has no permission to open anything itself.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tauri::{AppHandle, Runtime};
use tauri_plugin_dialog::DialogExt;
use tauri_plugin_opener::OpenerExt;

/// A file type offered in the save dialog: its name and extensions.
pub struct FileKind {
    pub name: &'static str,
    pub extensions: &'static [&'static str],
}

pub trait DesktopActions: Send + Sync {
    fn open_url(&self, url: &str) -> Result<(), String>;
    fn open_folder(&self, path: &Path) -> Result<(), String>;
    fn reveal(&self, path: &Path) -> Result<(), String>;
    /// Asks where to save `file_name`; `done` gets the path, or `None` when the user cancelled.
    fn ask_save_path(&self, file_name: &str, kind: FileKind, done: Box<dyn FnOnce(Option<PathBuf>) + Send>);
}

/// Managed by the app (`app.manage`); commands take it as `State<'_, Desktop>`.
pub struct Desktop(pub Arc<dyn DesktopActions>);

impl<R: Runtime> DesktopActions for AppHandle<R> {
    fn open_url(&self, url: &str) -> Result<(), String> {
        self.opener().open_url(url, None::<&str>).map_err(|e| e.to_string())
    }

    fn open_folder(&self, path: &Path) -> Result<(), String> {
        self.opener().open_path(path.display().to_string(), None::<&str>).map_err(|e| e.to_string())
    }

    fn reveal(&self, path: &Path) -> Result<(), String> {
        self.opener().reveal_item_in_dir(path).map_err(|e| e.to_string())
    }

    fn ask_save_path(&self, file_name: &str, kind: FileKind, done: Box<dyn FnOnce(Option<PathBuf>) + Send>) {
        self.dialog()
            .file()
            .set_title("Export")
            .set_file_name(file_name)
            .add_filter(kind.name, kind.extensions)
            .save_file(move |path| done(path.and_then(|p| p.into_path().ok())));
    }
}
