import type { Agent } from "../../bindings";
import { TintDot } from "../../components/TintDot";
import { UnconfinedBadge } from "../sandbox/UnconfinedBadge";

type Props = {
  /** Who may be picked (all agents for a team, the team's members for a room). */
  candidates: Agent[];
  /** Picked agent ids, in the order they were picked (the first leads unless another is chosen). */
  selected: string[];
  onSelected: (ids: string[]) => void;
  leaderId: string | null;
  onLeader: (id: string) => void;
  /** Per-member roles, edited in place when given. */
  roles?: Record<string, string>;
  onRole?: (agentId: string, role: string) => void;
  disabled?: boolean;
  testIdPrefix: string;
};

/** The leader actually in effect: the chosen one if picked, else the first picked. */
export function effectiveLeader(selected: string[], leaderId: string | null): string | null {
  return leaderId && selected.includes(leaderId) ? leaderId : selected[0] ?? null;
}

/** Checkboxes to pick members, a radio to pick the leader among them, and optional roles. */
export function MemberPicker({
  candidates,
  selected,
  onSelected,
  leaderId,
  onLeader,
  roles,
  onRole,
  disabled,
  testIdPrefix,
}: Props) {
  const leader = effectiveLeader(selected, leaderId);
  const toggle = (id: string, on: boolean) =>
    onSelected(on ? [...selected.filter((s) => s !== id), id] : selected.filter((s) => s !== id));

  if (candidates.length === 0) {
    return <p className="field__hint">No agents yet. Create agents first, then put them in a team.</p>;
  }

  return (
    <ul className="member-picker" data-testid={`${testIdPrefix}-members`}>
      {candidates.map((agent) => {
        const picked = selected.includes(agent.id);
        return (
          <li key={agent.id} className={`member-picker__row ${picked ? "is-picked" : ""}`}>
            <label className="member-picker__who">
              <input
                type="checkbox"
                checked={picked}
                disabled={disabled}
                onChange={(e) => toggle(agent.id, e.target.checked)}
                data-testid={`${testIdPrefix}-member-${agent.handle}`}
              />
              <TintDot tint={agent.tint} />
              <span className="member-picker__name">{agent.name}</span>
              <span className="member-picker__handle">@{agent.handle}</span>
              <UnconfinedBadge agent={agent} />
            </label>
            {picked && roles && onRole && (
              <input
                type="text"
                className="member-picker__role"
                value={roles[agent.id] ?? ""}
                placeholder="Role (optional)"
                maxLength={200}
                disabled={disabled}
                aria-label={`Role of @${agent.handle}`}
                onChange={(e) => onRole(agent.id, e.target.value)}
                data-testid={`${testIdPrefix}-role-${agent.handle}`}
              />
            )}
            {picked && (
              <label className="member-picker__leader">
                <input
                  type="radio"
                  name={`${testIdPrefix}-leader`}
                  checked={leader === agent.id}
                  disabled={disabled}
                  onChange={() => onLeader(agent.id)}
                  data-testid={`${testIdPrefix}-leader-${agent.handle}`}
                />
                Leader
              </label>
            )}
          </li>
        );
      })}
    </ul>
  );
}
