import { useState } from "react";
import type { Agent, Team } from "../bindings";
import { TintDot } from "../components/TintDot";
import { UnconfinedBadge } from "../features/sandbox/UnconfinedBadge";
import { ErrorMessage } from "../components/ErrorMessage";
import { BooZeroLink, pinBooZero } from "../features/boo-zero/BooZeroLink";
import { useBooZeroId } from "../features/boo-zero/booZeroQueries";
import { MOD } from "./shortcuts";
import { CantRunBadge } from "../features/agents/CantRun";
import { SidebarNav } from "./SidebarNav";
import { UnreadMark } from "../components/UnreadMark";
import { useUnreadCounts } from "../features/chat/unread";

type Props = {
  teams: Team[] | undefined;
  teamsError: string | null;
  selectedTeamId: string | null;
  onSelectTeam: (id: string) => void;
  onNewTeam: () => void;
  agents: Agent[] | undefined;
  loading: boolean;
  error: string | null;
  selectedAgentId: string | null;
  settingsOpen: boolean;
  memoryOpen: boolean;
  boardOpen: boolean;
  routinesOpen?: boolean;
  spendOpen?: boolean;
  inboxOpen: boolean;
  homeOpen?: boolean;
  /** Open requests (the tray's count); the badge hides at 0. */
  inboxCount: number;
  onSelectAgent: (id: string) => void;
  onNewAgent: () => void;
  onOpenSettings: () => void;
  onOpenMemory: () => void;
  onOpenBoard: () => void;
  onOpenRoutines?: () => void;
  onOpenSpend?: () => void;
  onOpenInbox: () => void;
  onOpenHome?: () => void;
  /** The keyboard shortcuts sheet (also `?`). */
  onOpenShortcuts?: () => void;
  /** A narrow rail of icons instead of names (⌘/Ctrl+B toggles it). */
  collapsed?: boolean;
  onToggleCollapsed?: () => void;
};

/** The first letter of a name, for the narrow rail. */
const initial = (name: string) => [...name.trim()][0]?.toUpperCase() ?? "?";

