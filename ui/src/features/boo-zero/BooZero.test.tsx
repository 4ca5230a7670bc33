import { beforeEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { backend, fakeApi, resetBackend, seedAgent, seedMessage, seedRun, seedTeam } from "../../test/fakeApi";
import { booZeroState, DEFAULT_RULES, seedBooZero } from "../../test/fakeBooZero";
import { renderApp } from "../../test/helpers";

/** The chat a message goes to: the one shown (its id), or null before the list says. */
const anyChat = { asymmetricMatch: (v: unknown) => v === null || (typeof v === "string" && v.startsWith("chat-")) };

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);

let booId: string;

beforeEach(() => {
  resetBackend();
  seedAgent({ name: "Alice", handle: "alice" });
  booId = seedAgent({ name: "Boo Zero", handle: "boo", runtime: "native", provider: "anthropic" }).id;
  seedAgent({ name: "Zed", handle: "zed" });
  seedBooZero(booId);
});

type User = ReturnType<typeof renderApp>["user"];

async function openBooZeroDetails(user: User, sub: "brief" | "rules" | "profile") {
  await user.click(await screen.findByTestId("boo-zero-link"));
  await user.click(screen.getByTestId("tab-details"));
  await user.click(screen.getByTestId(`subtab-${sub}`));
}

