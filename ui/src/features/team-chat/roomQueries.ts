// Team chat's server state: a room's messages a page at a time (newest first), its runs, the
// team's peer room, and what a run was given. Backend events update the cached pages in place;
// nothing reloads a whole room per event.
import {
  useInfiniteQuery,
  useMutation,
  useQuery,
  useQueryClient,
  type InfiniteData,
  type QueryClient,
} from "@tanstack/react-query";
import { call } from "../../api";
import type { PeerPage, PeerPost, RoomMessage, RoomPage, RunSummary } from "../../bindings";
import { useSubscription } from "../../lib/useSubscription";

export const PAGE_SIZE = 50;
/** The newest runs of a room the Activity card lists. */
export const RUNS_SHOWN = 100;

export const roomKeys = {
  pages: (roomId: string) => ["roomPages", roomId] as const,
  runs: (roomId: string) => ["roomRuns", roomId] as const,
  peer: (teamId: string) => ["peerPosts", teamId] as const,
  context: (runId: string) => ["runContext", runId] as const,
  requests: (runId: string) => ["runRequests", runId] as const,
};

type Pages = InfiniteData<RoomPage, unknown>;
type PeerPages = InfiniteData<PeerPage, unknown>;

/** The room's messages, newest page first; older pages load on demand. */
export function useRoomMessages(roomId: string) {
  return useInfiniteQuery({
    queryKey: roomKeys.pages(roomId),
    queryFn: ({ pageParam }) => call("roomPage", roomId, pageParam, PAGE_SIZE),
    initialPageParam: null as number | null,
    getNextPageParam: (page: RoomPage) => (page.hasOlder && page.messages.length ? page.messages[0].seq : undefined),
    staleTime: Infinity,
  });
}

/** Oldest first, across the loaded pages. */
export function flattenPages(data: Pages | undefined): RoomMessage[] {
  if (!data) return [];
  return data.pages
    .slice()
    .reverse()
    .flatMap((p) => p.messages);
}

/** A room's loaded messages (oldest first) and its runs by id, as made from `source`. */
export type RoomView = { source: Pages | undefined; messages: RoomMessage[]; runs: Map<string, RunSummary> };

/**
 * The view of `data`, made from `previous` when an event only appended messages to the newest page
 * (the common case): the new messages are added, nothing older is gone over again. Anything else
 * (an older page loaded, a message replaced, a run changed) makes it whole.
 */
export function nextRoomView(previous: RoomView | undefined, data: Pages | undefined): RoomView {
  if (previous && data && previous.source && previous.source !== data) {
    const before = previous.source;
    const grown =
      data.pages.length === before.pages.length &&
      data.pages.length > 0 &&
      data.pages.every((page, i) => i === 0 || page === before.pages[i]) &&
      data.pages[0].runs === before.pages[0].runs &&
      isPrefix(before.pages[0].messages, data.pages[0].messages);
    if (grown) {
      const added = data.pages[0].messages.slice(before.pages[0].messages.length);
      return { source: data, messages: previous.messages.concat(added), runs: previous.runs };
    }
  }
  if (previous && previous.source === data) return previous;
  const runs = new Map<string, RunSummary>();
  for (const page of data?.pages ?? []) for (const run of page.runs) runs.set(run.id, run);
  return { source: data, messages: flattenPages(data), runs };
}

/** Whether `next` starts with every message of `old`, the very same objects. */
function isPrefix(old: RoomMessage[], next: RoomMessage[]): boolean {
  if (old === next) return true;
  if (next.length < old.length) return false;
  for (let i = 0; i < old.length; i++) if (next[i] !== old[i]) return false;
  return true;
}

export function useRoomRuns(roomId: string) {
  return useQuery({
    queryKey: roomKeys.runs(roomId),
    queryFn: () => call("roomRuns", roomId, RUNS_SHOWN),
    staleTime: Infinity,
  });
}