export function Sidebar({
  teams,
  teamsError,
  selectedTeamId,
  onSelectTeam,
  onNewTeam,
  agents,
  loading,
  error,
  selectedAgentId,
  settingsOpen,
  memoryOpen,
  boardOpen,
  routinesOpen = false,
  spendOpen = false,
  inboxOpen,
  homeOpen,
  inboxCount,
  onSelectAgent,
  onNewAgent,
  onOpenSettings,
  onOpenMemory,
  onOpenBoard,
  onOpenRoutines,
  onOpenSpend,
  onOpenInbox,
  onOpenHome,
  onOpenShortcuts,
  collapsed = false,
  onToggleCollapsed,
}: Props) {
  const [showArchived, setShowArchived] = useState(false);
  const archivedCount = teams?.filter((t) => t.archived).length ?? 0;
  const shownTeams = teams?.filter((t) => showArchived || !t.archived || t.id === selectedTeamId);
  const [booZero, otherAgents] = pinBooZero(agents, useBooZeroId());
  // The open chat or team reads itself: no mark there.
  const unread = useUnreadCounts();

  return (
    <nav className={`sidebar ${collapsed ? "is-collapsed" : ""}`} aria-label="Teams and agents" data-testid="sidebar">
      <div className="sidebar__brand">
        <span className="sidebar__logo" aria-hidden="true">
          ◆
        </span>
        <span className="sidebar__label">Clawboo</span>
        {onToggleCollapsed && (
          <button
            type="button"
            className="sidebar__collapse"
            onClick={onToggleCollapsed}
            aria-expanded={!collapsed}
            aria-label={collapsed ? "Show the sidebar's names" : "Narrow the sidebar to icons"}
            title={`${collapsed ? "Widen" : "Narrow"} the sidebar (${MOD}+B)`}
            data-testid="sidebar-toggle"
          >
            <span aria-hidden="true">{collapsed ? "»" : "«"}</span>
          </button>
        )}
      </div>
      {booZero && <BooZeroLink agent={booZero} active={booZero.id === selectedAgentId} onSelect={onSelectAgent} />}

      <div className="sidebar__section-header">
        <span className="sidebar__label">Teams</span>
        <button
          type="button"
          className="button button--primary button--small"
          onClick={onNewTeam}
          aria-label="New team"
          title={collapsed ? "New team" : undefined}
          data-testid="new-team-button"
        >
          +<span className="sidebar__label"> New team</span>
        </button>
      </div>

      <ul className="sidebar__list sidebar__list--teams" data-testid="team-list">
        {teams?.length === 0 && <li className="sidebar__hint">No teams yet.</li>}
        {shownTeams?.map((team) => (
          <li key={team.id}>
            <button
              type="button"
              className={`agent-item ${team.id === selectedTeamId ? "is-active" : ""} ${team.archived ? "is-archived" : ""}`}
              aria-current={team.id === selectedTeamId ? "page" : undefined}
              onClick={() => onSelectTeam(team.id)}
              title={collapsed ? team.name : undefined}
              data-testid={`team-item-${team.name}`}
            >
              <span className="team-item__icon" aria-hidden="true">
                {collapsed ? initial(team.name) : "#"}
              </span>
              <span className="agent-item__text">
                <span className="agent-item__name">{team.name}</span>
                <span className="agent-item__handle">
                  {team.members.length} {team.members.length === 1 ? "member" : "members"}
                  {team.archived ? " · archived" : ""}
                </span>
              </span>
              {team.id !== selectedTeamId && (
                <UnreadMark count={unread.byTeam.get(team.id)} what={`in ${team.name}`} testId={`unread-team-${team.name}`} />
              )}
            </button>
          </li>
        ))}
        {archivedCount > 0 && (
          <li>
            <label className="sidebar__toggle">
              <input
                type="checkbox"
                checked={showArchived}
                onChange={(e) => setShowArchived(e.target.checked)}
                data-testid="show-archived-teams"
              />
              Show archived ({archivedCount})
            </label>
          </li>
        )}
      </ul>
      <ErrorMessage message={teamsError} className="sidebar__error" />

      <div className="sidebar__section-header">
        <span className="sidebar__label">Agents</span>
        <button
          type="button"
          className="button button--primary button--small"
          onClick={onNewAgent}
          aria-label="New agent"
          title={collapsed ? "New agent" : undefined}
          data-testid="new-agent-button"
        >
          +<span className="sidebar__label"> New agent</span>
        </button>
      </div>

      <ul className="sidebar__list">
        {loading && <li className="sidebar__hint">Loading…</li>}
        {!loading && otherAgents?.length === 0 && <li className="sidebar__hint">No agents yet.</li>}
        {otherAgents?.map((agent) => (
          <li key={agent.id}>
            <button
              type="button"
              className={`agent-item ${agent.id === selectedAgentId ? "is-active" : ""}`}
              aria-current={agent.id === selectedAgentId ? "page" : undefined}
              onClick={() => onSelectAgent(agent.id)}
              title={collapsed ? `${agent.name} @${agent.handle}` : undefined}
              data-testid={`agent-item-${agent.handle}`}
            >
              {collapsed ? (
                <span className="agent-item__initial" style={{ borderColor: agent.tint }} aria-hidden="true">
                  {initial(agent.name)}
                </span>
              ) : (
                <TintDot tint={agent.tint} />
              )}
              <span className="agent-item__text">
                <span className="agent-item__name">{agent.name}</span>
                <span className="agent-item__handle">@{agent.handle}</span>
              </span>
              <UnconfinedBadge agent={agent} className="agent-item__badge" />
              <CantRunBadge agent={agent} className="agent-item__badge" />
              {agent.id !== selectedAgentId && (
                <UnreadMark
                  count={unread.byAgent.get(agent.id)}
                  what={`from ${agent.name}`}
                  testId={`unread-agent-${agent.handle}`}
                />
              )}
            </button>
          </li>
        ))}
      </ul>
      <ErrorMessage message={error} className="sidebar__error" />
      <SidebarNav
        collapsed={collapsed}
        settingsOpen={settingsOpen}
        memoryOpen={memoryOpen}
        boardOpen={boardOpen}
        routinesOpen={routinesOpen}
        spendOpen={spendOpen}
        inboxOpen={inboxOpen}
        homeOpen={homeOpen}
        inboxCount={inboxCount}
        onOpenSettings={onOpenSettings}
        onOpenMemory={onOpenMemory}
        onOpenBoard={onOpenBoard}
        onOpenRoutines={onOpenRoutines}
        onOpenSpend={onOpenSpend}
        onOpenInbox={onOpenInbox}
        onOpenHome={onOpenHome}
        onOpenShortcuts={onOpenShortcuts}
      />
    </nav>
  );
}
