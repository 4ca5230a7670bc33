// What the search everything palette lists: each thing found (or remembered) as one row with
// where it goes. Recent items are kept in this machine's localStorage, newest first.
import type { Found } from "../../bindings";
import type { Route } from "../../shell/route";

export type PaletteKind = Found["kind"];

export type PaletteItem = {
  /** Unique in a list: kind and id. */
  key: string;
  kind: PaletteKind;
  title: string;
  detail: string;
  /** A message's snippet: matched words are `hit`. */
  snippet?: { text: string; hit: boolean }[];
  route: Route;
  /** A message to scroll to and highlight once its chat or room shows. */
  messageId?: string;
};

export const KIND_LABELS: Record<PaletteKind, string> = {
  agent: "Agent",
  team: "Team",
  room: "Room",
  chat: "Chat",
  card: "Card",
  routine: "Routine",
  fact: "Memory",
  message: "Message",
};

/** The row for one thing found. */
export function itemOf(found: Found): PaletteItem {
  switch (found.kind) {
    case "message": {
      const thread = found.thread;
      const route: Route =
        thread.kind === "room"
          ? { page: "team", teamId: thread.teamId ?? "", roomId: thread.id }
          : { page: "agent", agentId: thread.agentId ?? "", tab: "chat", chatId: thread.id };
      return {
        key: `message:${found.messageId}`,
        kind: "message",
        title: thread.kind === "room" ? thread.title : `Chat with ${thread.title}`,
        detail: found.author,
        snippet: found.snippet,
        route,
        messageId: found.messageId,
      };
    }
    case "agent":
      return named(found, { page: "agent", agentId: found.id, tab: "chat" });
    case "chat":
      return named(found, { page: "agent", agentId: found.parentId ?? "", tab: "chat", chatId: found.id });
    case "team":
      return named(found, { page: "team", teamId: found.id, roomId: null });
    case "room":
      return named(found, { page: "team", teamId: found.parentId ?? "", roomId: found.id });
    case "card":
      return named(found, { page: "board", cardId: found.id });
    case "routine":
      return named(found, { page: "routines" });
    case "fact":
      return named(found, { page: "memory" });
  }
}

function named(found: Exclude<Found, { kind: "message" }>, route: Route): PaletteItem {
  return { key: `${found.kind}:${found.id}`, kind: found.kind, title: found.name, detail: found.detail, route };
}

const RECENT_KEY = "clawboo.search.recent";
export const MAX_RECENT = 8;

export function recentItems(): PaletteItem[] {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(RECENT_KEY) ?? "[]");
    return Array.isArray(parsed) ? (parsed as PaletteItem[]).filter((i) => i && typeof i.key === "string") : [];
  } catch {
    return [];
  }
}

/** Puts `item` first among the recent ones (once), keeping at most MAX_RECENT. */
export function rememberItem(item: PaletteItem) {
  const kept = [item, ...recentItems().filter((i) => i.key !== item.key)].slice(0, MAX_RECENT);
  try {
    localStorage.setItem(RECENT_KEY, JSON.stringify(kept));
  } catch {
    // Storage full or unavailable: recent items are a convenience.
  }
}

/** Scrolls the message to the middle of its chat or room and highlights it for a moment, once it
 *  shows (its page may still be loading); gives up after a few seconds. */
export function jumpToMessage(messageId: string, timeoutMs = 4000) {
  const started = Date.now();
  // An attribute value in quotes: only `"` and `\` need escaping.
  const selector = `[data-message-id="${messageId.replace(/["\\]/g, "\\$&")}"]`;
  const attempt = () => {
    const row = document.querySelector<HTMLElement>(selector);
    if (row) {
      row.scrollIntoView({ block: "center" });
      row.classList.add("is-jump-target");
      window.setTimeout(() => row.classList.remove("is-jump-target"), 2500);
      return;
    }
    if (Date.now() - started < timeoutMs) window.setTimeout(attempt, 100);
  };
  attempt();
}
