// A chat held as pages (newest first, as useInfiniteQuery keeps them) and kept current by the
// backend's events: a message is appended, a run updated in place; nothing is refetched whole.
// Pure functions over the cached data, generic over the page and message types, so team rooms
// can reuse them with their own pages (any page with `messages` ordered by `seq`, and `runs`).
import type { InfiniteData } from "@tanstack/react-query";
import type { ChatMessage, ChatPage, ChatSummary, RunSummary } from "../../bindings";

/** Messages per page. */
export const PAGE_SIZE = 50;

/** `null` asks for the newest page; a seq asks for the page before it. */
export type PageParam = number | null;
export type ChatPages = InfiniteData<ChatPage, PageParam>;

/** What the helpers need of a message and of a page. */
export type Sequenced = { id: string; seq: number };
export type PageOf<M extends Sequenced> = { messages: M[]; hasOlder: boolean };
export type RunsOf = { runs: RunSummary[]; activeRun: RunSummary | null };
type Pages<P> = InfiniteData<P, PageParam>;

/** The next (older) page's param, or undefined when the oldest page is loaded. */
export function olderPageParam<M extends Sequenced>(page: PageOf<M>): PageParam | undefined {
  return page.hasOlder && page.messages.length > 0 ? page.messages[0].seq : undefined;
}

/** Everything loaded, oldest first. The newest page says which run is active. */
export function flattenPages(data: ChatPages): {
  /** The conversation (none before its first message). */
  conversationId: string | null;
  messages: ChatMessage[];
  runs: RunSummary[];
  activeRun: RunSummary | null;
} {
  const messages: ChatMessage[] = [];
  const runs: RunSummary[] = [];
  const seen = new Set<string>();
  for (let i = data.pages.length - 1; i >= 0; i--) {
    const page = data.pages[i];
    for (const message of page.messages) messages.push(message);
    for (const run of page.runs) {
      if (seen.has(run.id)) continue;
      seen.add(run.id);
      runs.push(run);
    }
  }
  return { conversationId: data.pages[0]?.conversationId ?? null, messages, runs, activeRun: data.pages[0]?.activeRun ?? null };
}

function withNewestPage<P>(data: Pages<P>, update: (page: P) => P): Pages<P> {
  if (data.pages.length === 0) return data;
  const [newest, ...older] = data.pages;
  const next = update(newest);
  return next === newest ? data : { ...data, pages: [next, ...older] };
}

/** Appends a stored message to the newest page, unless it is already there. */
export function withMessage<M extends Sequenced, P extends PageOf<M>>(data: Pages<P>, message: M): Pages<P> {
  return withNewestPage(data, (page) => {
    const last = page.messages[page.messages.length - 1];
    if (page.messages.some((m) => m.id === message.id)) return page;
    // Messages come in seq order; one that arrives late still lands in its place.
    const messages =
      !last || last.seq < message.seq
        ? [...page.messages, message]
        : [...page.messages, message].sort((a, b) => a.seq - b.seq);
    return { ...page, messages };
  });
}

/** Puts a run's new state wherever it is shown, and sets or clears the active run. */
export function withRun<P extends RunsOf>(data: Pages<P>, run: RunSummary): Pages<P> {
  if (data.pages.length === 0) return data;
  // A run never goes back to running: a start heard after the end is ignored.
  const ended = data.pages.some((p) => p.runs.some((r) => r.id === run.id && r.status !== "running"));
  if (run.status === "running" && ended) return data;
  let found = false;
  const pages = data.pages.map((page) => {
    const index = page.runs.findIndex((r) => r.id === run.id);
    if (index === -1) return page;
    found = true;
    const runs = page.runs.slice();
    runs[index] = run;
    return { ...page, runs };
  });
  const newest = pages[0];
  const active = newest.activeRun;
  const activeRun = run.status === "running" ? run : active?.id === run.id ? null : active;
  pages[0] = { ...newest, runs: found ? newest.runs : [...newest.runs, run], activeRun };
  return { ...data, pages };
}

/** Only the newest page: what a refetch after lost events needs to bring back. */
export function newestPageOnly<P>(data: Pages<P>): Pages<P> {
  if (data.pages.length <= 1) return data;
  return { pages: data.pages.slice(0, 1), pageParams: data.pageParams.slice(0, 1) };
}

/** Marks the messages a retry or an edit replaced, wherever they are loaded. */
export function withSuperseded(data: ChatPages, ids: string[]): ChatPages {
  const replaced = new Set(ids);
  let changed = false;
  const pages = data.pages.map((page) => {
    if (!page.messages.some((m) => replaced.has(m.id) && !m.superseded)) return page;
    changed = true;
    return { ...page, messages: page.messages.map((m) => (replaced.has(m.id) ? { ...m, superseded: true } : m)) };
  });
  return changed ? { ...data, pages } : data;
}

/**
 * The agent's list of chats after `message` was stored, as the engine would list it: the chat's
 * count and last message updated, and the chat moved to the top of its group (pinned first, then
 * the most recently used). `undefined` when only the engine knows: the chat is not listed, the
 * message is its first from the user (it names the chat), or another chat was used at the very
 * same time (the engine breaks that tie by an order the list does not carry).
 */
export function withChatActivity(chats: ChatSummary[], message: ChatMessage): ChatSummary[] | undefined {
  const at = chats.findIndex((c) => c.id === message.chatId);
  if (at < 0) return undefined;
  const chat = chats[at];
  if (message.role === "user" && chat.title === null && !chat.titleSetByUser) return undefined;
  const moved: ChatSummary = {
    ...chat,
    messages: chat.messages + 1,
    lastMessageAt: Math.max(chat.lastMessageAt ?? message.createdAt, message.createdAt),
    lastActivityAt: Math.max(chat.lastActivityAt, message.createdAt),
  };
  const others = chats.filter((_, i) => i !== at);
  if (others.some((c) => c.pinned === moved.pinned && c.lastActivityAt === moved.lastActivityAt)) return undefined;
  // Its place: after every chat listed before it by the engine's order.
  const before = (c: ChatSummary) =>
    (c.pinned && !moved.pinned) || (c.pinned === moved.pinned && c.lastActivityAt > moved.lastActivityAt);
  let place = 0;
  while (place < others.length && before(others[place])) place++;
  return [...others.slice(0, place), moved, ...others.slice(place)];
}
