import type { Agent } from "../api";
import { TintDot } from "./TintDot";
import { ErrorMessage } from "./ErrorMessage";

type Props = {
  agents: Agent[] | undefined;
  loading: boolean;
  error: string | null;
  selectedAgentId: string | null;
  settingsOpen: boolean;
  onSelectAgent: (id: string) => void;
  onNewAgent: () => void;
  onOpenSettings: () => void;
};

export function Sidebar({
  agents,
  loading,
  error,
  selectedAgentId,
  settingsOpen,
  onSelectAgent,
  onNewAgent,
  onOpenSettings,
}: Props) {
  return (
    <nav className="sidebar" aria-label="Agents">
      <div className="sidebar__brand">
        <span className="sidebar__logo" aria-hidden="true">
          ◆
        </span>
        Clawboo
      </div>

      <div className="sidebar__section-header">
        <span>Agents</span>
        <button
          type="button"
          className="button button--primary button--small"
          onClick={onNewAgent}
          data-testid="new-agent-button"
        >
          + New agent
        </button>
      </div>

      <ul className="sidebar__list">
        {loading && <li className="sidebar__hint">Loading…</li>}
        {!loading && agents?.length === 0 && <li className="sidebar__hint">No agents yet.</li>}
        {agents?.map((agent) => (
          <li key={agent.id}>
            <button
              type="button"
              className={`agent-item ${agent.id === selectedAgentId ? "is-active" : ""}`}
              aria-current={agent.id === selectedAgentId ? "page" : undefined}
              onClick={() => onSelectAgent(agent.id)}
              data-testid={`agent-item-${agent.handle}`}
            >
              <TintDot tint={agent.tint} />
              <span className="agent-item__text">
                <span className="agent-item__name">{agent.name}</span>
                <span className="agent-item__handle">@{agent.handle}</span>
              </span>
            </button>
          </li>
        ))}
      </ul>
      <ErrorMessage message={error} className="sidebar__error" />

      <button
        type="button"
        className={`sidebar__settings ${settingsOpen ? "is-active" : ""}`}
        aria-current={settingsOpen ? "page" : undefined}
        onClick={onOpenSettings}
        data-testid="settings-link"
      >
        <span aria-hidden="true">⚙</span> Settings
      </button>
    </nav>
  );
}
