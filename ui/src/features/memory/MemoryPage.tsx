import { useState } from "react";
import type { Agent, Team } from "../../bindings";
import { FactsTab } from "./FactsTab";
import { NotesTab } from "./NotesTab";
import { ScratchTab } from "./ScratchTab";

type Tab = "facts" | "notes" | "scratch";

const TABS: { value: Tab; label: string }[] = [
  { value: "facts", label: "Facts" },
  { value: "notes", label: "Saved notes" },
  { value: "scratch", label: "Scratchpad" },
];

type Props = { teams: Team[]; agents: Agent[] };

/** What the agents remember: shared facts with their history, each agent's saved notes, and
 *  scratch notes by scope with the promotions waiting for the user. */
export function MemoryPage({ teams, agents }: Props) {
  const [tab, setTab] = useState<Tab>("facts");
  return (
    <div className="memory-page" data-testid="memory-page">
      <header className="memory-page__header">
        <h1 className="page-title">Memory</h1>
        <p className="muted">What your agents know, who told them, and which runs were given it.</p>
      </header>
      <div className="tabs" role="tablist" aria-label="Memory sections">
        {TABS.map(({ value, label }) => (
          <button
            key={value}
            type="button"
            role="tab"
            aria-selected={tab === value}
            className={`tab ${tab === value ? "is-active" : ""}`}
            onClick={() => setTab(value)}
            data-testid={`memory-tab-${value}`}
          >
            {label}
          </button>
        ))}
      </div>
      <div className="memory-page__body">
        {tab === "facts" && <FactsTab teams={teams} agents={agents} />}
        {tab === "notes" && <NotesTab agents={agents} />}
        {tab === "scratch" && <ScratchTab teams={teams} agents={agents} />}
      </div>
    </div>
  );
}
