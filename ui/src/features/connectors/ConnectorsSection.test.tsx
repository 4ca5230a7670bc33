import { beforeEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { fakeApi, resetBackend, seedAgent } from "../../test/fakeApi";
import { connectors, resetConnectors, seedConnector } from "../../test/fakeConnectors";
import { openAgentProfile, renderApp } from "../../test/helpers";
import { draftProblem, draftOf, inputOf } from "./connectorDraft";

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);

beforeEach(() => {
  resetBackend();
  resetConnectors();
});

async function openConnectors() {
  const { user } = renderApp();
  await user.click(screen.getByTestId("settings-link"));
  const section = await screen.findByTestId("connectors-section");
  return { user, section };
}

describe("Settings > Connectors", () => {
  it("adds a stdio connector with a secret and shares it with a chosen agent; the secret never shows again", async () => {
    const scout = seedAgent({ handle: "scout", name: "Scout" });
    seedAgent({ handle: "ava", name: "Ava" });
    const { user, section } = await openConnectors();
    expect(await within(section).findByTestId("connectors-empty")).toBeTruthy();
    await user.click(within(section).getByTestId("connector-add"));
    const form = screen.getByTestId("connector-form");
    await user.type(within(form).getByTestId("connector-name"), "docs");
    await user.type(within(form).getByTestId("connector-command"), "npx");
    await user.type(within(form).getByTestId("connector-args"), "-y\n@acme/docs-mcp");
    await user.click(within(form).getByTestId("connector-entry-add"));
    await user.type(within(form).getByTestId("connector-entry-key-0"), "DOCS_TOKEN");
    await user.click(within(form).getByTestId("connector-entry-secret-0"));
    await user.type(within(form).getByTestId("connector-entry-value-0"), "tok-123");
    expect((within(form).getByTestId("connector-entry-value-0") as HTMLInputElement).type).toBe("password");
    await user.click(within(form).getByTestId(`connector-share-${scout.id}`));
    await user.click(within(form).getByTestId("connector-save"));

    const row = await screen.findByTestId("connector-row-docs");
    expect(fakeApi.createConnector).toHaveBeenCalledWith({
      name: "docs",
      kind: "stdio",
      command: "npx",
      args: ["-y", "@acme/docs-mcp"],
      url: "",
      entries: [{ key: "DOCS_TOKEN", value: "tok-123", secret: true }],
      enabled: true,
    });
    expect(fakeApi.setConnectorShares).toHaveBeenCalledWith(expect.any(String), [scout.id]);
    await waitFor(() => expect(within(row).getByTestId("connector-shared-docs").textContent).toBe("Shared with 1 of 2 agents"));
    expect(within(row).queryByTestId("connector-warning-docs")).toBeNull();
    expect(document.body.textContent).not.toContain("tok-123");

    // Editing leaves the secret empty: it is kept as stored (sent without a value).
    await user.click(within(row).getByTestId("connector-edit-docs"));
    const edit = screen.getByTestId("connector-form");
    expect((within(edit).getByTestId("connector-entry-value-0") as HTMLInputElement).value).toBe("");
    expect(within(edit).getByTestId("connector-entry-value-0").getAttribute("placeholder")).toBe("Set (type to replace)");
    await user.click(within(edit).getByTestId("connector-save"));
    await waitFor(() => expect(fakeApi.updateConnector).toHaveBeenCalled());
    expect(vi.mocked(fakeApi.updateConnector).mock.calls[0][1].entries).toEqual([
      { key: "DOCS_TOKEN", value: null, secret: true },
    ]);
    expect(connectors.secrets.get(`${connectors.rows[0].id}:DOCS_TOKEN`)).toBe("tok-123");
  });

  it("adds an HTTP connector with a header", async () => {
    const { user, section } = await openConnectors();
    await user.click(within(section).getByTestId("connector-add"));
    const form = screen.getByTestId("connector-form");
    await user.type(within(form).getByTestId("connector-name"), "web");
    await user.click(within(form).getByTestId("connector-kind-http"));
    expect(within(form).queryByTestId("connector-command")).toBeNull();
    await user.type(within(form).getByTestId("connector-url"), "https://mcp.example.com/mcp");
    await user.click(within(form).getByTestId("connector-entry-add"));
    await user.type(within(form).getByTestId("connector-entry-key-0"), "X-Team");
    await user.type(within(form).getByTestId("connector-entry-value-0"), "blue");
    await user.click(within(form).getByTestId("connector-save"));
    const row = await screen.findByTestId("connector-row-web");
    expect(row.textContent).toContain("https://mcp.example.com/mcp");
    expect(vi.mocked(fakeApi.createConnector).mock.calls[0][0]).toMatchObject({
      kind: "http",
      command: "",
      args: [],
      entries: [{ key: "X-Team", value: "blue", secret: false }],
    });
  });

  it("refuses a bad name before sending, and shows the engine's refusal of a taken one", async () => {
    seedConnector({ name: "docs" });
    const { user, section } = await openConnectors();
    await user.click(within(section).getByTestId("connector-add"));
    const form = screen.getByTestId("connector-form");
    await user.type(within(form).getByTestId("connector-name"), "My Docs");
    await user.type(within(form).getByTestId("connector-command"), "npx");
    await user.click(within(form).getByTestId("connector-save"));
    expect(within(form).getByTestId("connector-problem").textContent).toContain("lowercase");
    expect(fakeApi.createConnector).not.toHaveBeenCalled();
    await user.clear(within(form).getByTestId("connector-name"));
    await user.type(within(form).getByTestId("connector-name"), "docs");
    await user.click(within(form).getByTestId("connector-save"));
    expect((await within(form).findByTestId("error-code")).textContent).toBe("conflict");
    expect(connectors.rows).toHaveLength(1);
  });

  it("warns about an unset secret and deletes after confirming", async () => {
    seedConnector({ name: "docs", entries: [{ key: "DOCS_TOKEN", value: null, secret: true }] });
    const { user } = await openConnectors();
    const row = await screen.findByTestId("connector-row-docs");
    expect(within(row).getByTestId("connector-warning-docs").textContent).toContain("DOCS_TOKEN not set");
    await user.click(within(row).getByTestId("connector-delete-docs"));
    await user.click(screen.getByTestId("connector-delete-confirm"));
    await waitFor(() => expect(screen.queryByTestId("connector-row-docs")).toBeNull());
    expect(connectors.rows).toHaveLength(0);
  });

  it("suggests well-known servers not yet added", async () => {
    seedConnector({ name: "github" });
    const { section } = await openConnectors();
    const ideas = await within(section).findByTestId("connector-suggestions");
    expect(ideas.textContent).toContain("filesystem");
    expect(ideas.textContent).not.toContain("github (");
  });
});

