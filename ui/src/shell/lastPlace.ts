// Where the window was: the route it showed last, kept by the engine (`setLastPlace`), so Clawboo
// opens there again. Only places that make sense to reopen are kept; one whose agent, team or
// room is gone opens Home instead.
import type { Agent, Team } from "../bindings";
import type { Route } from "./route";
import type { AgentTab } from "../features/agents/AgentPage";

const AGENT_TABS: readonly AgentTab[] = ["chat", "details"];

/** What is kept of a route: `null` for Home, first run and anything not worth reopening. */
export function placeOf(route: Route): string | null {
  switch (route.page) {
    case "agent":
      return JSON.stringify({ page: "agent", agentId: route.agentId, tab: route.tab });
    case "team":
      return JSON.stringify({ page: "team", teamId: route.teamId, roomId: route.roomId });
    case "board":
      return JSON.stringify({ page: "board", cardId: null });
    case "memory":
    case "routines":
    case "spend":
    case "settings":
      return JSON.stringify({ page: route.page });
    case "inbox":
      return JSON.stringify({ page: "inbox" });
    default:
      return null;
  }
}

/** The route to reopen from a kept place, if it still leads somewhere. */
export function routeOf(place: string | null, agents: Agent[], teams: Team[]): Route | null {
  if (!place) return null;
  let value: Record<string, unknown>;
  try {
    value = JSON.parse(place) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  switch (value.page) {
    case "agent": {
      const agent = agents.find((a) => a.id === value.agentId);
      const tab = AGENT_TABS.find((t) => t === value.tab) ?? "chat";
      return agent ? { page: "agent", agentId: agent.id, tab } : null;
    }
    case "team": {
      const team = teams.find((t) => t.id === value.teamId);
      return team ? { page: "team", teamId: team.id, roomId: typeof value.roomId === "string" ? value.roomId : null } : null;
    }
    case "board":
      return { page: "board", cardId: null };
    case "memory":
    case "routines":
    case "spend":
    case "settings":
      return { page: value.page };
    case "inbox":
      return { page: "inbox", focus: null };
    default:
      return null;
  }
}
