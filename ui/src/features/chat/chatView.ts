// The open chat's view (its messages oldest first, its runs, its timeline entries), kept in step
// with the cached pages without going over the whole history on every event. Events mostly append
// a message to the newest page or update a run in it; then only the new messages become entries,
// and every older entry object is kept as it was, so memoised rows keyed by id stay untouched.
// Anything else (an older page loaded, a message replaced, a run that failed) rebuilds the view
// whole, as `flattenPages` and `buildTimeline` define it.
import type { ChatMessage, ChatPage, RunSummary } from "../../bindings";
import { buildTimeline, isNotedRun, type TimelineEntry } from "./chat";
import { flattenPages, type ChatPages } from "./chatPages";

export type ChatViewState = {
  /** The pages this view was made from. */
  source: ChatPages;
  conversationId: string | null;
  messages: ChatMessage[];
  runs: RunSummary[];
  activeRun: RunSummary | null;
  entries: TimelineEntry[];
  /** The runs of the older pages (all pages but the newest), as `flattenPages` lists them. */
  olderRuns: RunSummary[];
  olderRunIds: Set<string>;
  /** The runs the timeline notes, of every loaded page. */
  notedRunIds: Set<string>;
};

// Runs whose end the timeline notes (failed, stopped...): any change to one rebuilds the view.
const isNoted = isNotedRun;

/** The view of `data`, built from `previous` when the pages only grew at the newest end. */
export function nextChatView(previous: ChatViewState | undefined, data: ChatPages): ChatViewState {
  return (previous && appended(previous, data)) ?? buildChatView(data);
}

/** The whole view, from every loaded page. */
export function buildChatView(data: ChatPages): ChatViewState {
  const flat = flattenPages(data);
  const olderRuns: RunSummary[] = [];
  const olderRunIds = new Set<string>();
  for (let i = data.pages.length - 1; i >= 1; i--) {
    for (const run of data.pages[i].runs) {
      if (olderRunIds.has(run.id)) continue;
      olderRunIds.add(run.id);
      olderRuns.push(run);
    }
  }
  const notedRunIds = new Set(flat.runs.filter((r) => isNoted(r.status)).map((r) => r.id));
  return { source: data, ...flat, entries: buildTimeline(flat), olderRuns, olderRunIds, notedRunIds };
}

/**
 * The view after messages were appended to the newest page and its runs changed in ways the
 * timeline does not show; `undefined` when the change is anything else. Costs what changed (and
 * a pointer comparison over the newest page), not the history.
 */
function appended(previous: ChatViewState, data: ChatPages): ChatViewState | undefined {
  const before = previous.source;
  if (data === before) return previous;
  if (data.pages.length !== before.pages.length || data.pages.length === 0) return undefined;
  for (let i = 1; i < data.pages.length; i++) if (data.pages[i] !== before.pages[i]) return undefined;
  const newest: ChatPage = data.pages[0];
  const old: ChatPage = before.pages[0];
  if (old.conversationId !== null && newest.conversationId !== old.conversationId) return undefined;

  // The newest page's messages: the old ones untouched, new ones after them.
  if (newest.messages.length < old.messages.length) return undefined;
  if (newest.messages !== old.messages) {
    for (let i = 0; i < old.messages.length; i++) if (newest.messages[i] !== old.messages[i]) return undefined;
  }
  const added = newest.messages.slice(old.messages.length);

  // Its runs: replaced or added, none of them one the timeline notes.
  if (newest.runs !== old.runs) {
    if (newest.runs.length < old.runs.length) return undefined;
    for (let i = 0; i < newest.runs.length; i++) {
      const run = newest.runs[i];
      if (run === old.runs[i]) continue;
      if (isNoted(run.status) || (i < old.runs.length && (old.runs[i].id !== run.id || isNoted(old.runs[i].status)))) {
        return undefined;
      }
    }
  }

  // New messages become entries; one the timeline would fold or note with a run rebuilds. (No
  // noted run changed above, so the noted ones are still those of the previous view.)
  const noted = previous.notedRunIds;
  const last = previous.entries[previous.entries.length - 1];
  const entries: TimelineEntry[] = [];
  for (const message of added) {
    if (message.superseded || (message.runId && noted.has(message.runId))) return undefined;
    if (entries.length === 0 && last?.kind === "superseded" && message.role === "user") return undefined;
    entries.push({ kind: "message", key: `m:${message.id}`, message });
  }

  const runs =
    newest.runs === old.runs
      ? previous.runs
      : previous.olderRuns.concat(newest.runs.filter((r) => !previous.olderRunIds.has(r.id)));
  return {
    ...previous,
    source: data,
    conversationId: newest.conversationId ?? null,
    messages: added.length ? previous.messages.concat(added) : previous.messages,
    runs,
    activeRun: newest.activeRun ?? null,
    entries: entries.length ? previous.entries.concat(entries) : previous.entries,
  };
}
