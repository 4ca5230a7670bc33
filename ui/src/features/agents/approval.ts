import type { ApprovalPolicy } from "../../bindings";

/** Each policy, with what it means in one line (the same on every runtime). */
export const APPROVAL_POLICIES: ReadonlyArray<{ value: ApprovalPolicy; label: string; hint: string }> = [
  { value: "ask", label: "Ask me", hint: "Asks you before it runs a command or changes a file." },
  {
    value: "allow_all",
    label: "Allow everything",
    hint: "Runs commands and changes files in its folder without asking.",
  },
  {
    value: "read_only",
    label: "Read-only",
    hint: "Reads files in its own folder only: no commands that could read elsewhere, no web, no writes.",
  },
];
