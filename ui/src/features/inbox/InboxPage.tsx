import { useEffect, useMemo, useState } from "react";
import type { Agent, AttentionRequest, Team } from "../../bindings";
import { useOpenRequests, useRequestHistory } from "../attention/attentionQueries";
import { isApproval } from "../attention/attention";
import { ErrorWithCode } from "../../components/ErrorMessage";
import { AuditTable } from "./AuditTable";
import { FocusedRequest, RequestList, type InboxFocus } from "./RequestList";

type Tab = "open" | "history" | "audit";

type Props = {
  agents: Agent[];
  teams: Team[];
  /** The request to show on arrival (picked in the tray, or its notification). */
  focus: InboxFocus | null;
  onOpenSource: (request: AttentionRequest) => void;
};

/** Relative times ("3 min ago", "denied in 23 h") are read again this often. */
const CLOCK_TICK_MS = 30_000;

function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), CLOCK_TICK_MS);
    return () => clearInterval(timer);
  }, []);
  return now;
}

/** What needs the user: agents' questions and approvals, answered here and sent back where they
 *  came from; every request ever made, and the audit of who did what. */
export function InboxPage({ agents, teams, focus: asked, onOpenSource }: Props) {
  const [tab, setTab] = useState<Tab>("open");
  // App remounts the page for each new request to show, so this starts from it.
  const [focus, setFocus] = useState<InboxFocus | null>(asked);
  const open = useOpenRequests();
  const now = useNow();
  const openIds = useMemo(() => new Set((open.data ?? []).map((r) => r.id)), [open.data]);
  const questions = open.data?.filter((r) => !isApproval(r)).length ?? 0;
  const approvals = (open.data?.length ?? 0) - questions;

  const showRequest = (id: string) => {
    setFocus({ id, at: Date.now() });
    setTab(openIds.has(id) ? "open" : "history");
  };

  const listProps = { now, agents, teams, onOpenSource };
  const tabs: { value: Tab; label: string }[] = [
    { value: "open", label: open.data?.length ? `Open (${open.data.length})` : "Open" },
    { value: "history", label: "History" },
    { value: "audit", label: "Audit" },
  ];

  return (
    <div className="inbox-page" data-testid="inbox-page">
      <header className="inbox-page__header">
        <h1 className="page-title">Inbox</h1>
        <p className="muted">
          Questions and approvals from your agents. An answer goes back where the request came from; the tray shows
          what waits here.
        </p>
      </header>
      <div className="tabs" role="tablist" aria-label="Inbox sections">
        {tabs.map(({ value, label }) => (
          <button
            key={value}
            type="button"
            role="tab"
            aria-selected={tab === value}
            className={`tab ${tab === value ? "is-active" : ""}`}
            onClick={() => setTab(value)}
            data-testid={`inbox-tab-${value}`}
          >
            {label}
          </button>
        ))}
      </div>
      <div className="inbox-page__body">
        {tab === "open" && (
          <>
            {focus && open.isSuccess && !openIds.has(focus.id) && <FocusedRequest focus={focus} {...listProps} />}
            <ErrorWithCode error={open.error} />
            {open.isPending && <p className="muted">Loading…</p>}
            {open.data && open.data.length > 0 && (
              <p className="inbox-page__summary muted" data-testid="inbox-summary">
                {plural(questions, "question")} · {plural(approvals, "approval")} waiting, newest first
              </p>
            )}
            {open.data?.length === 0 && (
              <p className="inbox-empty" data-testid="inbox-empty">
                Nothing needs you. When an agent asks you something or needs an approval, it shows here and in the tray.
              </p>
            )}
            {open.data && open.data.length > 0 && (
              <RequestList requests={open.data} focus={focus} testId="inbox-open-list" {...listProps} />
            )}
          </>
        )}
        {tab === "history" && <HistoryTab focus={focus} {...listProps} />}
        {tab === "audit" && <AuditTable onShowRequest={showRequest} />}
      </div>
    </div>
  );
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

type HistoryProps = {
  focus: InboxFocus | null;
  now: number;
  agents: Agent[];
  teams: Team[];
  onOpenSource: (request: AttentionRequest) => void;
};

/** Every request, open or closed, with what became of it; older pages on demand. */
function HistoryTab({ focus, ...listProps }: HistoryProps) {
  const history = useRequestHistory();
  const requests = useMemo(() => history.data?.pages.flat() ?? [], [history.data]);
  const holdsFocus = focus !== null && requests.some((r) => r.id === focus.id);

  return (
    <section className="inbox-history" data-testid="inbox-history">
      {focus && history.isSuccess && !holdsFocus && <FocusedRequest focus={focus} {...listProps} />}
      <ErrorWithCode error={history.error} />
      {history.isPending && <p className="muted">Loading…</p>}
      {history.isSuccess && requests.length === 0 && (
        <p className="inbox-empty" data-testid="inbox-history-empty">
          No requests yet. Every question and approval your agents raise is kept here with its answer.
        </p>
      )}
      {requests.length > 0 && <RequestList requests={requests} focus={focus} testId="inbox-history-list" {...listProps} />}
      {history.hasNextPage && (
        <button
          type="button"
          className="button button--small inbox-more"
          onClick={() => void history.fetchNextPage()}
          disabled={history.isFetchingNextPage}
        >
          {history.isFetchingNextPage ? "Loading…" : "Show older"}
        </button>
      )}
    </section>
  );
}
