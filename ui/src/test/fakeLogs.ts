// The log part of the fake API: its level and its last lines.
import { vi } from "vitest";
import type { LogLevel } from "../bindings";
import type { SomeCommandFakes } from "./commandFakes";

function initialLogs() {
  return {
    level: "info" as LogLevel,
    lines: [
      "2026-01-01T10:00:00.000000Z  INFO clawboo_engine: opening the engine",
      "2026-01-01T10:00:01.000000Z  WARN clawboo_engine::chat: could not store a run's events",
    ],
  };
}

export const logs = initialLogs();

export function resetLogs() {
  Object.assign(logs, initialLogs());
}

export const fakeLogsApi = {
  logLevel: vi.fn(async (): Promise<LogLevel> => logs.level),
  setLogLevel: vi.fn(async (level: LogLevel): Promise<LogLevel> => {
    logs.level = level;
    return level;
  }),
  recentLogLines: vi.fn(async (lines: number): Promise<string[]> => logs.lines.slice(-lines)),
} satisfies SomeCommandFakes;
