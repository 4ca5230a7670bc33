// How memory's scopes and authors read in the Memory view, and the keys its selects use.
import type { Agent, Author, Scope, ScratchScope, Team } from "../../bindings";

/** The engine's bounds (src-tauri/memory/src/types.rs), in characters (code points). */
export const MAX_FACT_CHARS = 2_000;
export const MAX_NOTE_CHARS = 2_000;

/** "You" for the user, the agent's handle as it was when it wrote. */
export function authorLabel(author: Author): string {
  return author.kind === "user" ? "You" : `@${author.handle}`;
}

export function scopeLabel(scope: Scope | ScratchScope, teams: Team[], agents: Agent[]): string {
  switch (scope.kind) {
    case "global":
      return "Global";
    case "team":
      return `#${teams.find((t) => t.id === scope.team_id)?.name ?? "deleted team"}`;
    case "agent": {
      const agent = agents.find((a) => a.id === scope.agent_id);
      return agent ? `@${agent.handle} only` : "deleted agent";
    }
    case "session":
      return "Session";
  }
}

/** A scope as a select's value: "global", "team:<id>", "agent:<id>". */
export function scopeKey(scope: Scope): string {
  switch (scope.kind) {
    case "global":
      return "global";
    case "team":
      return `team:${scope.team_id}`;
    case "agent":
      return `agent:${scope.agent_id}`;
  }
}

export function scopeFromKey(key: string): Scope | null {
  if (key === "global") return { kind: "global" };
  if (key.startsWith("team:")) return { kind: "team", team_id: key.slice(5) };
  if (key.startsWith("agent:")) return { kind: "agent", agent_id: key.slice(6) };
  return null;
}

/** "release, deploy ,," -> ["release", "deploy"] */
export function parseTags(text: string): string[] {
  return text
    .split(",")
    .map((t) => t.trim())
    .filter((t) => t !== "");
}

export function formatTime(ms: number): string {
  return new Date(ms).toLocaleString();
}