describe("an agent's connectors", () => {
  it("toggles a connector for the agent on its page", async () => {
    const scout = seedAgent({ handle: "scout", name: "Scout" });
    seedConnector({ name: "docs" });
    const { user } = renderApp();
    await openAgentProfile(user, "scout");
    const toggle = (await screen.findByTestId("agent-connector-docs")) as HTMLInputElement;
    expect(toggle.checked).toBe(false);
    await user.click(toggle);
    await waitFor(() => expect(fakeApi.shareConnector).toHaveBeenCalledWith(connectors.rows[0].id, scout.id, true));
    await waitFor(() => expect((screen.getByTestId("agent-connector-docs") as HTMLInputElement).checked).toBe(true));
  });
});

describe("the form's rules", () => {
  it("match the engine's: names, command or URL, rows", () => {
    const base = { ...draftOf(null), name: "docs", command: "npx" };
    expect(draftProblem(base)).toBeNull();
    expect(draftProblem({ ...base, name: "clawboo" })).toContain("Clawboo");
    expect(draftProblem({ ...base, command: " " })).toContain("command");
    expect(draftProblem({ ...base, kind: "http", url: "ftp://x" })).toContain("http");
    const rows = [
      { key: "A", value: "", secret: false, wasSet: false },
      { key: "a", value: "", secret: false, wasSet: false },
    ];
    expect(draftProblem({ ...base, entries: rows })).toContain("twice");
    expect(inputOf({ ...base, entries: [{ key: "S", value: "", secret: true, wasSet: true }] }).entries).toEqual([
      { key: "S", value: null, secret: true },
    ]);
  });
});
