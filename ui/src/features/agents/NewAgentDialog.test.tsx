import { beforeEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor } from "@testing-library/react";
import { backend, fakeApi, resetBackend, seedAgent } from "../../test/fakeApi";
import { renderApp } from "../../test/helpers";

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);

beforeEach(() => {
  resetBackend();
  seedAgent({ name: "Existing", handle: "taken" });
});

async function openDialog() {
  const { user } = renderApp();
  await screen.findByTestId("agent-item-taken");
  await user.click(screen.getByTestId("new-agent-button"));
  return { user };
}

describe("New agent form", () => {
  it("validates the handle as you type", async () => {
    const { user } = await openDialog();
    const handle = screen.getByTestId("agent-handle-input");

    await user.type(handle, "bad handle!");
    expect(screen.getByTestId("error-message").textContent).toBe("Use only letters, digits, '-' and '_'.");

    await user.clear(handle);
    await user.type(handle, "a".repeat(33));
    expect(screen.getByTestId("error-message").textContent).toBe("Use at most 32 characters.");

    await user.clear(handle);
    await user.type(handle, "good_handle-1");
    expect(screen.queryByTestId("error-message")).toBeNull();
  });

  it("refuses an invalid handle on submit, with a clear message", async () => {
    const { user } = await openDialog();
    await user.type(screen.getByTestId("agent-name-input"), "Scout");
    await user.type(screen.getByTestId("agent-handle-input"), "no spaces");
    await user.click(screen.getByTestId("create-agent-submit"));
    expect(screen.getByTestId("error-message").textContent).toMatch(/letters, digits/);
    expect(fakeApi.createAgent).not.toHaveBeenCalled();
  });

  it("asks for a name", async () => {
    const { user } = await openDialog();
    await user.type(screen.getByTestId("agent-handle-input"), "scout");
    await user.click(screen.getByTestId("create-agent-submit"));
    expect(screen.getByText("Enter a name.")).toBeTruthy();
    expect(fakeApi.createAgent).not.toHaveBeenCalled();
  });

  it("closes on Escape", async () => {
    const { user } = await openDialog();
    await user.keyboard("{Escape}");
    expect(screen.queryByTestId("new-agent-dialog")).toBeNull();
  });

  it("creates the agent and selects it", async () => {
    const { user } = await openDialog();
    await user.type(screen.getByTestId("agent-name-input"), "Writer");
    await user.type(screen.getByTestId("agent-handle-input"), "@writer");
    await user.type(screen.getByTestId("agent-description-input"), "Drafts posts");
    await user.selectOptions(screen.getByTestId("agent-runtime-select"), "codex");
    await user.type(screen.getByTestId("agent-model-input"), "gpt-5");
    await user.click(screen.getByTestId("create-agent-submit"));

    await waitFor(() => expect(screen.queryByTestId("new-agent-dialog")).toBeNull());
    expect(fakeApi.createAgent).toHaveBeenCalledWith(
      expect.objectContaining({
        name: "Writer",
        handle: "writer",
        description: "Drafts posts",
        runtime: "codex",
        model: "gpt-5",
      }),
    );
    const item = await screen.findByTestId("agent-item-writer");
    expect(item.getAttribute("aria-current")).toBe("page");
    expect(screen.getByRole("heading", { level: 1 }).textContent).toBe("Writer");
    const header = document.querySelector(".agent-header")!;
    expect(header.textContent).toContain("@writer");
    expect(header.textContent).toContain("Codex");
    expect(header.textContent).toContain("gpt-5");
  });

  it("offers the five runtimes", async () => {
    await openDialog();
    const select = screen.getByTestId("agent-runtime-select") as HTMLSelectElement;
    expect([...select.options].map((o) => [o.value, o.text])).toEqual([
      ["claude-code", "Claude Code"],
      ["codex", "Codex"],
      ["hermes", "Hermes"],
      ["openclaw", "OpenClaw"],
      ["native", "Native"],
    ]);
  });

  it("shows the server's duplicate_handle error by the handle field", async () => {
    const { user } = await openDialog();
    await user.type(screen.getByTestId("agent-name-input"), "Copy");
    await user.type(screen.getByTestId("agent-handle-input"), "taken");
    await user.click(screen.getByTestId("create-agent-submit"));

    const error = await screen.findByTestId("error-message");
    expect(error.textContent).toBe("The handle @taken is already taken.");
    expect(screen.getByTestId("new-agent-dialog")).toBeTruthy();
    expect(backend.agents).toHaveLength(1);

    // Editing the handle clears the stale server error.
    await user.type(screen.getByTestId("agent-handle-input"), "2");
    expect(screen.queryByTestId("error-message")).toBeNull();
  });

  it("sets the approval policy, and a provider only for Native", async () => {
    const { user } = await openDialog();
    const approval = screen.getByTestId("agent-approval-select") as HTMLSelectElement;
    expect([...approval.options].map((o) => [o.value, o.text])).toEqual([
      ["ask", "Ask me"],
      ["allow_all", "Allow everything"],
      ["read_only", "Read-only"],
    ]);
    expect(approval.value).toBe("ask");
    const hint = () => document.getElementById(approval.getAttribute("aria-describedby") ?? "")?.textContent;
    expect(hint()).toBe("Asks you before it runs a command or changes a file.");
    expect(screen.queryByTestId("agent-provider-select")).toBeNull();

    await user.selectOptions(screen.getByTestId("agent-runtime-select"), "native");
    const provider = screen.getByTestId("agent-provider-select") as HTMLSelectElement;
    expect([...provider.options].map((o) => o.value)).toEqual(["anthropic", "openai", "openrouter", "custom"]);
    expect(provider.value).toBe("anthropic");

    await user.selectOptions(provider, "openrouter");
    await user.selectOptions(approval, "read_only");
    expect(hint()).toMatch(/its own folder only: no commands that could read elsewhere, no web, no writes/);
    await user.type(screen.getByTestId("agent-name-input"), "Native one");
    await user.type(screen.getByTestId("agent-handle-input"), "native1");
    await user.click(screen.getByTestId("create-agent-submit"));

    await waitFor(() => expect(fakeApi.createAgent).toHaveBeenCalled());
    expect(fakeApi.createAgent).toHaveBeenCalledWith(
      expect.objectContaining({ runtime: "native", provider: "openrouter", approvalPolicy: "read_only" }),
    );
  });

  it("sends no provider for other runtimes, even after trying Native", async () => {
    const { user } = await openDialog();
    await user.selectOptions(screen.getByTestId("agent-runtime-select"), "native");
    await user.selectOptions(screen.getByTestId("agent-runtime-select"), "codex");
    expect(screen.queryByTestId("agent-provider-select")).toBeNull();
    await user.type(screen.getByTestId("agent-name-input"), "Coder");
    await user.type(screen.getByTestId("agent-handle-input"), "coder");
    await user.click(screen.getByTestId("create-agent-submit"));
    await waitFor(() => expect(fakeApi.createAgent).toHaveBeenCalled());
    expect(fakeApi.createAgent).toHaveBeenCalledWith(
      expect.objectContaining({ runtime: "codex", provider: null, approvalPolicy: "ask" }),
    );
  });
});
