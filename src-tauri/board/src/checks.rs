//! Checks of what the user or an agent sends (texts, sizes, moves), each refusal a message the
//! reader can act on. Texts are refused over their limits, never cut, except where Clawboo
//! itself makes a text (a hand-off's title, a run's failure as a blocked reason), which is cut
//! visibly with `…`.

use std::path::Path;

use super::types::*;
use clawboo_vocab::error::{Error, Result};

/// A title: one line, not empty, at most [`MAX_TITLE_CHARS`]; trimmed.
pub fn title(text: &str) -> Result<String> {
    let text = text.trim();
    if text.is_empty() {
        return Err(Error::InvalidInput("A card needs a title.".into()));
    }
    if text.contains(['\n', '\r']) {
        return Err(Error::InvalidInput("A card's title is one line; put the rest in its description.".into()));
    }
    at_most("The title", text, MAX_TITLE_CHARS)?;
    Ok(text.to_owned())
}

/// A description: may be empty, at most [`MAX_DESCRIPTION_CHARS`]; trailing space trimmed.
pub fn description(text: &str) -> Result<String> {
    let text = text.trim_end();
    at_most("The description", text, MAX_DESCRIPTION_CHARS)?;
    Ok(text.to_owned())
}

/// A comment: not empty, at most [`MAX_COMMENT_CHARS`]; trimmed.
pub fn comment(text: &str) -> Result<String> {
    let text = text.trim();
    if text.is_empty() {
        return Err(Error::InvalidInput("The comment is empty.".into()));
    }
    at_most("A comment", text, MAX_COMMENT_CHARS)?;
    Ok(text.to_owned())
}

/// An optional check command: blank is none.
pub fn check_command(text: Option<&str>) -> Result<Option<String>> {
    let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else { return Ok(None) };
    at_most("The check command", text, MAX_CHECK_COMMAND_CHARS)?;
    Ok(Some(text.to_owned()))
}

/// An optional project folder: blank is none; otherwise an absolute path (runs work there, so
/// it must not depend on where Clawboo was started). Whether it exists is the runner's check.
pub fn project_folder(text: Option<&str>) -> Result<Option<String>> {
    let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else { return Ok(None) };
    at_most("The project folder", text, MAX_FOLDER_CHARS)?;
    if !Path::new(text).is_absolute() {
        return Err(Error::InvalidInput(format!("The project folder must be a full path, not “{text}”.")));
    }
    Ok(Some(text.to_owned()))
}

/// Why a card moves: blank is none; at most [`MAX_REASON_CHARS`].
pub fn reason(text: Option<&str>) -> Result<Option<String>> {
    let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else { return Ok(None) };
    at_most("The reason", text, MAX_REASON_CHARS)?;
    Ok(Some(text.to_owned()))
}

/// Ids of the cards a card depends on: trimmed, each once (the first place kept), at most
/// [`MAX_DEPENDENCIES`].
pub fn dependencies(ids: &[String]) -> Result<Vec<String>> {
    let mut list: Vec<String> = Vec::with_capacity(ids.len());
    for id in ids.iter().map(|id| id.trim()).filter(|id| !id.is_empty()) {
        if !list.iter().any(|seen| seen == id) {
            list.push(id.to_owned());
        }
    }
    if list.len() > MAX_DEPENDENCIES {
        return Err(Error::InvalidInput(format!(
            "A card can wait on at most {MAX_DEPENDENCIES} others, not {}.",
            list.len()
        )));
    }
    Ok(list)
}

/// A position within a column: any finite number.
pub fn position(position: Option<f64>) -> Result<Option<f64>> {
    match position {
        Some(p) if !p.is_finite() => Err(Error::InvalidInput("A card's position must be a finite number.".into())),
        other => Ok(other),
    }
}

