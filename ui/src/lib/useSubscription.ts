import { useEffect } from "react";
import { listen, type EventName, type EventPayload, type Unlisten } from "../api";

/**
 * Listens to a backend event for the lifetime of the component. The subscription is made once:
 * the handler should reach fresh state through something stable (the query client, a ref).
 * A subscription that fails is reported to `onFailure` (while still mounted).
 */
export function useSubscription<K extends EventName>(
  name: K,
  handler: (payload: EventPayload<K>) => void,
  onFailure: (e: unknown) => void = () => {},
) {
  useEffect(() => {
    let disposed = false;
    let unlisten: Unlisten | undefined;
    listen(name, handler).then(
      (fn) => {
        if (disposed) fn();
        else unlisten = fn;
      },
      (e: unknown) => {
        if (!disposed) onFailure(e);
      },
    );
    return () => {
      disposed = true;
      unlisten?.();
    };
    // Set up once; handlers reach fresh state through the query client or a ref.
  }, []);
}
