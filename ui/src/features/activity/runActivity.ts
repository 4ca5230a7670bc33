// What runs are doing, as it happens. Run events arrive at high rates (up to
// thousands a second), so they are never put through the query cache: they are
// appended to a per-run record list here, folded into a small view model, and
// subscribers are told about changes at most once per animation frame.
import { createContext, useCallback, useContext, useEffect, useState, useSyncExternalStore } from "react";
import { call } from "../../api";
import type { RunEventRecord } from "../../bindings";
import { EMPTY_ACTIVITY, RunFold, type RunActivity } from "./runFold";

export { EMPTY_ACTIVITY, summarize } from "./runFold";
export type { ActivityItem, PermissionItem, RunActivity, ToolCallItem, Usage } from "./runFold";

type RunState = { records: RunEventRecord[]; seqs: Set<number>; fold: RunFold; snapshot: RunActivity | undefined };

const nextFrame = (flush: () => void) => {
  if (typeof requestAnimationFrame === "function") requestAnimationFrame(flush);
  else setTimeout(flush, 16);
};

export class RunActivityStore {
  private runs = new Map<string, RunState>();
  private listeners = new Map<string, Set<() => void>>();
  private dirty = new Set<string>();
  private scheduled = false;
  private inflight = new Map<string, Promise<void>>();

  /**
   * @param schedule runs `flush` later (default: next animation frame)
   * @param maxRuns runs kept in memory; the oldest one nobody watches is dropped first
   */
  constructor(
    private readonly schedule: (flush: () => void) => void = nextFrame,
    private readonly maxRuns = 30,
  ) {}

  get = (runId: string): RunActivity | undefined => this.runs.get(runId)?.snapshot;

  subscribe(runId: string, listener: () => void): () => void {
    let set = this.listeners.get(runId);
    if (!set) this.listeners.set(runId, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(runId);
    };
  }

  /** A live record. Returns true when it is the first thing heard of its run. */
  add(record: RunEventRecord): boolean {
    const isNew = !this.runs.has(record.runId);
    this.merge(record.runId, [record]);
    return isNew;
  }

  /** Adds records of one run, skipping `seq`s already known. */
  merge(runId: string, records: readonly RunEventRecord[]): void {
    const state = this.runs.get(runId) ?? this.create(runId);
    const fresh: RunEventRecord[] = [];
    for (const r of records) {
      if (state.seqs.has(r.seq)) continue;
      state.seqs.add(r.seq);
      fresh.push(r);
    }
    if (fresh.length === 0) return;
    fresh.sort((a, b) => a.seq - b.seq);
    if (fresh[0].seq > state.fold.lastSeq) {
      // The common case: live records in order. Fold just the new ones.
      for (const r of fresh) {
        state.records.push(r);
        state.fold.apply(r);
      }
    } else {
      // Earlier records (a backfill): refold everything in order.
      state.records = [...state.records, ...fresh].sort((a, b) => a.seq - b.seq);
      state.fold = new RunFold();
      state.records.forEach((r) => state.fold.apply(r));
    }
    this.markDirty(runId);
  }

  /**
   * True when records are missing: seqs start at 1, so fewer records than the highest seq
   * means some were dropped (the event stream lagged) or not fetched yet.
   */
  hasGaps(runId: string): boolean {
    const state = this.runs.get(runId);
    return !!state && state.records.length < state.fold.lastSeq;
  }

  /**
   * For a run known to be over: true unless every record up to its `finished` one is here.
   * A run that ends within milliseconds can be over before its first backfill finds anything
   * stored, and its live records may all be missing, which leaves no gap to notice.
   */
  isIncomplete(runId: string): boolean {
    const state = this.runs.get(runId);
    return !state || state.fold.finished === null || this.hasGaps(runId);
  }

  /** After the event stream lagged: refetch the runs someone is looking at. */
  resync(): void {
    for (const runId of this.listeners.keys()) this.backfill(runId).catch(() => {});
  }

  /** Fetches what the run emitted before we were listening; concurrent calls share one fetch. */
  backfill(runId: string, fetch: (runId: string) => Promise<RunEventRecord[]> = (id) => call("runActivity", id)): Promise<void> {
    const pending = this.inflight.get(runId);
    if (pending) return pending;
    const promise = fetch(runId)
      .then((records) => this.merge(runId, records))
      .finally(() => this.inflight.delete(runId));
    this.inflight.set(runId, promise);
    return promise;
  }

  /**
   * For a run now known to be over: once any fetch in flight is done (it may have read the
   * store before the run's last records were written), fetches again if still incomplete.
   */
  async completeFinished(
    runId: string,
    fetch: (runId: string) => Promise<RunEventRecord[]> = (id) => call("runActivity", id),
  ): Promise<void> {
    await this.inflight.get(runId)?.catch(() => {});
    if (this.isIncomplete(runId)) await this.backfill(runId, fetch);
  }

  /** Publishes pending changes to subscribers now. */
  flush = (): void => {
    this.scheduled = false;
    const runIds = [...this.dirty];
    this.dirty.clear();
    for (const runId of runIds) {
      const state = this.runs.get(runId);
      if (!state) continue;
      state.snapshot = state.fold.snapshot(state.snapshot);
      this.listeners.get(runId)?.forEach((l) => l());
    }
  };

  private markDirty(runId: string) {
    this.dirty.add(runId);
    if (this.scheduled) return;
    this.scheduled = true;
    this.schedule(this.flush);
  }

  private create(runId: string): RunState {
    const state: RunState = { records: [], seqs: new Set(), fold: new RunFold(), snapshot: undefined };
    this.runs.set(runId, state);
    if (this.runs.size > this.maxRuns) {
      // Never a run still going: its early records may not be fetchable yet.
      const idle = [...this.runs.entries()].find(
        ([id, s]) => id !== runId && !this.listeners.has(id) && s.fold.finished !== null,
      )?.[0];
      if (idle) this.runs.delete(idle);
    }
    return state;
  }
}

export const RunActivityContext = createContext<RunActivityStore | null>(null);

export function useRunActivityStore(): RunActivityStore {
  const store = useContext(RunActivityContext);
  if (!store) throw new Error("RunActivityContext is missing");
  return store;
}

/**
 * A run's activity, live. On mount it backfills what happened before (once),
 * merged by `seq` with whatever arrives meanwhile. Once `settled` (the run is
 * over), it fetches again unless it holds every record up to the run's end.
 */
export function useRunActivity(runId: string | null, settled = false): { activity: RunActivity; backfillError: unknown } {
  const store = useRunActivityStore();
  const [backfillError, setBackfillError] = useState<unknown>(null);

  useEffect(() => {
    setBackfillError(null);
    if (!runId) return;
    let live = true;
    store.backfill(runId).catch((e: unknown) => {
      if (live) setBackfillError(e);
    });
    return () => {
      live = false;
    };
  }, [store, runId]);

  useEffect(() => {
    if (runId && settled) store.completeFinished(runId).catch(() => {});
  }, [store, runId, settled]);

  const subscribe = useCallback(
    (listener: () => void) => (runId ? store.subscribe(runId, listener) : () => {}),
    [store, runId],
  );
  const activity = useSyncExternalStore(subscribe, () => (runId ? store.get(runId) : undefined));
  return { activity: activity ?? EMPTY_ACTIVITY, backfillError };
}
