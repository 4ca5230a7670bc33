// The view model of one run: its records, in `seq` order, folded into the
// streamed reply, an activity list, usage and the outcome. Pure; no React.
import type { Value as JsonValue, RunEventRecord, RunOutcome } from "../../bindings";

export type ToolCallItem = {
  kind: "tool";
  key: string;
  callId: string;
  name: string;
  input: JsonValue;
  status: "running" | "done" | "error";
  output: string | null;
  startedAt: number;
  finishedAt: number | null;
};

export type PermissionItem = {
  kind: "permission";
  key: string;
  requestId: string;
  tool: string;
  input: JsonValue;
  description: string;
  /** null while the request waits for an answer. */
  allowed: boolean | null;
};

export type ActivityItem =
  | ToolCallItem
  | PermissionItem
  | { kind: "thinking"; key: string; text: string }
  | { kind: "context"; key: string; summary: string; text: string }
  | { kind: "warning" | "error"; key: string; message: string };

export type Usage = {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number | null;
};

/** An immutable view of one run; a new object whenever something in it changed. */
export type RunActivity = {
  /** The reply streamed so far. */
  text: string;
  /** Tool calls, thinking, permission requests, warnings and errors, in order. Keeps its identity while only `text` changes. */
  items: readonly ActivityItem[];
  /** Summed over the run's usage reports. */
  usage: Usage | null;
  finished: { outcome: RunOutcome; message: string | null } | null;
  /** Highest `seq` seen; 0 when nothing has arrived. */
  lastSeq: number;
};

export const EMPTY_ACTIVITY: RunActivity = { text: "", items: [], usage: null, finished: null, lastSeq: 0 };

/** Folds records, in `seq` order, into a run's view model. */
export class RunFold {
  text = "";
  items: ActivityItem[] = [];
  usage: Usage | null = null;
  finished: RunActivity["finished"] = null;
  lastSeq = 0;
  itemsChanged = true;
  private index = new Map<string, number>();
  private lastType: string | null = null;

  private put(item: ActivityItem) {
    const at = this.index.get(item.key);
    if (at === undefined) {
      this.index.set(item.key, this.items.length);
      this.items.push(item);
    } else {
      this.items[at] = item;
    }
    this.itemsChanged = true;
  }

  private find<K extends ActivityItem["kind"]>(key: string, kind: K): Extract<ActivityItem, { kind: K }> | undefined {
    const at = this.index.get(key);
    const item = at === undefined ? undefined : this.items[at];
    return item?.kind === kind ? (item as Extract<ActivityItem, { kind: K }>) : undefined;
  }

  apply({ seq, at, event }: RunEventRecord) {
    this.lastSeq = Math.max(this.lastSeq, seq);
    const previousType = this.lastType;
    this.lastType = event.type;
    switch (event.type) {
      case "textDelta":
        this.text += event.text;
        break;
      case "message":
        // As the backend builds the stored reply: a new paragraph unless a line just ended.
        if (this.text && !this.text.endsWith("\n")) this.text += "\n\n";
        this.text += event.text;
        break;
      case "thinking": {
        const last = this.items[this.items.length - 1];
        if (previousType === "thinking" && last?.kind === "thinking") {
          this.put({ ...last, text: last.text + event.text });
        } else {
          this.put({ kind: "thinking", key: `thinking:${seq}`, text: event.text });
        }
        break;
      }
      case "toolCallStarted":
        this.put({
          kind: "tool",
          key: `tool:${event.callId}`,
          callId: event.callId,
          name: event.name,
          input: event.input,
          status: "running",
          output: null,
          startedAt: at,
          finishedAt: null,
        });
        break;
      case "toolResult": {
        const key = `tool:${event.callId}`;
        // A result whose start was never seen still gets a row.
        const call = this.find(key, "tool") ?? {
          kind: "tool" as const,
          key,
          callId: event.callId,
          name: "tool",
          input: null,
          status: "running" as const,
          output: null,
          startedAt: at,
          finishedAt: null,
        };
        this.put({ ...call, status: event.isError ? "error" : "done", output: event.output, finishedAt: at });
        break;
      }
      case "permissionRequest":
        this.put({
          kind: "permission",
          key: `permission:${event.requestId}`,
          requestId: event.requestId,
          tool: event.tool,
          input: event.input,
          description: event.description,
          allowed: null,
        });
        break;
      case "permissionResolved": {
        const request = this.find(`permission:${event.requestId}`, "permission");
        if (request) this.put({ ...request, allowed: event.allowed });
        break;
      }
      case "usage": {
        const u = this.usage;
        this.usage = {
          inputTokens: (u?.inputTokens ?? 0) + event.inputTokens,
          outputTokens: (u?.outputTokens ?? 0) + event.outputTokens,
          cacheReadTokens: (u?.cacheReadTokens ?? 0) + event.cacheReadTokens,
          cacheWriteTokens: (u?.cacheWriteTokens ?? 0) + event.cacheWriteTokens,
          costUsd: event.costUsd === null ? u?.costUsd ?? null : (u?.costUsd ?? 0) + event.costUsd,
        };
        break;
      }
      case "contextAdded":
        this.put({ kind: "context", key: `context:${seq}`, summary: event.summary, text: event.text });
        break;
      case "warning":
      case "error":
        this.put({ kind: event.type, key: `${event.type}:${seq}`, message: event.message });
        break;
      case "finished":
        this.finished = { outcome: event.outcome, message: event.message };
        break;
      case "sessionStarted":
        break;
    }
  }

  snapshot(previous: RunActivity | undefined): RunActivity {
    const items = this.itemsChanged || !previous ? this.items.slice() : previous.items;
    this.itemsChanged = false;
    return { text: this.text, items, usage: this.usage, finished: this.finished, lastSeq: this.lastSeq };
  }
}

/** Folds a complete list of records (any order, duplicates allowed) into a view model. */
export function summarize(records: readonly RunEventRecord[]): RunActivity {
  const fold = new RunFold();
  const seen = new Set<number>();
  for (const r of [...records].sort((a, b) => a.seq - b.seq)) {
    if (seen.has(r.seq)) continue;
    seen.add(r.seq);
    fold.apply(r);
  }
  return fold.snapshot(undefined);
}
