import { beforeEach, describe, expect, it, vi } from "vitest";
import { act, screen, waitFor, within } from "@testing-library/react";
import { backend, fakeApi, resetBackend, seedAgent, seedChat, seedMessage } from "../../test/fakeApi";
import { openChat, renderApp } from "../../test/helpers";
import { UNDO_MS } from "./ChatList";

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);

let agentId: string;

beforeEach(() => {
  resetBackend();
  localStorage.clear();
  agentId = seedAgent({ name: "Researcher", handle: "researcher", tint: "#14b8a6" }).id;
});

const listed = () =>
  within(screen.getByTestId("chat-list"))
    .queryAllByRole("button", { name: /./ })
    .filter((b) => b.getAttribute("data-testid")?.startsWith("chat-item-"))
    // A pinned chat reads "📌Title": its pin is a drawn icon named "Pinned".
    .map((b) => (b.querySelector('[aria-label="Pinned"]') ? "📌" : "") + b.textContent);
const bubbles = () => screen.queryAllByTestId("chat-message").map((m) => m.textContent);
const title = () => screen.getByTestId("chat-title").textContent;

describe("Chat list", () => {
  it("lists the agent's chats newest first, and switches between them", async () => {
    seedMessage(agentId, "user", "Walrus migration plan");
    const second = seedChat(agentId);
    seedMessage(agentId, "user", "Pelican budget", null, second.id);
    const { user } = renderApp();
    await openChat(user, "researcher");

    await waitFor(() => expect(listed()).toEqual(["Pelican budget", "Walrus migration plan"]));
    expect(title()).toBe("Pelican budget");
    expect(bubbles()).toEqual(["Pelican budget"]);
    await user.click(screen.getByTestId(`chat-item-chat-${agentId}`));
    await waitFor(() => expect(bubbles()).toEqual(["Walrus migration plan"]));
    expect(title()).toBe("Walrus migration plan");
    // The last chat open comes back when the agent is opened again.
    expect(JSON.parse(localStorage.getItem("clawboo.chat.last")!)[agentId]).toBe(`chat-${agentId}`);
  });

  it("starts a new chat from the button, ⌘/Ctrl+Shift+O and /new, and sends there", async () => {
    seedMessage(agentId, "user", "Old topic");
    const { user } = renderApp();
    await openChat(user, "researcher");
    await waitFor(() => expect(listed()).toEqual(["Old topic"]));

    await user.click(screen.getByTestId("chat-new"));
    await waitFor(() => expect(listed()).toEqual(["New chat", "Old topic"]));
    expect(title()).toBe("New chat");
    expect(bubbles()).toEqual([]);
    await user.type(screen.getByTestId("chat-input"), "Fresh topic{Enter}");
    const made = [...backend.moreChats.values()][0].summary.id;
    expect(fakeApi.sendChatMessage).toHaveBeenLastCalledWith(agentId, made, "Fresh topic");
    await waitFor(() => expect(listed()).toEqual(["Fresh topic", "Old topic"]));

    await user.keyboard("{Control>}{Shift>}O{/Shift}{/Control}");
    await waitFor(() => expect(fakeApi.newChat).toHaveBeenCalledTimes(2));
    await waitFor(() => expect(title()).toBe("New chat"));

    await user.type(screen.getByTestId("chat-input"), "/new{Enter}");
    await waitFor(() => expect(backend.moreChats.size).toBe(3));
    const viaCommand = [...backend.moreChats.values()][2].summary.id;
    await waitFor(() => expect(screen.getByTestId(`chat-item-${viaCommand}`).getAttribute("aria-current")).toBe("page"));
  });

  it("renames a chat in place; Escape cancels", async () => {
    seedMessage(agentId, "user", "Walrus migration plan");
    const { user } = renderApp();
    await openChat(user, "researcher");
    const menu = await screen.findByTestId(`chat-menu-chat-${agentId}`);

    await user.click(menu);
    await user.click(screen.getByTestId("chat-rename"));
    await user.clear(screen.getByTestId("chat-rename-input"));
    await user.type(screen.getByTestId("chat-rename-input"), "Walrus{Enter}");
    expect(fakeApi.renameChat).toHaveBeenCalledWith(`chat-${agentId}`, "Walrus");
    await waitFor(() => expect(title()).toBe("Walrus"));

    await user.click(screen.getByTestId(`chat-menu-chat-${agentId}`));
    await user.click(screen.getByTestId("chat-rename"));
    await user.type(screen.getByTestId("chat-rename-input"), " and more{Escape}");
    expect(fakeApi.renameChat).toHaveBeenCalledTimes(1);
    expect(title()).toBe("Walrus");
  });

  it("deletes a chat with Undo for a few seconds, opening the next one meanwhile", async () => {
    seedMessage(agentId, "user", "Keep me");
    const doomed = seedChat(agentId);
    seedMessage(agentId, "user", "Delete me", null, doomed.id);
    const { user } = renderApp();
    await openChat(user, "researcher");
    await waitFor(() => expect(listed()).toEqual(["Delete me", "Keep me"]));

    await user.click(screen.getByTestId(`chat-menu-${doomed.id}`));
    await user.click(screen.getByTestId("chat-delete"));
    await screen.findByTestId("chat-deleted-toast");
    await waitFor(() => expect(listed()).toEqual(["Keep me"]));
    expect(bubbles()).toEqual(["Keep me"]);

    await user.click(screen.getByTestId("chat-undo"));
    expect(fakeApi.restoreChat).toHaveBeenCalledWith(doomed.id);
    await waitFor(() => expect(listed()).toEqual(["Delete me", "Keep me"]));
    await waitFor(() => expect(bubbles()).toEqual(["Delete me"]));
    expect(screen.queryByTestId("chat-deleted-toast")).toBeNull();

    // Deleted again, the offer goes after UNDO_MS.
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      await user.click(screen.getByTestId(`chat-menu-${doomed.id}`));
      await user.click(screen.getByTestId("chat-delete"));
      await screen.findByTestId("chat-deleted-toast");
      await act(async () => void vi.advanceTimersByTime(UNDO_MS + 100));
      expect(screen.queryByTestId("chat-deleted-toast")).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  it("pins a chat on top and archives one into its own section", async () => {
    seedMessage(agentId, "user", "Older");
    const newer = seedChat(agentId);
    seedMessage(agentId, "user", "Newer", null, newer.id);
    const { user } = renderApp();
    await openChat(user, "researcher");
    await waitFor(() => expect(listed()).toEqual(["Newer", "Older"]));

    await user.click(screen.getByTestId(`chat-menu-chat-${agentId}`));
    await user.click(screen.getByTestId("chat-pin"));
    await waitFor(() => expect(listed()).toEqual(["📌Older", "Newer"]));

    await user.click(screen.getByTestId(`chat-menu-${newer.id}`));
    await user.click(screen.getByTestId("chat-archive"));
    await waitFor(() => expect(listed()).toEqual(["📌Older"]));
    await user.click(screen.getByTestId("chat-archived-toggle"));
    expect(listed()).toEqual(["📌Older", "Newer"]);
  });
});
