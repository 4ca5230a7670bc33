import type { FileStatus } from "../../bindings";
import { codePointLength } from "../../lib/format";

/** The order agent files are shown in; unknown names follow, as listed. */
export const AGENT_FILE_ORDER = [
  "SOUL.md",
  "AGENTS.md",
  "IDENTITY.md",
  "USER.md",
  "MEMORY.md",
  "BOOTSTRAP.md",
  "HEARTBEAT.md",
];

export const PERSONA_FILE = "SOUL.md";

export function sortAgentFileNames(names: string[]): string[] {
  const rank = (name: string) => {
    const i = AGENT_FILE_ORDER.indexOf(name);
    return i === -1 ? AGENT_FILE_ORDER.length : i;
  };
  return names
    .map((name, index) => ({ name, index }))
    .sort((a, b) => rank(a.name) - rank(b.name) || a.index - b.index)
    .map((x) => x.name);
}

/** A file's size as the engine measures it against its budget: Unicode code points of the
 *  text without its surrounding whitespace (what is sent). */
export function fileChars(text: string): number {
  return codePointLength(text.trim());
}

/** How far over its budget `text` is (0 when within it). */
export function charsOverBudget(text: string, budget: number): number {
  return Math.max(0, fileChars(text) - budget);
}

/** What a run did with a file, in words. */
export const FILE_STATUS_LABELS: Record<FileStatus, string> = {
  sent: "Sent",
  read_by_runtime: "Read by the runtime",
  already_delivered: "Omitted: already delivered",
  empty: "Empty",
  unedited: "Not sent: starting text",
  not_this_run: "Not this run",
  not_sent: "Not sent",
};

/** `items` in the order files are shown in. */
export function inFileOrder<T extends { file: string }>(items: readonly T[]): T[] {
  const order = sortAgentFileNames(items.map((i) => i.file));
  return order.map((name) => items.find((i) => i.file === name)!);
}
