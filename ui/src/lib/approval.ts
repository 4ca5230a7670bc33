import type { ApprovalPolicy } from "../api";

export const APPROVAL_POLICIES: ReadonlyArray<{ value: ApprovalPolicy; label: string }> = [
  { value: "ask", label: "Ask me" },
  { value: "allow_all", label: "Allow everything" },
  { value: "read_only", label: "Read-only" },
];
