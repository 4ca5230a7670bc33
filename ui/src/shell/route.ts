// Where the app is: the page the main area shows (the app's own routing, kept in state).
import type { AttentionRequest } from "../bindings";
import type { AgentTab } from "../features/agents/AgentPage";
import type { InboxFocus } from "../features/inbox/RequestList";

export type Route =
  | { page: "home" }
  | { page: "onboarding" }
  /** `chatId`: the chat to open (none: the one last open). */
  | { page: "agent"; agentId: string; tab: AgentTab; chatId?: string | null }
  | { page: "team"; teamId: string; roomId: string | null }
  /** `from`: opened from the first-run page, which it offers to go back to. */
  | { page: "settings"; section?: "keys" | "limits"; from?: "onboarding" }
  | { page: "memory" }
  | { page: "routines" }
  | { page: "spend" }
  | { page: "board"; cardId: string | null }
  | { page: "inbox"; focus: InboxFocus | null };

export /** Where a request came from: its team's room, its agent's chat, or its card on the Board. */
function sourceRoute(request: AttentionRequest): Route {
  if (request.origin === "team" && request.teamId) return { page: "team", teamId: request.teamId, roomId: request.roomId };
  if (request.origin === "card" && request.cardId) return { page: "board", cardId: request.cardId };
  return { page: "agent", agentId: request.agentId, tab: "chat" };
}
