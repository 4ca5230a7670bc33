import { beforeEach, describe, expect, it, vi } from "vitest";
import { act, screen, waitFor, within } from "@testing-library/react";
import { ClawbooError } from "../../errors";
import type { AgentPatch } from "../../bindings";
import { backend, editOnDisk, fakeApi, resetBackend, seedAgent } from "../../test/fakeApi";
import { emit } from "../../test/fakeEvents";
import {
  editorText,
  openAgentFiles,
  pressSaveShortcut,
  renderApp,
  replaceEditorText,
  typeInEditor,
} from "../../test/helpers";

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);

const SOUL = "# Soul\nYou are careful and kind.\n";
let agentId: string;

beforeEach(() => {
  resetBackend();
  agentId = seedAgent({ name: "Researcher", handle: "researcher" }, { "SOUL.md": SOUL }).id;
});

const diskContent = (name: "SOUL.md") => backend.files.get(agentId)!.get(name);

describe("Agent Files editor", () => {
  it("shows a tab per file in order and opens SOUL.md", async () => {
    const { user } = renderApp();
    await openAgentFiles(user, "researcher");

    const tabs = within(screen.getByRole("tablist", { name: "Agent files" })).getAllByRole("tab");
    expect(tabs.map((t) => t.textContent)).toEqual([
      "SOUL.md",
      "AGENTS.md",
      "IDENTITY.md",
      "USER.md",
      "MEMORY.md",
      "BOOTSTRAP.md",
      "HEARTBEAT.md",
    ]);
    expect(screen.getByTestId("file-tab-SOUL.md").getAttribute("aria-selected")).toBe("true");
    expect(editorText()).toBe(SOUL);
    expect(screen.getByTestId("file-editor").querySelector(".cm-content")).not.toBeNull();
  });

  it("marks the file dirty when typing and Ctrl-S saves and clears the marker", async () => {
    const { user } = renderApp();
    await openAgentFiles(user, "researcher");
    expect(screen.queryByTestId("dirty-marker")).toBeNull();
    expect((screen.getByTestId("save-file-button") as HTMLButtonElement).disabled).toBe(true);

    typeInEditor("Be brief.\n");

    expect(screen.getByTestId("dirty-marker").textContent).toContain("Unsaved changes");
    expect(screen.getByTestId("file-tab-SOUL.md").textContent).toContain("SOUL.md •");

    pressSaveShortcut();

    await waitFor(() => expect(screen.queryByTestId("dirty-marker")).toBeNull());
    expect(fakeApi.writeAgentFile).toHaveBeenCalledTimes(1);
    expect(fakeApi.writeAgentFile).toHaveBeenCalledWith(agentId, "SOUL.md", `${SOUL}Be brief.\n`);
    expect(diskContent("SOUL.md")).toBe(`${SOUL}Be brief.\n`);
    expect(screen.getByTestId("file-tab-SOUL.md").textContent).toMatch(/^SOUL\.md$/);

    // The backend's change event for our own save must not disturb anything.
    await act(() => new Promise((r) => setTimeout(r, 10)));
    expect(screen.queryByTestId("conflict-banner")).toBeNull();
    expect(screen.queryByTestId("dirty-marker")).toBeNull();
    expect(editorText()).toBe(`${SOUL}Be brief.\n`);
  });

  it("the Save button saves too", async () => {
    const { user } = renderApp();
    await openAgentFiles(user, "researcher");
    typeInEditor("More.");
    await user.click(screen.getByTestId("save-file-button"));
    await waitFor(() => expect(screen.queryByTestId("dirty-marker")).toBeNull());
    expect(fakeApi.writeAgentFile).toHaveBeenCalledWith(agentId, "SOUL.md", `${SOUL}More.`);
  });

  it("shows the SOUL.md meter, how it reaches the runtime, and the over-budget warning", async () => {
    const { user } = renderApp();
    await openAgentFiles(user, "researcher");
    const meter = () => screen.getByTestId("file-meter");

    replaceEditorText("a".repeat(1234));
    expect(meter().getAttribute("data-file")).toBe("SOUL.md");
    expect(meter().textContent).toContain("1,234 / 4,000 characters");
    expect(meter().textContent).not.toContain("Over its budget");
    expect((await screen.findByTestId("file-route")).textContent).toBe(
      "How it reaches Claude Code: sent as instructions every turn (appended to Claude Code's system prompt)",
    );

    // Code points, not UTF-16 units: each emoji counts once.
    replaceEditorText("😀".repeat(4000));
    expect(meter().textContent).toContain("4,000 / 4,000 characters");
    expect(meter().classList.contains("is-over")).toBe(false);

    // Surrounding whitespace is not sent, so it does not count.
    replaceEditorText(`\n\n${"b".repeat(4000)}\n\n`);
    expect(meter().textContent).toContain("4,000 / 4,000 characters");

    replaceEditorText("b".repeat(4025));
    expect(meter().classList.contains("is-over")).toBe(true);
    expect(meter().textContent).toContain("4,025 / 4,000 characters");
    expect(screen.getByTestId("file-over-budget").textContent).toBe(
      "Over its budget by 25 characters: this agent's runs are refused until it is shortened. Nothing is ever cut.",
    );
  });

  it("meters every file against its own budget, with its route for this runtime", async () => {
    await fakeApi.updateAgent(agentId, { runtime: "codex" } as AgentPatch);
    const { user } = renderApp();
    await openAgentFiles(user, "researcher");
    await user.click(screen.getByTestId("file-tab-AGENTS.md"));
    await waitFor(() => expect(editorText()).toBe("# AGENTS.md\n"));

    const meter = screen.getByTestId("file-meter");
    expect(meter.getAttribute("data-file")).toBe("AGENTS.md");
    // Codex reads AGENTS.md itself: metered against Codex's own limit, not Clawboo's 16,000.
    await waitFor(() => expect(meter.textContent).toContain("11 / 64,000 characters"));
    expect((await screen.findByTestId("file-route")).textContent).toBe(
      "How it reaches Codex: read by Codex as its own AGENTS.md (Clawboo keeps it in step, in Codex's private home)",
    );

    replaceEditorText("x".repeat(16_010));
    expect(screen.getByTestId("file-meter").textContent).toContain("16,010 / 64,000 characters");
    expect(screen.queryByTestId("file-over-budget")).toBeNull();
    replaceEditorText("x".repeat(64_010));
    expect(screen.getByTestId("file-meter").textContent).toContain("64,010 / 64,000 characters");
    // Over Codex's own limit it still never stops a run: the runtime's doing, said so.
    expect(screen.queryByTestId("file-over-budget")).toBeNull();
    expect(screen.getByTestId("file-over-budget-note").textContent).toBe(
      "Over Codex's own limit by 10 characters: runs go ahead, and Codex reads it itself, so it may leave out the " +
        "rest. Clawboo cuts nothing.",
    );

    await user.click(screen.getByTestId("file-tab-HEARTBEAT.md"));
    await waitFor(() => expect(editorText()).toBe("# HEARTBEAT.md\n"));
    expect(screen.getByTestId("file-route").textContent).toBe("How it reaches Codex: sent on heartbeat runs only");
  });

  it("shows no blocking warning for a file whose content is not sent", async () => {
    const { user } = renderApp();
    await openAgentFiles(user, "researcher");
    await user.click(screen.getByTestId("file-tab-MEMORY.md"));
    await waitFor(() => expect(editorText()).toBe("# MEMORY.md\n"));
    expect((await screen.findByTestId("file-route")).textContent).toBe(
      "How it reaches Claude Code: pointer only: memory tools on (memory_get / memory_search)",
    );

    replaceEditorText("m".repeat(8_100));
    expect(screen.getByTestId("file-meter").textContent).toContain("8,100 / 8,000 characters");
    expect(screen.getByTestId("file-meter").classList.contains("is-over")).toBe(false);
    expect(screen.queryByTestId("file-over-budget")).toBeNull();
    expect(screen.getByTestId("file-over-budget-note").textContent).toContain("its content is not sent");

    // And it saves without asking.
    pressSaveShortcut();
    await waitFor(() => expect(screen.queryByTestId("dirty-marker")).toBeNull());
    expect(screen.queryByTestId("confirm-dialog")).toBeNull();
  });

  it("meters AGENTS.md against the limit of a runtime that reads it itself, else Clawboo's budget", async () => {
    const { user } = renderApp();
    await openAgentFiles(user, "researcher");
    await user.click(screen.getByTestId("file-tab-AGENTS.md"));
    await waitFor(() => expect(editorText()).toBe("# AGENTS.md\n"));
    for (const [runtime, label, limit] of [
      ["hermes", "Hermes", "20,000"],
      ["openclaw", "OpenClaw", "20,000"],
      ["codex", "Codex", "64,000"],
      ["native", "Native", "16,000"],
    ] as const) {
      await act(async () => {
        await fakeApi.updateAgent(agentId, { runtime } as AgentPatch);
        emit("agentsChanged", null);
      });
      await waitFor(() => expect(screen.getByTestId("file-route").textContent).toContain(`How it reaches ${label}:`));
      await waitFor(() => expect(screen.getByTestId("file-meter").textContent).toContain(`11 / ${limit} characters`));
    }
    // Where Clawboo sends it (Native), over its budget stops the runs.
    replaceEditorText("x".repeat(16_010));
    expect(screen.getByTestId("file-over-budget").textContent).toContain("Over its budget by 10 characters");
  });

  it("reads the routes again when the agent's runtime changes", async () => {
    const { user } = renderApp();
    await openAgentFiles(user, "researcher");
    await user.click(screen.getByTestId("file-tab-AGENTS.md"));
    expect((await screen.findByTestId("file-route")).textContent).toBe(
      "How it reaches Claude Code: sent as instructions every turn (appended to Claude Code's system prompt)",
    );

    await act(async () => {
      await fakeApi.updateAgent(agentId, { runtime: "native" } as AgentPatch);
      emit("agentsChanged", null);
    });
    await waitFor(() =>
      expect(screen.getByTestId("file-route").textContent).toBe(
        "How it reaches Native: sent as instructions in the system prompt of every request",
      ),
    );
  });

  it("asks before saving a file over its budget: Keep editing keeps the draft unsaved", async () => {
    const { user } = renderApp();
    await openAgentFiles(user, "researcher");
    await screen.findByTestId("file-route");
    replaceEditorText("c".repeat(4_050));

    pressSaveShortcut();
    const dialog = await screen.findByTestId("confirm-dialog");
    expect(dialog.textContent).toContain("Save SOUL.md over its budget?");
    expect(dialog.textContent).toContain("SOUL.md has 4,050 characters, over its budget of 4,000 by 50.");

    await user.click(screen.getByTestId("save-over-budget-cancel"));
    expect(screen.queryByTestId("confirm-dialog")).toBeNull();
    expect(fakeApi.writeAgentFile).not.toHaveBeenCalled();
    expect(screen.getByTestId("dirty-marker")).toBeTruthy();
    expect(editorText()).toBe("c".repeat(4_050));
    expect(diskContent("SOUL.md")).toBe(SOUL);
  });

  it("Save anyway saves the whole text, over its budget", async () => {
    const { user } = renderApp();
    await openAgentFiles(user, "researcher");
    await screen.findByTestId("file-route");
    replaceEditorText("c".repeat(4_050));

    await user.click(screen.getByTestId("save-file-button"));
    await user.click(await screen.findByTestId("save-over-budget-confirm"));

    await waitFor(() => expect(screen.queryByTestId("dirty-marker")).toBeNull());
    expect(fakeApi.writeAgentFile).toHaveBeenCalledTimes(1);
    expect(diskContent("SOUL.md")).toBe("c".repeat(4_050));
    expect(screen.queryByTestId("confirm-dialog")).toBeNull();
    // Still over: the warning stays until it is shortened.
    expect(screen.getByTestId("file-over-budget")).toBeTruthy();
  });

  it("replaces a clean editor's content when the file changes on disk", async () => {
    const { user } = renderApp();
    await openAgentFiles(user, "researcher");

    act(() => editOnDisk(agentId, "SOUL.md", "# Soul\nEdited elsewhere.\n"));

    await waitFor(() => expect(editorText()).toBe("# Soul\nEdited elsewhere.\n"));
    expect(screen.queryByTestId("conflict-banner")).toBeNull();
    expect(screen.queryByTestId("dirty-marker")).toBeNull();
  });

  it("ignores a change event whose content equals what the editor already has", async () => {
    const { user } = renderApp();
    await openAgentFiles(user, "researcher");
    typeInEditor("draft");
    act(() => editOnDisk(agentId, "SOUL.md", SOUL));
    await waitFor(() => expect(fakeApi.readAgentFile).toHaveBeenCalledTimes(8));
    expect(screen.queryByTestId("conflict-banner")).toBeNull();
    expect(editorText()).toBe(`${SOUL}draft`);
  });

  it("shows a conflict banner for a dirty editor; Load disk version drops the edits", async () => {
    const { user } = renderApp();
    await openAgentFiles(user, "researcher");
    typeInEditor("my edit");

    act(() => editOnDisk(agentId, "SOUL.md", "disk version"));

    const banner = await screen.findByTestId("conflict-banner");
    expect(banner.textContent).toContain("SOUL.md changed on disk.");
    expect(editorText()).toBe(`${SOUL}my edit`);

    await user.click(within(banner).getByRole("button", { name: "Load disk version" }));

    expect(screen.queryByTestId("conflict-banner")).toBeNull();
    expect(editorText()).toBe("disk version");
    expect(screen.queryByTestId("dirty-marker")).toBeNull();
  });

  it("Keep my edits keeps the draft and a later save overwrites the disk", async () => {
    const { user } = renderApp();
    await openAgentFiles(user, "researcher");
    typeInEditor("my edit");
    act(() => editOnDisk(agentId, "SOUL.md", "disk version"));

    const banner = await screen.findByTestId("conflict-banner");
    await user.click(within(banner).getByRole("button", { name: "Keep my edits" }));

    expect(screen.queryByTestId("conflict-banner")).toBeNull();
    expect(editorText()).toBe(`${SOUL}my edit`);
    expect(screen.getByTestId("dirty-marker")).toBeTruthy();

    pressSaveShortcut();
    await waitFor(() => expect(screen.queryByTestId("dirty-marker")).toBeNull());
    expect(diskContent("SOUL.md")).toBe(`${SOUL}my edit`);
    await act(() => new Promise((r) => setTimeout(r, 10)));
    expect(screen.queryByTestId("conflict-banner")).toBeNull();
  });

  it("keeps unsaved drafts when switching file tabs", async () => {
    const { user } = renderApp();
    await openAgentFiles(user, "researcher");
    typeInEditor("soul draft");

    await user.click(screen.getByTestId("file-tab-USER.md"));
    await waitFor(() => expect(editorText()).toBe("# USER.md\n"));
    expect(screen.queryByTestId("dirty-marker")).toBeNull();
    expect(screen.getByTestId("file-tab-SOUL.md").textContent).toContain("SOUL.md •");
    typeInEditor("user draft");

    await user.click(screen.getByTestId("file-tab-SOUL.md"));
    expect(editorText()).toBe(`${SOUL}soul draft`);
    expect(screen.getByTestId("dirty-marker")).toBeTruthy();

    await user.click(screen.getByTestId("file-tab-USER.md"));
    expect(editorText()).toBe("# USER.md\nuser draft");

    // Leaving for the profile and coming back keeps them as well.
    await user.click(screen.getByTestId("subtab-profile"));
    await user.click(screen.getByTestId("subtab-files"));
    await screen.findByTestId("file-editor");
    expect(editorText()).toBe(`${SOUL}soul draft`);
    expect(fakeApi.writeAgentFile).not.toHaveBeenCalled();
  });

  it("shows a save error's message and keeps the edits", async () => {
    fakeApi.writeAgentFile.mockRejectedValueOnce(
      new ClawbooError("file_too_large", "SOUL.md is larger than the 1 MiB limit."),
    );
    const { user } = renderApp();
    await openAgentFiles(user, "researcher");
    typeInEditor("too much");

    pressSaveShortcut();

    expect((await screen.findByTestId("error-message")).textContent).toContain("SOUL.md is larger than the 1 MiB limit.");
    expect(screen.getByTestId("dirty-marker")).toBeTruthy();
    expect(editorText()).toBe(`${SOUL}too much`);
    expect(diskContent("SOUL.md")).toBe(SOUL);

    // A retry that succeeds clears the error.
    await user.click(screen.getByTestId("save-file-button"));
    await waitFor(() => expect(screen.queryByTestId("dirty-marker")).toBeNull());
    expect(screen.queryByTestId("error-message")).toBeNull();
  });
});
