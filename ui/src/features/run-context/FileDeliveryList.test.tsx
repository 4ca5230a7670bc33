import { describe, expect, it } from "vitest";
import { render, screen, within } from "@testing-library/react";
import { FileDeliveryList } from "./FileDeliveryList";
import { sampleDeliveries } from "../../test/fakeFileRoutes";

describe("FileDeliveryList", () => {
  it("lists all seven files in order, each status in words with its route and size", () => {
    const files = sampleDeliveries({
      "SOUL.md": "sent",
      "AGENTS.md": "read_by_runtime",
      "IDENTITY.md": "empty",
      "USER.md": "not_sent",
      "MEMORY.md": "already_delivered",
      "BOOTSTRAP.md": "sent",
      "HEARTBEAT.md": "not_this_run",
    });
    // Whatever order they come in, they are shown in the editor's order.
    render(<FileDeliveryList files={[...files].reverse()} />);

    const rows = within(screen.getByTestId("file-deliveries")).getAllByRole("listitem");
    expect(rows.map((r) => r.getAttribute("data-testid"))).toEqual([
      "file-delivery-SOUL.md",
      "file-delivery-AGENTS.md",
      "file-delivery-IDENTITY.md",
      "file-delivery-USER.md",
      "file-delivery-MEMORY.md",
      "file-delivery-BOOTSTRAP.md",
      "file-delivery-HEARTBEAT.md",
    ]);
    const row = (file: string) => screen.getByTestId(`file-delivery-${file}`);
    const expected: [string, string, string][] = [
      ["SOUL.md", "sent", "Sent"],
      ["AGENTS.md", "read_by_runtime", "Read by the runtime"],
      ["IDENTITY.md", "empty", "Empty"],
      ["USER.md", "not_sent", "Not sent"],
      ["MEMORY.md", "already_delivered", "Omitted: already delivered"],
      ["HEARTBEAT.md", "not_this_run", "Not this run"],
    ];
    for (const [file, status, words] of expected) {
      expect(row(file).getAttribute("data-status")).toBe(status);
      expect(row(file).querySelector(".file-status")?.textContent).toBe(words);
    }
    expect(row("AGENTS.md").textContent).toContain("read by Codex from the workspace (its own AGENTS.md discovery)");
    expect(row("AGENTS.md").textContent).toContain("120 / 16,000 characters");
    expect(row("HEARTBEAT.md").textContent).toContain("sent on heartbeat runs only");
    expect(row("USER.md").textContent).toContain("not sent: this agent's own OpenClaw Gateway keeps its own files");
  });

  it("says when a run from before kept no files", () => {
    render(<FileDeliveryList files={[]} />);
    expect(screen.getByTestId("file-deliveries-none").textContent).toContain("Not recorded");
  });
});
