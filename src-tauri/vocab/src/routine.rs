//! What other modules say about a routine's work.

/// Tells the team chat which routine run a message belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoutineTag {
    pub name: String,
    pub routine_run_id: String,
    /// The agent that ran it, when a member did (a team's own routine is run by the leader).
    pub agent_id: Option<String>,
    /// The card it ran on, when it had one.
    pub card_id: Option<String>,
}
