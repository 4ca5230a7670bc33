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
    expect(row("AGENTS.md").textContent).toContain("read by Codex as its own AGENTS.md (Clawboo keeps it in step, in Codex's private home)");
    // Codex reads it itself: held to Codex's own limit, as the engine sends it.
    expect(row("AGENTS.md").textContent).toContain("120 / 64,000 characters");
    expect(screen.queryByTestId("file-note-AGENTS.md")).toBeNull();
    expect(row("HEARTBEAT.md").textContent).toContain("sent on heartbeat runs only");
    expect(row("USER.md").textContent).toContain("not sent: this agent's own OpenClaw Gateway keeps its own files");
  });

  it("shows the line for a file the runtime reads itself, over that runtime's own limit", () => {
    const note =
      "AGENTS.md has 20,001 characters, over Hermes's own limit of 20,000: the run went on, and Hermes reads its " +
      "start and end and leaves out the middle (Clawboo cuts nothing). Shorten it to have it read whole.";
    const files = sampleDeliveries({ "AGENTS.md": "read_by_runtime" }, "hermes").map((f) =>
      f.file === "AGENTS.md" ? { ...f, chars: 20_001, note } : f,
    );
    render(<FileDeliveryList files={files} />);
    const row = screen.getByTestId("file-delivery-AGENTS.md");
    expect(row.querySelector(".file-status")?.textContent).toBe("Read by the runtime");
    expect(row.querySelector(".file-delivery__size")?.textContent).toBe("20,001 / 20,000 characters");
    expect(within(row).getByRole("note").textContent).toBe(note);
  });

  it("shows the project's own instructions with their route, and the line when over budget", () => {
    const files = sampleDeliveries({});
    const { rerender } = render(
      <FileDeliveryList
        files={files}
        project={{
          name: "CLAUDE.md",
          folder: "/work/bakery",
          route: "instructions",
          routeLabel: "sent by Clawboo as instructions (Claude Code's own project settings, hooks and MCP servers stay off)",
          status: "sent",
          chars: 1_234,
          budget: 16_000,
          note: null,
        }}
      />,
    );
    const row = screen.getByTestId("project-file-delivery");
    expect(row.getAttribute("data-status")).toBe("sent");
    expect(row.querySelector(".file-delivery__name")?.textContent).toBe("CLAUDE.md");
    expect(row.querySelector(".file-status")?.textContent).toBe("Sent");
    expect(screen.getByTestId("project-file-route").textContent).toBe(
      "sent by Clawboo as instructions (Claude Code's own project settings, hooks and MCP servers stay off), from /work/bakery",
    );
    expect(row.textContent).toContain("1,234 / 16,000 characters");
    expect(screen.queryByTestId("project-file-note")).toBeNull();

    const note = "AGENTS.md has 20,001 characters, over its budget of 16,000: not sent (Clawboo does not cut it).";
    rerender(
      <FileDeliveryList
        files={files}
        project={{
          name: "AGENTS.md",
          folder: "/work/bakery",
          route: "instructions",
          routeLabel: "sent by Clawboo as developer instructions",
          status: "not_sent",
          chars: 20_001,
          budget: 16_000,
          note,
        }}
      />,
    );
    expect(screen.getByTestId("project-file-delivery").querySelector(".file-status")?.textContent).toBe("Not sent");
    expect(screen.getByTestId("project-file-delivery").querySelector(".is-over")).not.toBeNull();
    expect(screen.getByTestId("project-file-note").textContent).toBe(note);
  });

  it("lists no project instructions for a run in the agent's own folder", () => {
    render(<FileDeliveryList files={sampleDeliveries({})} />);
    expect(screen.queryByTestId("project-file-delivery")).toBeNull();
  });

  it("says when a run from before kept no files", () => {
    render(<FileDeliveryList files={[]} />);
    expect(screen.getByTestId("file-deliveries-none").textContent).toContain("Not recorded");
  });
});
