import { useState } from "react";
import type { Agent } from "../../bindings";
import { runtimeLabel } from "../../lib/runtimes";
import { TintDot } from "../../components/TintDot";
import { AgentChat } from "../chat/AgentChat";
import { AgentProfile } from "./AgentProfile";
import { AgentFilesPanel } from "../agent-files/AgentFilesPanel";
import { BooZeroBrief, BooZeroRules } from "../boo-zero/BooZeroDetails";
import { useBooZeroId } from "../boo-zero/booZeroQueries";
import { UnconfinedBadge } from "../sandbox/UnconfinedBadge";
import { CantRunBadge } from "./CantRun";
import { ExportMenu } from "../search/ExportMenu";
import { ScopeSpend } from "../spend/ScopeSpend";

export type AgentTab = "chat" | "details";
type SubTab = "profile" | "files" | "brief" | "rules";

type Props = {
  agent: Agent;
  tab: AgentTab;
  onTab: (tab: AgentTab) => void;
  onDeleted: (agent: Agent) => void;
  /** The chat to open (a search result); the chat shown is reported through `onChat`. */
  chatId?: string | null;
  onChat?: (chatId: string) => void;
};

/** An agent: its chat, or its details. The tab is the app's route (opening an agent starts on
 *  Chat), so the app knows when the window shows the chat. */
export function AgentPage({ agent, tab, onTab, onDeleted, chatId, onChat }: Props) {
  // The chat shown, which Export saves.
  const [openChat, setOpenChat] = useState<string | null>(null);
  const [subTab, setSubTab] = useState<SubTab>("profile");
  // Set when a link opens the profile's Sandbox section; any other tab choice clears it.
  const [sandboxFocus, setSandboxFocus] = useState(0);
  const setTab = (value: AgentTab) => {
    setSandboxFocus(0);
    onTab(value);
  };
  const openSandbox = () => {
    setSubTab("profile");
    setSandboxFocus(Date.now());
    onTab("details");
  };
  const isBooZero = useBooZeroId() === agent.id;
  // Brief and Rules are Boo Zero's alone: another agent's page shows its profile instead.
  const shownSubTab = !isBooZero && (subTab === "brief" || subTab === "rules") ? "profile" : subTab;

  const tabButton = (value: AgentTab, label: string) => (
    <button
      type="button"
      role="tab"
      aria-selected={tab === value}
      className={`tab ${tab === value ? "is-active" : ""}`}
      onClick={() => setTab(value)}
      data-testid={`tab-${value}`}
    >
      {label}
    </button>
  );

  const subTabButton = (value: SubTab, label: string) => (
    <button
      type="button"
      role="tab"
      aria-selected={shownSubTab === value}
      className={`subtab ${shownSubTab === value ? "is-active" : ""}`}
      onClick={() => {
        setSandboxFocus(0);
        setSubTab(value);
      }}
      data-testid={`subtab-${value}`}
    >
      {label}
    </button>
  );

  return (
    <div className="agent-page">
      <header className="agent-header">
        <TintDot tint={agent.tint} size="large" />
        <div className="agent-header__text">
          <h1 className="agent-header__name">
            {agent.name}
            {isBooZero && (
              <span className="pill boo-zero-badge" data-testid="boo-zero-badge">
                ✦ Your coordinator
              </span>
            )}
            <UnconfinedBadge agent={agent} />
            <CantRunBadge agent={agent} />
          </h1>
          <div className="agent-header__meta">
            <span className="agent-header__handle">@{agent.handle}</span>
            <span className="pill">{runtimeLabel(agent.runtime)}</span>
            {agent.model && <span className="pill pill--muted">{agent.model}</span>}
          </div>
          {agent.description && <p className="agent-header__description">{agent.description}</p>}
          <ScopeSpend scope={{ kind: "agent", id: agent.id }} testId="agent-spend" />
        </div>
      </header>

      <div className="tabs" role="tablist" aria-label="Agent sections">
        {tabButton("chat", "Chat")}
        {tabButton("details", "Details")}
        {tab === "chat" && (
          <ExportMenu
            target={openChat ? { kind: "chat", id: openChat } : { kind: "agent_chat", agentId: agent.id }}
            testId="chat-export"
          />
        )}
      </div>

      {tab === "chat" ? (
        <div className="agent-page__body agent-page__body--chat">
          <AgentChat
            key={agent.id}
            agent={agent}
            onOpenSandbox={openSandbox}
            chatId={chatId}
            onChat={(id) => {
              setOpenChat(id);
              onChat?.(id);
            }}
          />
        </div>
      ) : (
        <>
          <div className="subtabs" role="tablist" aria-label="Details">
            {subTabButton("profile", "Profile")}
            {subTabButton("files", "Agent Files")}
            {isBooZero && subTabButton("brief", "Brief")}
            {isBooZero && subTabButton("rules", "Rules")}
          </div>

          <div className="agent-page__body">
            {shownSubTab === "profile" && (
              <AgentProfile
                key={agent.id}
                agent={agent}
                onDeleted={onDeleted}
                isBooZero={isBooZero}
                sandboxFocus={sandboxFocus}
              />
            )}
            {shownSubTab === "files" && <AgentFilesPanel key={agent.id} agentId={agent.id} runtime={agent.runtime} />}
            {shownSubTab === "brief" && <BooZeroBrief />}
            {shownSubTab === "rules" && <BooZeroRules />}
          </div>
        </>
      )}
    </div>
  );
}
