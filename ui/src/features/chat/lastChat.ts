// The chat last open per agent, kept on this machine so opening an agent goes back to it.
const KEY = "clawboo.chat.last";

function all(): Record<string, string> {
  try {
    const parsed: unknown = JSON.parse(localStorage.getItem(KEY) ?? "{}");
    return parsed && typeof parsed === "object" ? (parsed as Record<string, string>) : {};
  } catch {
    return {};
  }
}

export function lastOpenChat(agentId: string): string | null {
  const id = all()[agentId];
  return typeof id === "string" ? id : null;
}

export function rememberOpenChat(agentId: string, chatId: string) {
  try {
    localStorage.setItem(KEY, JSON.stringify({ ...all(), [agentId]: chatId }));
  } catch {
    // Storage full or unavailable: going back to the last chat is a convenience.
  }
}

/** A chat's name in lists and headers. */
export function chatTitle(chat: { title: string | null } | undefined): string {
  return chat?.title?.trim() || "New chat";
}
