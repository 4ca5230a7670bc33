import { describe, expect, it, vi } from "vitest";
import { render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { ErrorMessage } from "./ErrorMessage";
import { learnAppVersion } from "../lib/errorDetails";

const { LOG } = vi.hoisted(() => ({
  LOG: ["2026-01-01T10:00:00Z  INFO clawboo_engine: opening the engine", "2026-01-01T10:00:01Z  WARN clawboo_lib: no tray icon"],
}));
vi.mock("../api", () => ({
  appVersion: async () => "9.8.7",
  call: async (name: string, n: number) => (name === "recentLogLines" ? LOG.slice(-n) : undefined),
}));

describe("Copy details on an error", () => {
  it("copies the code, the message, the app version, the OS, the time and the log's last lines as text", async () => {
    const user = userEvent.setup();
    learnAppVersion();
    await new Promise((r) => setTimeout(r, 0));
    render(<ErrorMessage code="missing_api_key" message="Add an Anthropic API key in Settings > API keys." />);
    // The log's last lines are read as the error shows.
    await new Promise((r) => setTimeout(r, 0));
    // The message itself stays as it was shown.
    expect(screen.getByTestId("error-message").textContent).toBe(
      "missing_api_keyAdd an Anthropic API key in Settings > API keys.",
    );
    await user.click(screen.getByTestId("copy-error-details"));
    expect((await screen.findByTestId("copy-error-status")).textContent).toBe("Copied");
    const copied = await navigator.clipboard.readText();
    expect(copied).toContain("Code: missing_api_key");
    expect(copied).toContain("Message: Add an Anthropic API key in Settings > API keys.");
    expect(copied).toContain("App version: 9.8.7");
    expect(copied).toMatch(/OS: .+/);
    expect(copied).toMatch(/Time: \d{4}-\d\d-\d\dT/);
    expect(copied).toContain(`Last 2 lines of the log:\n${LOG[0]}\n${LOG[1]}`);
  });

  it("is not offered for a form's own message, which has no code", () => {
    render(<ErrorMessage message="Enter a name." />);
    expect(screen.queryByTestId("copy-error-details")).toBeNull();
  });
});