export function usePeerPosts(teamId: string) {
  return useInfiniteQuery({
    queryKey: roomKeys.peer(teamId),
    queryFn: ({ pageParam }) => call("peerPosts", teamId, pageParam, PAGE_SIZE),
    initialPageParam: null as number | null,
    getNextPageParam: (page: PeerPage) => (page.hasOlder && page.posts.length ? page.posts[0].seq : undefined),
  });
}

export function useRunContext(runId: string) {
  return useQuery({ queryKey: roomKeys.context(runId), queryFn: () => call("runContext", runId), staleTime: Infinity });
}

/** Fetched each time the viewer opens: a run still going adds requests. */
export function useRunRequests(runId: string) {
  return useQuery({ queryKey: roomKeys.requests(runId), queryFn: () => call("runRequests", runId), staleTime: 0 });
}

export function useSendTeamMessage(roomId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: (text: string) => call("sendTeamMessage", roomId, text),
    onSuccess: (outcome) => upsertMessage(client, outcome.message),
  });
}

export function useStopTeam(teamId: string) {
  return useMutation({ mutationFn: () => call("stopTeam", teamId) });
}

/** Puts a message in its room's cached pages: replaced where it is, else appended to the newest
 *  (in its place by seq; a message newer than all is simply added at the end). */
export function upsertMessage(client: QueryClient, message: RoomMessage) {
  client.setQueryData<Pages>(roomKeys.pages(message.roomId), (data) => {
    if (!data) return data;
    // The common case, a new message after the newest: one look at the newest page's end.
    const newest = data.pages[0];
    const last = newest?.messages[newest.messages.length - 1];
    if (newest && (!last || last.seq < message.seq)) {
      const pages = data.pages.slice();
      pages[0] = { ...newest, messages: [...newest.messages, message] };
      return { ...data, pages };
    }
    let found = false;
    const pages = data.pages.map((page) => {
      const at = page.messages.findIndex((m) => m.id === message.id);
      if (at < 0) return page;
      found = true;
      const messages = page.messages.slice();
      messages[at] = message;
      return { ...page, messages };
    });
    if (!found && pages.length > 0) {
      const newest = pages[0];
      const messages = [...newest.messages, message].sort((a, b) => a.seq - b.seq);
      pages[0] = { ...newest, messages };
    }
    return { ...data, pages };
  });
}

function upsertRun(client: QueryClient, roomId: string, run: RunSummary) {
  client.setQueryData<RunSummary[]>(roomKeys.runs(roomId), (runs) => {
    if (!runs) return runs;
    const at = runs.findIndex((r) => r.id === run.id);
    if (at >= 0) return runs.map((r) => (r.id === run.id ? run : r));
    return [...runs, run].slice(-RUNS_SHOWN);
  });
}

function addPost(client: QueryClient, post: PeerPost) {
  client.setQueryData<PeerPages>(roomKeys.peer(post.teamId), (data) => {
    if (!data || data.pages.length === 0) return data;
    if (data.pages.some((p) => p.posts.some((q) => q.id === post.id))) return data;
    const [newest, ...rest] = data.pages;
    return { ...data, pages: [{ ...newest, posts: [...newest.posts, post] }, ...rest] };
  });
}

/** Keeps cached rooms, their runs and peer rooms in step with the backend's events. */
export function useRoomEvents() {
  const client = useQueryClient();
  useSubscription("roomMessageAdded", ({ message }) => upsertMessage(client, message));
  useSubscription("roomRunChanged", ({ roomId, run }) => upsertRun(client, roomId, run));
  useSubscription("peerPostAdded", ({ post }) => addPost(client, post));
}

/** After a lag (events may have been dropped): each room's runs and only its newest page are
 *  read again. */
export function refetchRooms(client: QueryClient) {
  void client.invalidateQueries({ queryKey: ["roomRuns"] });
  void client.resetQueries({ queryKey: ["roomPages"] });
  // A lag may have dropped peerPostAdded too.
  void client.resetQueries({ queryKey: ["peerPosts"] });
}
