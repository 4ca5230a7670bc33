import type { ChatMessage, Value as JsonValue, RunStatus, RunSummary } from "../../bindings";

export type TimelineEntry =
  | { kind: "message"; key: string; message: ChatMessage }
  /** A run that ended without a reply of its own: failed, timed out, cancelled or interrupted. */
  | { kind: "run"; key: string; run: RunSummary }
  /** Messages a retry or an edit replaced, in a row: kept, shown folded. */
  /** `edited`: the message after them says something else (an edit), not the same again (a retry). */
  | { kind: "superseded"; key: string; messages: ChatMessage[]; edited: boolean };

const QUIET_STATUSES: RunStatus[] = ["running", "succeeded"];

/** Whether the timeline notes a run's end (failed, timed out, stopped, interrupted). */
export const isNotedRun = (status: RunStatus) => !QUIET_STATUSES.includes(status);

/** What a chat has loaded: messages oldest first, the runs they refer to, the active run. */
export type ChatView = { messages: ChatMessage[]; runs: RunSummary[]; activeRun: RunSummary | null };

/**
 * Messages in their order, each run that ended without success noted after the last message
 * that refers to it (its user message, or the partial reply of a stopped run). Replaced
 * messages in a row become one folded entry (their runs are not noted). One pass.
 */
export function buildTimeline({ messages, runs }: Pick<ChatView, "messages" | "runs">): TimelineEntry[] {
  const noted = new Map<string, RunSummary>();
  for (const run of runs) if (isNotedRun(run.status)) noted.set(run.id, run);
  const lastMention = new Map<string, number>();
  messages.forEach((message, i) => {
    if (message.runId && noted.has(message.runId) && !message.superseded) lastMention.set(message.runId, i);
  });
  const entries: TimelineEntry[] = [];
  messages.forEach((message, i) => {
    if (message.superseded) {
      const last = entries[entries.length - 1];
      if (last?.kind === "superseded") last.messages.push(message);
      else entries.push({ kind: "superseded", key: `s:${message.id}`, messages: [message], edited: false });
      return;
    }
    const previous = entries[entries.length - 1];
    if (previous?.kind === "superseded" && message.role === "user") {
      previous.edited = previous.messages.some((m) => m.role === "user" && m.content !== message.content);
    }
    entries.push({ kind: "message", key: `m:${message.id}`, message });
    const run = message.runId ? noted.get(message.runId) : undefined;
    if (run && lastMention.get(run.id) === i) entries.push({ kind: "run", key: `r:${run.id}`, run });
  });
  return entries;
}

/** The messages the actions replace: the user's last standing message, and the reply after it
 *  (if any). Retry and edit act on these only. */
export function lastExchange(messages: ChatMessage[]): { user: ChatMessage | null; reply: ChatMessage | null } {
  let reply: ChatMessage | null = null;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message.superseded) continue;
    if (message.role === "notice") return { user: null, reply: null };
    if (message.role === "user") return { user: message, reply };
    reply ??= message;
  }
  return { user: null, reply: null };
}

/** The run the activity card shows: the active one, else the one started last. */
export function currentRun(view: ChatView | undefined): RunSummary | null {
  if (!view) return null;
  if (view.activeRun) return view.activeRun;
  let latest: RunSummary | null = null;
  for (const run of view.runs) if (!latest || run.startedAt >= latest.startedAt) latest = run;
  return latest;
}

export const RUN_STATUS_LABELS: Record<RunStatus, string> = {
  running: "Running",
  succeeded: "Done",
  failed: "Failed",
  cancelled: "Stopped",
  timed_out: "Timed out",
  interrupted: "Interrupted",
};

export const isRunFailure = (status: RunStatus) =>
  status === "failed" || status === "timed_out" || status === "interrupted";

/** The headline of a run notice in the chat. */
export function runNoticeTitle(status: RunStatus): string {
  switch (status) {
    case "failed":
      return "The run failed.";
    case "timed_out":
      return "The run timed out.";
    case "interrupted":
      return "The run was interrupted.";
    case "cancelled":
      return "Stopped.";
    default:
      return RUN_STATUS_LABELS[status];
  }
}

/** 420 -> "420 ms", 3200 -> "3.2 s", 65000 -> "1m 5s" */
export function formatDuration(ms: number): string {
  const value = Math.max(0, Math.round(ms));
  if (value < 1000) return `${value} ms`;
  if (value < 60_000) return `${(value / 1000).toFixed(1)} s`;
  const minutes = Math.floor(value / 60_000);
  return `${minutes}m ${Math.round((value % 60_000) / 1000)}s`;
}

/** Keys whose value says best, on its own, what a tool call is about. */
const TELLING_KEYS = ["command", "cmd", "file_path", "filePath", "path", "pattern", "query", "url", "prompt", "description"];
const SUMMARY_LENGTH = 160;

/** A tool's input on one short line. */
export function summarizeInput(input: JsonValue): string {
  let text: string;
  if (typeof input === "string") {
    text = input;
  } else if (input && typeof input === "object" && !Array.isArray(input)) {
    const key = TELLING_KEYS.find((k) => typeof input[k] === "string");
    text = key ? (input[key] as string) : JSON.stringify(input);
  } else {
    text = JSON.stringify(input) ?? "";
  }
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > SUMMARY_LENGTH ? `${line.slice(0, SUMMARY_LENGTH - 1)}…` : line;
}

export function prettyJson(value: JsonValue): string {
  return typeof value === "string" ? value : JSON.stringify(value, null, 2);
}

/** The first `max` lines of `text`, and how many lines are left out. */
export function firstLines(text: string, max: number): { shown: string; hidden: number; total: number } {
  const lines = text.split("\n");
  if (lines.length <= max) return { shown: text, hidden: 0, total: lines.length };
  return { shown: lines.slice(0, max).join("\n"), hidden: lines.length - max, total: lines.length };
}
