import { beforeEach, describe, expect, it, vi } from "vitest";
import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);
import { fakeApi, resetBackend, seedSearch } from "../../test/fakeApi";
import type { Found } from "../../bindings";
import { SearchPalette } from "./SearchPalette";
import { MAX_RECENT, recentItems } from "./paletteItems";

const FOUND: Found[] = [
  { kind: "agent", id: "a-ada", name: "Ada", detail: "@ada", parentId: null },
  { kind: "room", id: "r-ops", name: "#ops", detail: "Launch", parentId: "t-launch" },
  {
    kind: "message",
    messageId: "m-42",
    thread: { kind: "chat", id: "c-ada", agentId: "a-ada", teamId: null, title: "Ada" },
    author: "You",
    createdAt: 1,
    snippet: [
      { text: "where is the ", hit: false },
      { text: "ada", hit: true },
      { text: " invoice", hit: false },
    ],
    score: -1,
  },
];

function renderPalette() {
  const onClose = vi.fn();
  const onNavigate = vi.fn();
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <SearchPalette onClose={onClose} onNavigate={onNavigate} />
    </QueryClientProvider>,
  );
  return { onClose, onNavigate, user: userEvent.setup() };
}

describe("search everything", () => {
  beforeEach(() => {
    resetBackend();
    localStorage.clear();
    seedSearch(FOUND);
  });

  it("searches as you type; arrows move, Enter opens the chosen one", async () => {
    const { user, onNavigate, onClose } = renderPalette();
    const input = screen.getByTestId("search-input");
    expect(document.activeElement).toBe(input);
    await user.type(input, "ada");
    await waitFor(() => expect(screen.getAllByTestId("search-item")).toHaveLength(2));
    expect(fakeApi.searchEverything).toHaveBeenLastCalledWith("ada");
    const rows = screen.getAllByTestId("search-item");
    expect(rows[0].getAttribute("aria-selected")).toBe("true");
    expect(rows[1].querySelector("mark")?.textContent).toBe("ada");
    await user.keyboard("{ArrowDown}");
    expect(screen.getAllByTestId("search-item")[1].getAttribute("aria-selected")).toBe("true");
    await user.keyboard("{ArrowDown}"); // wraps around
    expect(screen.getAllByTestId("search-item")[0].getAttribute("aria-selected")).toBe("true");
    await user.keyboard("{ArrowUp}{Enter}");
    expect(onNavigate).toHaveBeenCalledWith({ page: "agent", agentId: "a-ada", tab: "chat", chatId: "c-ada" });
    expect(onClose).toHaveBeenCalled();
    expect(recentItems()[0]).toMatchObject({ key: "message:m-42", messageId: "m-42" });
  });

  it("a room opens in its team; Esc closes without opening anything", async () => {
    const { user, onNavigate, onClose } = renderPalette();
    await user.type(screen.getByTestId("search-input"), "ops");
    await waitFor(() => expect(screen.getAllByTestId("search-item")).toHaveLength(1));
    await user.keyboard("{Enter}");
    expect(onNavigate).toHaveBeenCalledWith({ page: "team", teamId: "t-launch", roomId: "r-ops" });
    onNavigate.mockClear();
    onClose.mockClear();
    const again = renderPalette();
    await again.user.keyboard("{Escape}");
    expect(again.onClose).toHaveBeenCalled();
    expect(again.onNavigate).not.toHaveBeenCalled();
  });

  it("shows the recent items when nothing is typed, and any text is a query", async () => {
    localStorage.setItem(
      "clawboo.search.recent",
      JSON.stringify([{ key: "team:t", kind: "team", title: "Launch", detail: "Team", route: { page: "team", teamId: "t", roomId: null } }]),
    );
    const { user, onNavigate } = renderPalette();
    expect(screen.getByText("Recent")).toBeTruthy();
    expect(screen.getAllByTestId("search-item")).toHaveLength(1);
    await user.type(screen.getByTestId("search-input"), '"NEAR(* -x:');
    await waitFor(() => expect(screen.getByTestId("search-empty").textContent).toBe("Nothing matches."));
    await user.clear(screen.getByTestId("search-input"));
    await user.keyboard("{Enter}");
    expect(onNavigate).toHaveBeenCalledWith({ page: "team", teamId: "t", roomId: null });
    expect(MAX_RECENT).toBeGreaterThan(1);
  });
});
