import { useState, type ReactNode } from "react";
import type { RelayedRequest, RequestUsage, RunContext, RunSummary, Section } from "../../bindings";
import { whyNoRequests, type NoRequests } from "./notSent";
import { useRunContext, useRunRequests } from "../team-chat/roomQueries";
import { errorMessage } from "../../errors";
import { formatCount } from "../../lib/format";
import { Modal } from "../../components/Modal";
import { ErrorMessage } from "../../components/ErrorMessage";
import { FileDeliveryList } from "./FileDeliveryList";
import { cacheShare, runCostLabel } from "../spend/money";

const TURN_KINDS: Record<RunContext["turnKind"], string> = {
  leader: "the room's leader",
  mentioned: "a member you @mentioned",
  teammate: "a teammate on a handed-off task",
};

const PLACEMENTS: Record<RunContext["placement"], string> = {
  system_slot:
    "Steady sections went in the runtime's own system/developer slot; the rest rode in front of the message, on this request only: the carried conversation keeps the bare message.",
  once_per_session:
    "The runtime keeps its own session: steady sections are sent only when that session does not have them yet.",
};

type Props = {
  runId: string;
  /** Who ran it, e.g. "@scout". */
  who: string;
  onClose: () => void;
  /** The run, when the caller has it: how it ended tells why it may have no requests. */
  run?: RunSummary | null;
};

/** Exactly what a run was given: the sections with their sizes against budgets, what waited
 *  for the next turn, and the request bodies the model received through the relay. */
export function RunContextViewer({ runId, who, onClose, run }: Props) {
  const context = useRunContext(runId);
  const requests = useRunRequests(runId);
  const unsent = whyNoRequests(run, requests.data) === "ended_before_sending";
  return (
    <ContextViewerFrame runId={runId} who={who} onClose={onClose} run={run} testId="run-context" error={context.error}>
      {context.data && <ContextBody context={context.data} unsent={unsent} />}
    </ContextViewerFrame>
  );
}

/** The viewer's frame, for a team turn and a task run alike: the context (or its error, or
 *  "Loading…"), then the request bodies the model received. */
export function ContextViewerFrame({
  runId,
  who,
  onClose,
  testId,
  error,
  children,
  run,
}: Props & { testId: string; error: unknown; children: ReactNode }) {
  const requests = useRunRequests(runId);
  const none = whyNoRequests(run, requests.data);
  return (
    <Modal title={`What ${who} saw`} onClose={onClose} size="wide" testId={testId}>
      {none === "ended_before_sending" && (
        <p className="banner banner--warning" data-testid="run-context-unsent">
          Not sent: the run {run?.status === "cancelled" ? "was stopped" : "failed"} before any request reached the
          model. Below is what it would have been given.
        </p>
      )}
      {error ? <ErrorMessage message={errorMessage(error)} /> : (children ?? <p className="muted">Loading…</p>)}
      <RequestList requests={requests.data} error={requests.error} none={none} />
      <div className="modal__actions">
        <button type="button" className="button" onClick={onClose}>
          Close
        </button>
      </div>
    </Modal>
  );
}

function ContextBody({ context, unsent }: { context: RunContext; unsent: boolean }) {
  const total = context.sections.reduce((sum, s) => sum + s.chars, 0);
  return (
    <div className="run-context">
      <p className="muted">
        Turn of {TURN_KINDS[context.turnKind]}. {PLACEMENTS[context.placement]}
        {context.steadyInSession && " This run's session already had the steady sections, so they were not sent again."}
      </p>
      <p className="run-context__total" data-testid="run-context-total">
        {context.sections.length} sections · {formatCount(total)} characters
      </p>
      <ol className="run-context__sections">
        {context.sections.map((section, i) => (
          <SectionRow key={`${section.kind}-${i}`} section={section} />
        ))}
      </ol>
      <FileDeliveryList files={context.files} unsent={unsent} />
      {context.deferred.length > 0 && (
        <p className="banner banner--warning" data-testid="run-context-deferred">
          {context.deferred.length} waiting item{context.deferred.length === 1 ? "" : "s"} did not fit the budgets and
          waited for the next turn (nothing is dropped).
        </p>
      )}
      {context.systemText && (
        <details className="run-context__raw">
          <summary>System/developer slot as sent ({formatCount(context.systemText.length)} characters)</summary>
          <pre>{context.systemText}</pre>
        </details>
      )}
      {context.preamble && (
        <details className="run-context__raw">
          <summary>Placed before the message ({formatCount(context.preamble.length)} characters)</summary>
          <pre>{context.preamble}</pre>
        </details>
      )}
    </div>
  );
}

