//! What other modules say about a routine's work.

/// Tells the team chat which routine run a message belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoutineTag {
    pub name: String,
    pub routine_run_id: String,
}
