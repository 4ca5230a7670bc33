// The backend's events in tests: what the app listens to, and `emit` for a test (or a fake
// command) to send one, as the engine would.
import { vi } from "vitest";
import type { EventName, EventPayload, Unlisten } from "../api";

type Handler = (payload: never) => void;

const handlers = new Map<EventName, Set<Handler>>();

function handlersOf(name: EventName): Set<Handler> {
  let set = handlers.get(name);
  if (!set) handlers.set(name, (set = new Set()));
  return set;
}

/** Stands in for api's `listen`. */
export const fakeListen = vi.fn(
  async <K extends EventName>(name: K, handler: (payload: EventPayload<K>) => void): Promise<Unlisten> => {
    const set = handlersOf(name);
    set.add(handler as Handler);
    return () => void set.delete(handler as Handler);
  },
);

/** Delivers an event to everything listening to it now. */
export function emit<K extends EventName>(name: K, payload: EventPayload<K>) {
  for (const handler of [...handlersOf(name)]) (handler as (payload: EventPayload<K>) => void)(payload);
}

/** How many listen to the event (a test waits for the app to subscribe). */
export function listenerCount(name: EventName): number {
  return handlersOf(name).size;
}

/** Called by resetBackend: what listened before a test is gone. */
export function resetEvents() {
  handlers.clear();
  fakeListen.mockClear();
}