/// Whether `from → to` is in the table of allowed moves; if not, why, naming both columns as
/// the user reads them.
pub fn transition(number: u32, from: CardStatus, to: CardStatus) -> Result<()> {
    if from.can_move_to(to) {
        return Ok(());
    }
    let message = if to == CardStatus::InProgress {
        format!(
            "#{number} cannot be moved to In progress: a card goes there when a run picks it up (it is in {}).",
            from.label()
        )
    } else if from == CardStatus::Done {
        format!("#{number} is in Done, which can only go to To do; reopen it first, then move it to {}.", to.label())
    } else if from == CardStatus::InProgress {
        format!("#{number} is in progress; it can go to {}, not to {}.", choices(from), to.label())
    } else {
        format!("A card in {} can only go to {}, not to {} (#{number}).", from.label(), choices(from), to.label())
    };
    Err(Error::InvalidInput(message))
}

/// "To do, Blocked or Cancelled".
fn choices(from: CardStatus) -> String {
    let labels: Vec<&str> = from.allowed_moves().iter().map(|s| s.label()).collect();
    match labels.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => "nowhere".to_owned(),
    }
}

/// A hand-off's card title: the task's first non-blank line, cut to [`MAX_TITLE_CHARS`].
pub fn title_from_task(task: &str) -> String {
    let line = task.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("Hand-off");
    cut(line, MAX_TITLE_CHARS)
}

/// `text` if it has at most `max` chars, else its first `max - 1` chars and `…`.
pub fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut kept: String = text.chars().take(max.saturating_sub(1)).collect();
    kept.truncate(kept.trim_end().len());
    kept.push('…');
    kept
}

fn at_most(what: &str, text: &str, max: usize) -> Result<()> {
    let chars = text.chars().count();
    if chars > max {
        return Err(Error::InvalidInput(format!("{what} is {chars} characters; at most {max} are allowed.")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_one_trimmed_line_within_the_limit() {
        assert_eq!(title("  Ship it ").unwrap(), "Ship it");
        assert!(title(" ").is_err());
        assert!(title("a\nb").unwrap_err().to_string().contains("one line"));
        assert!(title(&"é".repeat(MAX_TITLE_CHARS)).is_ok());
        assert!(title(&"é".repeat(MAX_TITLE_CHARS + 1)).unwrap_err().to_string().contains("201 characters"));
    }

    #[test]
    fn a_task_title_is_its_first_line_cut_at_a_char_boundary() {
        assert_eq!(title_from_task("\n  Research the market \nthen more"), "Research the market");
        let long = "é".repeat(MAX_TITLE_CHARS + 5);
        let cut = title_from_task(&long);
        assert_eq!(cut.chars().count(), MAX_TITLE_CHARS);
        assert!(cut.ends_with('…'));
        assert_eq!(title_from_task(&"é".repeat(MAX_TITLE_CHARS)), "é".repeat(MAX_TITLE_CHARS), "not cut at the limit");
        assert_eq!(title_from_task("   "), "Hand-off");
    }

    #[test]
    fn refused_moves_name_both_columns() {
        let err = transition(3, CardStatus::Done, CardStatus::InReview).unwrap_err().to_string();
        assert!(err.contains("Done") && err.contains("In review") && err.contains("reopen"), "{err}");
        let err = transition(3, CardStatus::Backlog, CardStatus::Done).unwrap_err().to_string();
        assert_eq!(err, "A card in Backlog can only go to To do or Cancelled, not to Done (#3).");
        let err = transition(3, CardStatus::Todo, CardStatus::InProgress).unwrap_err().to_string();
        assert!(err.contains("when a run picks it up"), "{err}");
        assert!(transition(3, CardStatus::Todo, CardStatus::Blocked).is_ok());
    }

    #[test]
    fn dependencies_are_kept_once_in_order() {
        let ids = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(dependencies(&ids(&["b", " a", "b", ""])).unwrap(), ids(&["b", "a"]));
        let many: Vec<String> = (0..=MAX_DEPENDENCIES).map(|i| i.to_string()).collect();
        assert!(dependencies(&many).is_err());
    }

    #[test]
    fn folders_are_absolute_and_blank_is_none() {
        assert_eq!(project_folder(Some("  ")).unwrap(), None);
        assert!(project_folder(Some("relative/dir")).is_err());
        let abs = if cfg!(windows) { r"C:\work" } else { "/work" };
        assert_eq!(project_folder(Some(abs)).unwrap().as_deref(), Some(abs));
    }
}
