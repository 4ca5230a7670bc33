import type { RuntimeKind } from "../bindings";

export const RUNTIMES: ReadonlyArray<{ value: RuntimeKind; label: string }> = [
  { value: "claude-code", label: "Claude Code" },
  { value: "codex", label: "Codex" },
  { value: "hermes", label: "Hermes" },
  { value: "openclaw", label: "OpenClaw" },
  { value: "native", label: "Native" },
];

export function runtimeLabel(kind: RuntimeKind): string {
  return RUNTIMES.find((r) => r.value === kind)?.label ?? kind;
}
