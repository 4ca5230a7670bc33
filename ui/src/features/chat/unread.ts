// Unread marks: which conversations and rooms got replies since the user last read them (kept
// by the engine per conversation and room, so they survive a restart). The open chat or room
// marks itself read on opening and on every new message while it is open.
import { useEffect, useMemo } from "react";
import { QueryClient, useQuery } from "@tanstack/react-query";
import { call } from "../../api";
import type { ReadThreadKind, UnreadThread } from "../../bindings";

export const unreadKeys = { all: ["unreadThreads"] as const };

/** Every thread with unread replies; events keep it current. */
export function useUnreadThreads() {
  return useQuery({ queryKey: unreadKeys.all, queryFn: () => call("unreadThreads"), staleTime: Infinity });
}

/** Reads the unread marks again (a reply came, a thread was read, events were lost). */
export function refetchUnread(client: QueryClient) {
  void client.invalidateQueries({ queryKey: unreadKeys.all });
}

export type UnreadCounts = {
  byAgent: Map<string, number>;
  byTeam: Map<string, number>;
  byRoom: Map<string, number>;
  total: number;
};

/** Unread replies summed per agent (its one-to-one chats), per team (its rooms) and per room. */
export function countUnread(threads: UnreadThread[] | undefined): UnreadCounts {
  const counts: UnreadCounts = { byAgent: new Map(), byTeam: new Map(), byRoom: new Map(), total: 0 };
  const add = (map: Map<string, number>, key: string | null, n: number) => {
    if (key) map.set(key, (map.get(key) ?? 0) + n);
  };
  for (const t of threads ?? []) {
    add(counts.byAgent, t.agentId, t.count);
    add(counts.byTeam, t.teamId, t.count);
    if (t.kind === "room") add(counts.byRoom, t.id, t.count);
    counts.total += t.count;
  }
  return counts;
}

export function useUnreadCounts(): UnreadCounts {
  const { data } = useUnreadThreads();
  return useMemo(() => countUnread(data), [data]);
}

/**
 * Marks the open thread read up to `newestSeq`: when it opens and whenever a message arrives
 * while it is open. `id` null: no thread yet (a chat before its first message).
 */
export function useMarkRead(kind: ReadThreadKind, id: string | null | undefined, newestSeq: number | undefined) {
  useEffect(() => {
    if (!id || newestSeq === undefined) return;
    // A failure only leaves the dot up; the next message or visit tries again.
    call("markThreadRead", kind, id).catch(() => undefined);
  }, [kind, id, newestSeq]);
}
