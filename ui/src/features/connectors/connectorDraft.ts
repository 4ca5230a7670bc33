// A connector as the form edits it, what the form finds wrong, and the input the engine takes.
import type { Connector, ConnectorEntryInput, ConnectorInput, ConnectorKind } from "../../bindings";

/** One env variable (stdio) or header (HTTP) as edited. A secret's `value` is what the user typed
 * now: empty keeps the stored secret (`wasSet`). */
export type EntryDraft = { key: string; value: string; secret: boolean; wasSet: boolean };

export type ConnectorDraft = {
  name: string;
  kind: ConnectorKind;
  command: string;
  /** One argument per line. */
  args: string;
  url: string;
  entries: EntryDraft[];
  enabled: boolean;
  sharedWith: string[];
};

/** The engine's name rule (src-tauri/tools/src/connectors/validate.rs). */
const NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{0,39}$/;

export function draftOf(connector: Connector | null): ConnectorDraft {
  if (!connector) {
    return { name: "", kind: "stdio", command: "", args: "", url: "", entries: [], enabled: true, sharedWith: [] };
  }
  return {
    name: connector.name,
    kind: connector.kind,
    command: connector.command,
    args: connector.args.join("\n"),
    url: connector.url,
    entries: connector.entries.map((e) => ({ key: e.key, value: e.value ?? "", secret: e.secret, wasSet: e.isSet })),
    enabled: connector.enabled,
    sharedWith: connector.sharedWith,
  };
}

/** What the form finds wrong before sending (the engine checks again). */
export function draftProblem(draft: ConnectorDraft): string | null {
  const name = draft.name.trim();
  if (!name) return "Give the connector a name.";
  if (!NAME_PATTERN.test(name)) return "Use lowercase letters a-z, digits, _ and -, starting with a letter or digit.";
  if (name.startsWith("clawboo")) return "Names starting with \"clawboo\" are Clawboo's own.";
  if (draft.kind === "stdio" && !draft.command.trim()) return "Enter the command that starts the MCP server.";
  if (draft.kind === "http" && !/^https?:\/\/[^\s/]+/.test(draft.url.trim())) {
    return "Enter a URL starting with http:// or https://.";
  }
  const keys = draft.entries.map((e) => e.key.trim().toLowerCase());
  if (keys.some((k) => !k)) return "Every row needs a name.";
  if (new Set(keys).size !== keys.length) return "A name is given twice.";
  return null;
}

/** The input the engine takes: a secret left empty is sent without a value (kept as stored). */
export function inputOf(draft: ConnectorDraft): ConnectorInput {
  const entries: ConnectorEntryInput[] = draft.entries.map((e) => ({
    key: e.key.trim(),
    value: e.secret && e.value === "" ? null : e.value,
    secret: e.secret,
  }));
  return {
    name: draft.name.trim(),
    kind: draft.kind,
    command: draft.kind === "stdio" ? draft.command.trim() : "",
    args:
      draft.kind === "stdio"
        ? draft.args
            .split("\n")
            .map((a) => a.trim())
            .filter((a) => a !== "")
        : [],
    url: draft.kind === "http" ? draft.url.trim() : "",
    entries,
    enabled: draft.enabled,
  };
}
