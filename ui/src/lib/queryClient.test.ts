import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { InfiniteQueryObserver, QueryObserver } from "@tanstack/react-query";
import { CLOSED_PAGE_GC_MS, createQueryClient } from "./queryClient";
import { chatKeys } from "../features/chat/chatQueries";
import { roomKeys } from "../features/team-chat/roomQueries";

// Idle memory (#28): a long chat's or a room's pages must not stay in the web process for five
// minutes after the page showing them closed.
describe("the query cache after a page closes", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  /** Shows `key` through an observer (as a mounted page does) until the returned close is called. */
  async function shown(client: ReturnType<typeof createQueryClient>, key: readonly unknown[], infinite: boolean) {
    const observer = infinite
      ? new InfiniteQueryObserver(client, {
          queryKey: key,
          queryFn: async () => ({ messages: ["a message"], hasOlder: false }),
          initialPageParam: null,
          getNextPageParam: () => undefined,
        })
      : new QueryObserver(client, { queryKey: key, queryFn: async () => ["a row"] });
    const close = observer.subscribe(() => {});
    await vi.advanceTimersByTimeAsync(0);
    expect(client.getQueryData(key)).toBeDefined();
    return close;
  }

  it("drops a chat's and a room's pages soon after no page shows them, and keeps the lists", async () => {
    const client = createQueryClient(() => {});
    const closeChat = await shown(client, chatKeys.pages("agent-1", "chat-1"), true);
    const closeRoom = await shown(client, roomKeys.pages("room-1"), true);
    const closeRequests = await shown(client, roomKeys.requests("run-1"), false);
    const closeList = await shown(client, chatKeys.list("agent-1"), false);
    [closeChat, closeRoom, closeRequests, closeList].forEach((close) => close());

    await vi.advanceTimersByTimeAsync(CLOSED_PAGE_GC_MS + 1);
    expect(client.getQueryData(chatKeys.pages("agent-1", "chat-1"))).toBeUndefined();
    expect(client.getQueryData(roomKeys.pages("room-1"))).toBeUndefined();
    expect(client.getQueryData(roomKeys.requests("run-1"))).toBeUndefined();
    expect(client.getQueryData(chatKeys.list("agent-1")), "the chat list keeps TanStack's default").toBeDefined();
    client.clear();
  });

  it("keeps a chat's pages while its page shows them", async () => {
    const client = createQueryClient(() => {});
    const close = await shown(client, chatKeys.pages("agent-1", "chat-1"), true);
    await vi.advanceTimersByTimeAsync(CLOSED_PAGE_GC_MS * 10);
    expect(client.getQueryData(chatKeys.pages("agent-1", "chat-1"))).toBeDefined();
    close();
    client.clear();
  });
});
