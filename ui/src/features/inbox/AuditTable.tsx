import { useMemo } from "react";
import { useAuditLog } from "../attention/attentionQueries";
import { ACTION_LABELS, actorLabel } from "../attention/attention";
import { ErrorWithCode } from "../../components/ErrorMessage";

/** Every question, answer, decision and grant, newest first: who did what, when, to which request. */
export function AuditTable({ onShowRequest }: { onShowRequest: (requestId: string) => void }) {
  const audit = useAuditLog();
  const entries = useMemo(() => audit.data?.pages.flat() ?? [], [audit.data]);

  return (
    <section className="inbox-audit" data-testid="inbox-audit">
      <ErrorWithCode error={audit.error} />
      {audit.isPending && <p className="muted">Loading…</p>}
      {audit.isSuccess && entries.length === 0 && (
        <p className="inbox-empty muted" data-testid="inbox-audit-empty">
          Nothing in the audit yet. Every request, answer and “Allow always” is written here.
        </p>
      )}
      {entries.length > 0 && (
        <div className="inbox-audit__scroll">
          <table className="audit-table">
            <thead>
              <tr>
                <th>When</th>
                <th>Who</th>
                <th>What</th>
                <th>Detail</th>
                <th>Request</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.seq} data-testid={`audit-${e.seq}`}>
                  <td className="audit-table__when">{new Date(e.at).toLocaleString()}</td>
                  <td className={`audit-table__actor${e.actor === "you" ? " is-you" : ""}`}>{actorLabel(e.actor)}</td>
                  <td>
                    <span className={`audit-action audit-action--${e.action}`}>{ACTION_LABELS[e.action]}</span>
                  </td>
                  <td className="audit-table__detail">{e.detail}</td>
                  <td>
                    {e.requestId && (
                      <button
                        type="button"
                        className="link-button audit-table__request"
                        onClick={() => onShowRequest(e.requestId as string)}
                        data-testid={`audit-request-${e.seq}`}
                      >
                        <code>{e.requestId}</code>
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {audit.hasNextPage && (
        <button
          type="button"
          className="button button--small inbox-more"
          onClick={() => void audit.fetchNextPage()}
          disabled={audit.isFetchingNextPage}
        >
          {audit.isFetchingNextPage ? "Loading…" : "Show older"}
        </button>
      )}
    </section>
  );
}
