import type { Agent, BoardColumn, CardFilter, Team } from "../../bindings";

/** The Board's filters (team, agent, column) and New card. */
export function BoardFilters({
  filter,
  teams,
  agents,
  columns,
  onChange,
  onNew,
}: {
  filter: CardFilter;
  teams: Team[];
  agents: Agent[];
  columns: BoardColumn[];
  onChange: (filter: CardFilter) => void;
  onNew: () => void;
}) {
  const setField = (field: keyof CardFilter, value: string) =>
    onChange({ ...filter, [field]: value === "" ? null : value });
  return (
  <div className="board-page__filters">
    <select
      aria-label="Team"
      value={filter.teamId ?? ""}
      onChange={(e) => setField("teamId", e.target.value)}
      data-testid="board-filter-team"
    >
      <option value="">All teams</option>
      {teams.map((t) => (
        <option key={t.id} value={t.id}>
          {t.name}
        </option>
      ))}
    </select>
    <select
      aria-label="Agent"
      value={filter.assigneeId ?? ""}
      onChange={(e) => setField("assigneeId", e.target.value)}
      data-testid="board-filter-agent"
    >
      <option value="">All agents</option>
      {agents.map((a) => (
        <option key={a.id} value={a.id}>
          @{a.handle}
        </option>
      ))}
    </select>
    <select
      aria-label="Status"
      value={filter.status ?? ""}
      onChange={(e) => setField("status", e.target.value)}
      data-testid="board-filter-status"
    >
      <option value="">All columns</option>
      {columns.map((c) => (
        <option key={c.status} value={c.status}>
          {c.label}
        </option>
      ))}
    </select>
    <button
      type="button"
      className="button button--primary"
      onClick={onNew}
      data-testid="board-new-card"
    >
      New card
    </button>
  </div>
  );
}
