import { useState } from "react";
import type { Agent } from "../api";
import { runtimeLabel } from "../lib/runtimes";
import { TintDot } from "../components/TintDot";
import { AgentProfile } from "./AgentProfile";
import { AgentFilesPanel } from "./AgentFilesPanel";

type SubTab = "profile" | "files";

type Props = { agent: Agent; onDeleted: (agent: Agent) => void };

export function AgentPage({ agent, onDeleted }: Props) {
  const [subTab, setSubTab] = useState<SubTab>("profile");

  return (
    <div className="agent-page">
      <header className="agent-header">
        <TintDot tint={agent.tint} size="large" />
        <div className="agent-header__text">
          <h1 className="agent-header__name">{agent.name}</h1>
          <div className="agent-header__meta">
            <span className="agent-header__handle">@{agent.handle}</span>
            <span className="pill">{runtimeLabel(agent.runtime)}</span>
            {agent.model && <span className="pill pill--muted">{agent.model}</span>}
          </div>
          {agent.description && <p className="agent-header__description">{agent.description}</p>}
        </div>
      </header>

      <div className="tabs" role="tablist" aria-label="Agent sections">
        <button type="button" role="tab" aria-selected="true" className="tab is-active" data-testid="tab-details">
          Details
        </button>
      </div>

      <div className="subtabs" role="tablist" aria-label="Details">
        <button
          type="button"
          role="tab"
          aria-selected={subTab === "profile"}
          className={`subtab ${subTab === "profile" ? "is-active" : ""}`}
          onClick={() => setSubTab("profile")}
          data-testid="subtab-profile"
        >
          Profile
        </button>
        <button
          type="button"
          role="tab"
          aria-selected={subTab === "files"}
          className={`subtab ${subTab === "files" ? "is-active" : ""}`}
          onClick={() => setSubTab("files")}
          data-testid="subtab-files"
        >
          Agent Files
        </button>
      </div>

      <div className="agent-page__body">
        {subTab === "profile" ? (
          <AgentProfile key={agent.id} agent={agent} onDeleted={onDeleted} />
        ) : (
          <AgentFilesPanel key={agent.id} agentId={agent.id} />
        )}
      </div>
    </div>
  );
}
