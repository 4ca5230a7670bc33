//! Dependencies never form a cycle: a card that waited on itself, directly or through others,
//! could never start. Checked on every save with a breadth-first walk over the stored edges, so
//! the refusal names the shortest cycle.

use std::collections::{HashMap, VecDeque};

use rusqlite::Connection;

use super::store;
use clawboo_vocab::error::{Error, Result};

/// Refuses `card_id` depending on `new` when that closes a cycle, naming it: "#3 → #5 → #3".
pub fn check_no_cycle(conn: &Connection, card_id: &str, new: &[String]) -> Result<()> {
    // Where the walk reached each card from; the walk starts at the card's new dependencies.
    let mut came_from: HashMap<String, String> = HashMap::new();
    let mut queue: VecDeque<String> = VecDeque::new();
    for dependency in new {
        if dependency == card_id {
            return Err(cycle(conn, &[card_id.to_owned(), card_id.to_owned()]));
        }
        if !came_from.contains_key(dependency) {
            came_from.insert(dependency.clone(), card_id.to_owned());
            queue.push_back(dependency.clone());
        }
    }
    while let Some(current) = queue.pop_front() {
        for next in store::depends_on(conn, &current)? {
            if next == card_id {
                let mut path = vec![current.clone()];
                while let Some(previous) = came_from.get(path.last().expect("path starts non-empty")) {
                    path.push(previous.clone());
                    if previous == card_id {
                        break;
                    }
                }
                path.reverse();
                path.push(card_id.to_owned());
                return Err(cycle(conn, &path));
            }
            if !came_from.contains_key(&next) {
                came_from.insert(next.clone(), current.clone());
                queue.push_back(next);
            }
        }
    }
    Ok(())
}

fn cycle(conn: &Connection, path: &[String]) -> Error {
    let names: Vec<String> = path
        .iter()
        .map(|id| match store::number(conn, id) {
            Ok(Some(n)) => format!("#{n}"),
            _ => id.clone(),
        })
        .collect();
    Error::InvalidInput(format!(
        "A card cannot wait on itself, even through others: {}. Remove one of these dependencies.",
        names.join(" → ")
    ))
}
