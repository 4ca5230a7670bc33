import { useState } from "react";
import type { Agent, Team } from "../../bindings";
import { useRenameTeam, useSetTeamArchived } from "./teamQueries";
import { errorMessage } from "../../errors";
import { TintDot } from "../../components/TintDot";
import { UnconfinedBadge } from "../sandbox/UnconfinedBadge";
import { GatewayHealthBadge } from "../agents/GatewayHealthBadge";
import { Menu } from "../../components/Menu";
import { ErrorMessage } from "../../components/ErrorMessage";
import { MAX_TEAM_NAME_CHARS } from "./limits";
import { ScopeSpend } from "../spend/ScopeSpend";

/** A team's name (double-click or the menu renames it), its actions, its members and what it spent. */
export function TeamHeader({
  team,
  byId,
  onOpenBrief,
  onOpenMembers,
  onDelete,
}: {
  team: Team;
  byId: Map<string, Agent>;
  onOpenBrief: () => void;
  onOpenMembers: () => void;
  onDelete: () => void;
}) {
  const [renaming, setRenaming] = useState<string | null>(null);
  const rename = useRenameTeam();
  const archive = useSetTeamArchived();

  const saveName = () => {
    if (renaming === null) return;
    if (renaming.trim() === team.name) return setRenaming(null);
    rename.mutate({ id: team.id, name: renaming }, { onSuccess: () => setRenaming(null) });
  };

  const teamMenu = [
    { label: "Rename", onSelect: () => setRenaming(team.name), testId: "team-rename" },
    { label: "Members…", onSelect: onOpenMembers, testId: "team-members-menu" },
    {
      label: team.archived ? "Unarchive" : "Archive",
      onSelect: () => archive.mutate({ id: team.id, archived: !team.archived }),
      testId: "team-archive",
    },
    { label: "Delete team…", onSelect: onDelete, danger: true, testId: "team-delete" },
  ];

  return (
    <header className="team-header">
      <div className="team-header__title">
        {renaming === null ? (
          <h1 className="team-header__name" onDoubleClick={() => setRenaming(team.name)} data-testid="team-name">
            {team.name}
          </h1>
        ) : (
          <form
            className="team-header__rename"
            onSubmit={(e) => {
              e.preventDefault();
              saveName();
            }}
          >
            <input
              autoFocus
              value={renaming}
              maxLength={MAX_TEAM_NAME_CHARS}
              onChange={(e) => {
                setRenaming(e.target.value);
                rename.reset();
              }}
              onKeyDown={(e) => {
                if (e.key === "Escape") setRenaming(null);
              }}
              aria-label="Team name"
              data-testid="team-name-edit"
            />
            <button type="submit" className="button button--small button--primary" disabled={rename.isPending}>
              Save
            </button>
            <button type="button" className="button button--small" onClick={() => setRenaming(null)}>
              Cancel
            </button>
          </form>
        )}
        {team.archived && <span className="pill pill--muted">Archived</span>}
        <div className="team-header__actions">
          <button
            type="button"
            className="button button--small"
            onClick={onOpenBrief}
            data-testid="team-brief-button"
          >
            Team brief &amp; rules
          </button>
          <button
            type="button"
            className="button button--small"
            onClick={onOpenMembers}
            data-testid="team-members-button"
          >
            Members
          </button>
          <Menu label="Team actions" items={teamMenu} testId="team-menu" />
        </div>
      </div>
      <ErrorMessage message={rename.error ? errorMessage(rename.error) : null} />
      <ErrorMessage message={archive.error ? errorMessage(archive.error) : null} />
      <ul className="team-members" aria-label="Members" data-testid="team-member-list">
        {team.members.length === 0 && (
          <li className="muted">No members: every agent of this team was deleted. Add members to chat.</li>
        )}
        {team.members.map((m) => {
          const agent = byId.get(m.agentId);
          return (
            <li key={m.agentId} className="team-member" title={m.role || undefined}>
              <TintDot tint={agent?.tint ?? "#888888"} />
              <span className="team-member__handle">@{agent?.handle ?? "unknown"}</span>
              <UnconfinedBadge agent={agent} />
              <GatewayHealthBadge agentId={m.agentId} variant="member" />
              {m.agentId === team.leaderId && (
                <span className="pill team-member__leader" data-testid="leader-badge">
                  leader
                </span>
              )}
              {m.role && <span className="team-member__role">{m.role}</span>}
            </li>
          );
        })}
      </ul>
      <ScopeSpend scope={{ kind: "team", id: team.id }} testId="team-spend" />
    </header>
  );
}