describe("Boo Zero in the sidebar", () => {
  it("is pinned above the teams with its own mark, and left out of the agents list", async () => {
    const { user } = renderApp();
    const link = await screen.findByTestId("boo-zero-link");
    expect(link.textContent).toContain("Boo Zero");
    expect(link.textContent).toContain("your coordinator");
    expect(within(link).getByTestId("boo-zero-mark")).toBeTruthy();
    // Before the teams list in the document, and not among the other agents.
    const teams = screen.getByTestId("team-list");
    expect(link.compareDocumentPosition(teams) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    await screen.findByTestId("agent-item-alice");
    expect(screen.queryByTestId("agent-item-boo")).toBeNull();
    expect(screen.getByTestId("agent-item-zed")).toBeTruthy();

    await user.click(link);
    expect(await screen.findByTestId("boo-zero-badge")).toBeTruthy();
    expect(link.getAttribute("aria-current")).toBe("page");
  });

  it("is an ordinary agent in the list when there is no Boo Zero (older engine)", async () => {
    booZeroState.agentId = null;
    renderApp();
    expect(await screen.findByTestId("agent-item-boo")).toBeTruthy();
    expect(screen.queryByTestId("boo-zero-link")).toBeNull();
  });
});

describe("Boo Zero's Details", () => {
  it("keeps the global brief, saying it is sent to no agent", async () => {
    const { user } = renderApp();
    await openBooZeroDetails(user, "brief");
    const brief = await screen.findByTestId("boo-zero-brief");
    expect(within(brief).getByTestId("boo-zero-brief-note").textContent).toContain("Saved here, sent to no agent");
    const save = within(brief).getByTestId("boo-zero-brief-save") as HTMLButtonElement;
    expect(save.disabled).toBe(true);

    await user.type(within(brief).getByTestId("boo-zero-brief-input"), "Ship the spring release.");
    expect(within(brief).getByTestId("boo-zero-brief-counter").textContent).toBe("24 / 8,000 characters");
    await user.click(save);
    await waitFor(() => expect(fakeApi.setGlobalBrief).toHaveBeenCalledWith("Ship the spring release."));
    expect(booZeroState.globalBrief).toBe("Ship the spring release.");
    expect(await within(brief).findByText("Saved")).toBeTruthy();
  });

  it("edits the rules with a budget meter, refuses over the budget, and goes back to the default", async () => {
    const { user } = renderApp();
    await openBooZeroDetails(user, "rules");
    const rules = await screen.findByTestId("boo-zero-rules");
    const input = within(rules).getByTestId("boo-zero-rules-input") as HTMLTextAreaElement;
    expect(input.value).toBe(DEFAULT_RULES);
    expect(within(rules).getByTestId("boo-zero-rules-default")).toBeTruthy();
    expect(within(rules).queryByTestId("boo-zero-rules-reset")).toBeNull();

    await user.clear(input);
    await user.type(input, "Answer in one line.");
    expect(within(rules).getByTestId("boo-zero-rules-counter").textContent).toBe("19 / 4,000 characters");
    await user.click(within(rules).getByTestId("boo-zero-rules-save"));
    await waitFor(() => expect(fakeApi.setBooZeroRules).toHaveBeenCalledWith("Answer in one line."));

    const saved = await screen.findByTestId("boo-zero-rules");
    await waitFor(() => expect(within(saved).queryByTestId("boo-zero-rules-default")).toBeNull());
    const longInput = within(saved).getByTestId("boo-zero-rules-input") as HTMLTextAreaElement;
    await user.click(longInput);
    await user.paste("x".repeat(4_000));
    expect(within(saved).getByTestId("boo-zero-rules-meter").className).toContain("is-over");
    expect(within(saved).getByTestId("boo-zero-rules-over").textContent).toContain("19 characters over the budget");
    expect((within(saved).getByTestId("boo-zero-rules-save") as HTMLButtonElement).disabled).toBe(true);

    await user.click(within(saved).getByTestId("boo-zero-rules-reset"));
    await waitFor(() => expect(fakeApi.setBooZeroRules).toHaveBeenLastCalledWith(null));
    const reset = await screen.findByTestId("boo-zero-rules-default");
    expect(reset).toBeTruthy();
    expect((screen.getByTestId("boo-zero-rules-input") as HTMLTextAreaElement).value).toBe(DEFAULT_RULES);
  });

  it("offers no delete, and other agents have no Brief or Rules", async () => {
    const { user } = renderApp();
    await openBooZeroDetails(user, "profile");
    expect((await screen.findByTestId("boo-zero-not-deletable")).textContent).toContain("cannot be deleted");
    expect(screen.queryByTestId("delete-agent-button")).toBeNull();

    await user.click(screen.getByTestId("agent-item-alice"));
    await user.click(screen.getByTestId("tab-details"));
    expect(screen.queryByTestId("subtab-brief")).toBeNull();
    expect(screen.queryByTestId("subtab-rules")).toBeNull();
    expect(screen.getByTestId("delete-agent-button")).toBeTruthy();
  });
});

describe("What Boo Zero saw", () => {
  it("shows its rules and each mentioned team's parts as sections", async () => {
    seedMessage(booId, "user", "What is @Alpha doing?");
    const run = seedRun(booId, "succeeded");
    seedMessage(booId, "assistant", "Fixing login.", run.id);
    const sections = [
      { title: "Boo Zero's rules", text: "## Boo Zero's rules (set by the user; authoritative)\nBe brief." },
      { title: "@Alpha: brief", text: "### Alpha: brief\nShip the app." },
      { title: "@Alpha: open cards", text: "### Alpha: open cards on the Board\n- #3 [todo] Fix login (@dev)" },
    ];
    backend.chatRunContexts.set(run.id, {
      runId: run.id,
      systemText: null,
      preamble: sections.map((s) => s.text).join("\n\n"),
      files: [],
      sections,
      createdAt: 1,
    });
    const { user } = renderApp();
    await user.click(await screen.findByTestId("boo-zero-link"));
    await user.click(await screen.findByTestId(`chat-run-context-${run.id}`));
    const viewer = await screen.findByTestId("chat-run-context");
    const shown = await within(viewer).findAllByTestId("chat-run-context-section");
    expect(shown.map((s) => s.querySelector("summary")!.textContent)).toEqual(
      sections.map((s) => `${s.title} (${[...s.text].length} characters)`),
    );
    expect(shown[0].querySelector("summary")!.textContent).toBe("Boo Zero's rules (62 characters)");
    expect(shown[2].textContent).toContain("#3 [todo] Fix login (@dev)");
  });
});

describe("@TeamName in Boo Zero's chat", () => {
  it("suggests team names after @, completes with Tab or a click, and other chats get none", async () => {
    seedTeam({ name: "Alpha", memberIds: [] });
    seedTeam({ name: "Alpha Team", memberIds: [] });
    seedTeam({ name: "Beta Squad", memberIds: [] });
    const { user } = renderApp();
    await user.click(await screen.findByTestId("boo-zero-link"));
    const input = (await screen.findByTestId("chat-input")) as HTMLTextAreaElement;

    await user.type(input, "How is @al");
    const list = await screen.findByTestId("team-mention-suggestions");
    expect(within(list).getAllByRole("button").map((b) => b.textContent)).toEqual(["@Alpha", "@Alpha Team"]);
    await user.keyboard("{Tab}");
    expect(input.value).toBe("How is @Alpha ");
    // "Alpha" is complete; "Alpha Team" still continues it.
    expect(within(screen.getByTestId("team-mention-suggestions")).getAllByRole("button")).toHaveLength(1);

    await user.type(input, "and @be");
    await user.click(await screen.findByTestId("team-mention-Beta Squad"));
    expect(input.value).toBe("How is @Alpha and @Beta Squad ");
    expect(screen.queryByTestId("team-mention-suggestions")).toBeNull();
    await user.type(input, "{Enter}");
    await waitFor(() =>
      expect(fakeApi.sendChatMessage).toHaveBeenCalledWith(booId, anyChat, "How is @Alpha and @Beta Squad"),
    );

    await user.click(screen.getByTestId("agent-item-alice"));
    const other = (await screen.findByTestId("chat-input")) as HTMLTextAreaElement;
    await user.type(other, "Hi @al");
    expect(screen.queryByTestId("team-mention-suggestions")).toBeNull();
  });
});
