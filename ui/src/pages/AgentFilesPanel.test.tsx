import { beforeEach, describe, expect, it, vi } from "vitest";
import { act, screen, waitFor, within } from "@testing-library/react";
import { ClawbooError } from "../errors";
import { backend, editOnDisk, fakeApi, resetBackend, seedAgent } from "../test/fakeApi";
import {
  editorText,
  openAgentFiles,
  pressSaveShortcut,
  renderApp,
  replaceEditorText,
  typeInEditor,
} from "../test/helpers";

vi.mock("../api", async () => (await import("../test/fakeApi")).fakeApi);

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

  it("shows the SOUL.md character meter and the over-budget message", async () => {
    const { user } = renderApp();
    await openAgentFiles(user, "researcher");

    replaceEditorText("a".repeat(1234));
    expect(screen.getByTestId("soul-meter").textContent).toContain("1,234 / 4,000 characters");
    expect(screen.getByTestId("soul-meter").textContent).not.toContain("Over the persona budget");

    // Code points, not UTF-16 units: each emoji counts once.
    replaceEditorText("😀".repeat(4000));
    expect(screen.getByTestId("soul-meter").textContent).toContain("4,000 / 4,000 characters");
    expect(screen.getByTestId("soul-meter").classList.contains("is-over")).toBe(false);

    replaceEditorText("b".repeat(4025));
    const meter = screen.getByTestId("soul-meter");
    expect(meter.classList.contains("is-over")).toBe(true);
    expect(meter.textContent).toContain("4,025 / 4,000 characters");
    expect(meter.textContent).toContain(
      "Over the persona budget by 25 characters. Claude Code, Codex and Hermes receive only the first 4,000 characters as the persona; the file itself is kept whole.",
    );
  });

  it("shows the meter only for SOUL.md", async () => {
    const { user } = renderApp();
    await openAgentFiles(user, "researcher");
    await user.click(screen.getByTestId("file-tab-AGENTS.md"));
    await waitFor(() => expect(editorText()).toBe("# AGENTS.md\n"));
    expect(screen.queryByTestId("soul-meter")).toBeNull();
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
