import { useCallback, useState, useSyncExternalStore } from "react";
import { useRunActivityStore, type ToolCallItem } from "../activity/runActivity";
import { ToolCallRow } from "../activity/ToolCallRow";

/**
 * A reply's tool calls, in the conversation, folded to one line ("Used 3 tools: read_file,
 * grep…") that opens to the calls themselves, as Claude shows them. Runs seen in this window are
 * known already; an older reply's steps are fetched only when asked for.
 */
export function ReplySteps({ runId }: { runId: string }) {
  const store = useRunActivityStore();
  const [open, setOpen] = useState(false);
  const [loading, setLoading] = useState(false);
  const [failed, setFailed] = useState(false);
  const subscribe = useCallback((listener: () => void) => store.subscribe(runId, listener), [store, runId]);
  const activity = useSyncExternalStore(subscribe, () => store.get(runId));
  const tools = (activity?.items ?? []).filter((i): i is ToolCallItem => i.kind === "tool");
  // Known and without tool calls: nothing to show.
  if (activity && tools.length === 0) return null;

  const toggle = () => {
    const opening = !open;
    setOpen(opening);
    if (opening && (!activity || store.isIncomplete(runId))) {
      setLoading(true);
      setFailed(false);
      store
        .backfill(runId)
        .catch(() => setFailed(true))
        .finally(() => setLoading(false));
    }
  };

  const names = [...new Set(tools.map((t) => t.name))];
  const label = activity
    ? `Used ${tools.length} tool${tools.length === 1 ? "" : "s"}: ${names.slice(0, 3).join(", ")}${names.length > 3 ? "…" : ""}`
    : "Tool calls";
  return (
    <div className={`reply-steps ${activity ? "" : "reply-steps--unknown"}`} data-testid={`reply-steps-${runId}`}>
      <button type="button" className="reply-steps__toggle" aria-expanded={open} onClick={toggle}>
        <span aria-hidden="true">{open ? "▾" : "▸"}</span> {label}
      </button>
      {open && (
        <div className="reply-steps__list">
          {loading && <p className="muted">Loading…</p>}
          {failed && <p className="muted">The steps could not be read.</p>}
          {!loading && activity && tools.length === 0 && <p className="muted">No tool calls in this reply.</p>}
          {tools.length > 0 && (
            <ul className="activity__items">
              {tools.map((call) => (
                <ToolCallRow key={call.key} call={call} />
              ))}
            </ul>
          )}
        </div>
      )}
    </div>
  );
}
