import type { Agent, BoardColumn, Card, CardStatus, Team } from "../../bindings";
import { UnconfinedBadge } from "../sandbox/UnconfinedBadge";
import { priorityLabel } from "./board";

/** The opened card's status, priority, assignee, team and origin, with its moves, Edit and Delete. */
export function CardMeta({
  card,
  columns,
  agents,
  assignee,
  team,
  editing,
  onMove,
  onEdit,
  onDelete,
}: {
  card: Card;
  columns: BoardColumn[];
  agents: Agent[];
  assignee: Agent | undefined;
  team: Team | undefined;
  editing: boolean;
  onMove: (card: Card, to: CardStatus) => void;
  onEdit: () => void;
  onDelete: () => void;
}) {
  const column = columns.find((c) => c.status === card.status);
  const fromAgentId = card.origin.kind === "handoff" ? card.origin.from_agent_id : null;
  return (
    <div className="card-panel__meta">
      <span className={`pill status-pill status-${card.status}`} data-testid="card-status">
        {column?.label ?? card.status}
      </span>
      <span className="pill pill--muted">{priorityLabel(card.priority)}</span>
      <span>{assignee ? `@${assignee.handle}` : "Unassigned"}</span>
      <UnconfinedBadge agent={assignee} />
      {team && <span className="muted">{team.name}</span>}
      {card.origin.kind === "handoff" && (
        <span className="muted">
          Handed off by @{agents.find((a) => a.id === fromAgentId)?.handle ?? "a deleted agent"}
        </span>
      )}
      {card.origin.kind === "api" && (
        <span className="muted" data-testid="card-origin-api">
          Started through the local API
        </span>
      )}
      {card.origin.kind === "routine" && (
        <span className="muted" data-testid="card-origin-routine">
          A routine's run
        </span>
      )}
      <span className="card-panel__actions">
        {(column?.allowedMoves ?? []).map((to) => (
          <button
            key={to}
            type="button"
            className="button button--small"
            onClick={() => onMove(card, to)}
            data-testid={`card-panel-move-${to}`}
          >
            {columns.find((c) => c.status === to)?.label ?? to}
          </button>
        ))}
        {!editing && (
          <button type="button" className="button button--small" onClick={onEdit} data-testid="card-edit">
            Edit
          </button>
        )}
        <button
          type="button"
          className="button button--small button--danger"
          onClick={onDelete}
          data-testid="card-delete"
        >
          Delete
        </button>
      </span>
    </div>
  );
}
