//! What the window remembers between starts: the theme the user chose (or the system's), and
//! the place it showed last (a chat, a room, the Board…), so Clawboo opens where it was left.
//! Kept in the data folder's settings, so they go with the data, not with the webview's storage.

use serde::{Deserialize, Serialize};

use crate::store::{settings, Store};
use clawboo_vocab::error::{Error, Result};

const THEME_SETTING: &str = "ui.theme";
const LAST_PLACE_SETTING: &str = "ui.last_place";
/// A place is a small JSON object the UI writes (its route); anything longer is not one.
pub const MAX_PLACE_BYTES: usize = 1024;

/// Light, dark, or whatever the system uses (the default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum Theme {
    #[default]
    System,
    Light,
    Dark,
}

impl Theme {
    pub const ALL: [Theme; 3] = [Theme::System, Theme::Light, Theme::Dark];

    pub fn as_str(self) -> &'static str {
        match self {
            Theme::System => "system",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|theme| theme.as_str() == text)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, specta::Type)]
#[serde(rename_all = "camelCase")]
pub struct WindowPreferences {
    pub theme: Theme,
    /// The place shown last, as the UI wrote it (a JSON object), if any.
    pub last_place: Option<String>,
}

pub fn get(store: &Store) -> Result<WindowPreferences> {
    store.read(|c| {
        let theme = settings::get(c, THEME_SETTING)?.as_deref().and_then(Theme::parse).unwrap_or_default();
        let last_place = settings::get(c, LAST_PLACE_SETTING)?;
        Ok(WindowPreferences { theme, last_place })
    })
}

pub fn set_theme(store: &Store, theme: Theme) -> Result<Theme> {
    let value = (theme != Theme::System).then_some(theme.as_str());
    store.write(|tx| settings::put(tx, THEME_SETTING, value))?;
    Ok(theme)
}

/// Remembers the place shown now; `None` forgets it. A place must be one JSON object of at most
/// [`MAX_PLACE_BYTES`] with a `page`: it is read back at start, before anything is checked.
pub fn set_last_place(store: &Store, place: Option<&str>) -> Result<()> {
    if let Some(place) = place {
        check_place(place)?;
    }
    store.write(|tx| settings::put(tx, LAST_PLACE_SETTING, place))
}

fn check_place(place: &str) -> Result<()> {
    if place.len() > MAX_PLACE_BYTES {
        return Err(Error::InvalidInput(format!(
            "A place to reopen is at most {MAX_PLACE_BYTES} bytes, not {}.",
            place.len()
        )));
    }
    let value: serde_json::Value =
        serde_json::from_str(place).map_err(|e| Error::InvalidInput(format!("A place to reopen must be JSON: {e}")))?;
    match value.get("page") {
        Some(serde_json::Value::String(_)) if value.is_object() => Ok(()),
        _ => Err(Error::InvalidInput("A place to reopen is a JSON object with a \"page\".".into())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(&dir.path().join("clawboo.db")).unwrap();
        (dir, store)
    }

    #[test]
    fn the_theme_and_the_last_place_are_kept_and_forgotten() {
        let (_dir, store) = store();
        assert_eq!(get(&store).unwrap(), WindowPreferences { theme: Theme::System, last_place: None });
        set_theme(&store, Theme::Light).unwrap();
        set_last_place(&store, Some(r#"{"page":"board","cardId":null}"#)).unwrap();
        let kept = get(&store).unwrap();
        assert_eq!(kept.theme, Theme::Light);
        assert_eq!(kept.last_place.as_deref(), Some(r#"{"page":"board","cardId":null}"#));
        set_theme(&store, Theme::System).unwrap();
        set_last_place(&store, None).unwrap();
        assert_eq!(get(&store).unwrap(), WindowPreferences { theme: Theme::System, last_place: None });
    }

    #[test]
    fn a_place_that_is_not_a_small_json_object_with_a_page_is_refused_and_loses_nothing() {
        let (_dir, store) = store();
        set_last_place(&store, Some(r#"{"page":"memory"}"#)).unwrap();
        let long = format!(r#"{{"page":"{}"}}"#, "x".repeat(MAX_PLACE_BYTES));
        for bad in ["", "not json", "[1]", r#"{"route":"home"}"#, r#"{"page":3}"#, long.as_str()] {
            let e = set_last_place(&store, Some(bad)).unwrap_err();
            assert!(matches!(e, Error::InvalidInput(_)), "{bad:.40}: {e}");
        }
        assert_eq!(get(&store).unwrap().last_place.as_deref(), Some(r#"{"page":"memory"}"#));
    }
}