const TEAM_TIERS: Record<Section["stability"], string> = { steady: "steady", turn: "this turn", volatile: "this turn" };

export function SectionRow({ section, tiers = TEAM_TIERS }: { section: Section; tiers?: Record<Section["stability"], string> }) {
  const over = section.budget !== null && section.chars > section.budget;
  const share = section.budget ? Math.min(100, Math.round((section.chars / section.budget) * 100)) : null;
  return (
    <li className="run-context__section" data-testid={`run-context-section-${section.kind}`}>
      <details open={section.kind === "message"}>
        <summary>
          <span className="run-context__title">{section.title}</span>
          <span className={`badge badge--${section.stability}`}>{tiers[section.stability]}</span>
          <span className="run-context__size">
            {formatCount(section.chars)}
            {section.budget !== null && ` / ${formatCount(section.budget)}`} characters
          </span>
        </summary>
        {share !== null && (
          <div className={`meter${over ? " meter--over" : ""}`} aria-hidden="true">
            <div className="meter__fill" style={{ width: `${share}%` }} />
          </div>
        )}
        {section.cutFrom !== null && (
          <p className="banner banner--warning">
            Cut to its budget: the source has {formatCount(section.cutFrom)} characters.
          </p>
        )}
        <pre className="run-context__text">{section.text}</pre>
      </details>
    </li>
  );
}

const NO_REQUESTS: Record<NoRequests, string> = {
  ended_before_sending: "No model request was made: the run ended before its first one.",
  not_yet: "No model request yet: the run is still starting.",
  ended_or_direct:
    "No model request went through Clawboo's relay: the run ended before its first one, or its runtime talked to its model itself (its own sign-in or Gateway).",
  direct_or_none:
    "No model requests went through Clawboo's relay for this run (a runtime using its own sign-in, or its own Gateway, talks to its model directly).",
};

function RequestList({
  requests,
  error,
  none,
}: {
  requests: RelayedRequest[] | undefined;
  error: unknown;
  none: NoRequests | null;
}) {
  if (error) return <ErrorMessage message={errorMessage(error)} />;
  if (!requests) return null;
  if (requests.length === 0) {
    return (
      <p className="muted" data-testid="run-requests-none">
        {NO_REQUESTS[none ?? "direct_or_none"]}
      </p>
    );
  }
  return (
    <section className="run-context__requests" data-testid="run-requests">
      <h3>What the model received ({requests.length} request{requests.length === 1 ? "" : "s"})</h3>
      <ol>
        {requests.map((r) => (
          <RequestRow key={r.seq} request={r} />
        ))}
      </ol>
    </section>
  );
}

/** A request's prompt tokens as the spend counts them: Anthropic reports input without the
 *  cache, the OpenAI APIs with the cache reads inside it. */
function promptTokens(provider: RelayedRequest["provider"], u: RequestUsage) {
  const read = u.cache_read_tokens ?? 0;
  const input = u.input_tokens ?? 0;
  return {
    inputTokens: provider === "anthropic" ? input : Math.max(0, input - read),
    cacheReadTokens: read,
    cacheWriteTokens: u.cache_write_tokens ?? 0,
  };
}

function RequestRow({ request }: { request: RelayedRequest }) {
  const [open, setOpen] = useState(false);
  const u = request.usage;
  return (
    <li className="run-context__request">
      <button type="button" className="link-button" onClick={() => setOpen(!open)} aria-expanded={open}>
        #{request.seq} {request.method} {request.path} · {request.status} · {formatCount(request.bodyBytes)} bytes
      </button>
      {u && (
        <span className="run-context__usage">
          {formatCount(u.input_tokens ?? 0)} in · {formatCount(u.output_tokens ?? 0)} out
          {(u.cache_read_tokens ?? 0) > 0 && ` · ${formatCount(u.cache_read_tokens ?? 0)} read from cache`}
          {(u.cache_write_tokens ?? 0) > 0 && ` · ${formatCount(u.cache_write_tokens ?? 0)} written to cache`}
          {" · "}
          <span className="run-cost" data-testid="request-cost" title={request.model ?? undefined}>
            {runCostLabel(request.costMicros, "api")}
            {(u.cache_read_tokens ?? 0) > 0 && ` · cache reads ${cacheShare(promptTokens(request.provider, u))}`}
          </span>
        </span>
      )}
      {open &&
        (request.body === null ? (
          <p className="muted">The body was not kept: this run's record budget was spent.</p>
        ) : (
          <pre className="run-context__text">
            {prettyJson(request.body)}
            {!request.bodyComplete && "\n… (cut: only the first part was kept)"}
          </pre>
        ))}
    </li>
  );
}

function prettyJson(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}
