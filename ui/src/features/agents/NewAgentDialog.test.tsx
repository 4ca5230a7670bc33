import { beforeEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { backend, fakeApi, resetBackend, seedAgent } from "../../test/fakeApi";
import { renderApp } from "../../test/helpers";
import { providerModelLists } from "../../test/fakeHome";

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
    const heading = screen.getByRole("heading", { level: 1 });
    expect(heading.textContent).toMatch(/^Writer/);
    // Codex is not installed here: the agent is made, and says it cannot run, and why.
    expect(within(heading).getByTestId("cant-run-badge").getAttribute("title")).toBe("Codex is not installed on this computer.");
    expect(within(item).getByTestId("cant-run-badge")).toBeTruthy();
    expect(screen.getByTestId("cant-run-notice").textContent).toContain("Writer can't run yet.");
    const header = document.querySelector(".agent-header")!;
    expect(header.textContent).toContain("@writer");
    expect(header.textContent).toContain("Codex");
    expect(header.textContent).toContain("gpt-5");
  });

  it("offers the five runtimes, marks those that cannot run here and starts on one that can", async () => {
    const { user } = await openDialog();
    const select = screen.getByTestId("agent-runtime-select") as HTMLSelectElement;
    // Here: Claude Code found and signed in; Codex not installed.
    await waitFor(() => expect(select.value).toBe("claude-code"));
    expect([...select.options].map((o) => [o.value, o.text])).toEqual([
      ["claude-code", "Claude Code"],
      ["codex", "Codex (can't run here)"],
      ["hermes", "Hermes"],
      ["openclaw", "OpenClaw"],
      ["native", "Native"],
    ]);
    expect(screen.queryByTestId("agent-runtime-problem")).toBeNull();
    await user.selectOptions(select, "codex");
    expect(screen.getByTestId("agent-runtime-problem").textContent).toContain("Codex is not installed on this computer.");
  });

  it("starts on Native when no runtime can run here, and Native needs a model", async () => {
    backend.runtimes = backend.runtimes.map((r) => ({ ...r, found: false, path: null, version: null }));
    const { user } = await openDialog();
    const select = screen.getByTestId("agent-runtime-select") as HTMLSelectElement;
    await waitFor(() => expect(select.value).toBe("native"));
    expect((screen.getByTestId("agent-model-input") as HTMLInputElement).placeholder).toMatch(/^Required/);
    await user.type(screen.getByTestId("agent-name-input"), "Ada");
    await user.type(screen.getByTestId("agent-handle-input"), "ada");
    await user.click(screen.getByTestId("create-agent-submit"));
    expect(screen.getByTestId("agent-model-error").textContent).toContain("Native needs a model");
    expect(fakeApi.createAgent).not.toHaveBeenCalled();
    await user.type(screen.getByTestId("agent-model-input"), "claude-sonnet-4-5");
    await user.click(screen.getByTestId("create-agent-submit"));
    await waitFor(() => expect(fakeApi.createAgent).toHaveBeenCalled());
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
    await user.type(screen.getByTestId("agent-model-input"), "some-model");
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

  it("offers the provider's models for Native's model field, still typeable, and says when they cannot be listed", async () => {
    const { user } = await openDialog();
    await user.selectOptions(screen.getByTestId("agent-runtime-select"), "native");
    // No Anthropic key: nothing to ask with, nothing asked.
    expect(screen.queryByTestId("agent-model-list")).toBeNull();
    await user.selectOptions(screen.getByTestId("agent-provider-select"), "openai");
    const hint = await screen.findByTestId("agent-model-list");
    await waitFor(() => expect(hint.textContent).toContain("2 models from OpenAI: pick one or type a name."));
    const model = screen.getByTestId("agent-model-input") as HTMLInputElement;
    const list = document.getElementById(model.getAttribute("list") ?? "");
    expect([...(list?.querySelectorAll("option") ?? [])].map((o) => o.value)).toEqual(["gpt-5", "gpt-5-mini"]);
    expect(fakeApi.providerModels).toHaveBeenCalledWith("openai", false);
    await user.type(model, "my-own-model");
    expect(model.value).toBe("my-own-model");

    providerModelLists.delete("openai");
    await user.click(screen.getByTestId("agent-model-list-refresh"));
    await waitFor(() => expect(hint.textContent).toContain("Could not list openai's models: HTTP 404. Type the model's name."));
    expect(fakeApi.providerModels).toHaveBeenLastCalledWith("openai", true);
  });
});
