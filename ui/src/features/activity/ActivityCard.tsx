import { memo, useState } from "react";
import type { RunSpend, RunStatus, RunSummary } from "../../bindings";
import { useRunActivity, type ActivityItem, type Usage } from "./runActivity";
import { errorMessage } from "../../errors";
import { formatCount } from "../../lib/format";
import { RUN_STATUS_LABELS } from "../chat/chat";
import { ErrorMessage } from "../../components/ErrorMessage";
import { ToolCallRow } from "./ToolCallRow";
import { PermissionRow } from "./PermissionRow";
import { ShieldIcon } from "../sandbox/ShieldIcon";
import { mentionsSandbox, parseBlockedHost } from "../sandbox/sandbox";
import { cacheShare, runCostLabel } from "../spend/money";
import { useRunsSpend } from "../spend/spendQueries";

/** Below this window width the card starts collapsed. */
const NARROW_QUERY = "(max-width: 1100px)";
const startsCollapsed = () => typeof window.matchMedia === "function" && window.matchMedia(NARROW_QUERY).matches;

type ItemsProps = {
  runId: string;
  items: readonly ActivityItem[];
  runActive: boolean;
  onOpenSandbox?: () => void;
};

/** A connection the sandbox's proxy refused: its own line, the host in bold. */
function BlockedHostRow({ message, onOpenSandbox }: { message: string; onOpenSandbox?: () => void }) {
  const blocked = parseBlockedHost(message);
  if (!blocked) return null;
  return (
    <li className="blocked-host" data-testid="activity-blocked">
      <ShieldIcon />
      <span className="blocked-host__text">
        Blocked by Clawboo's sandbox:{" "}
        <strong className="blocked-host__host" data-testid="blocked-host">
          {blocked.host}
        </strong>
        {blocked.port && <span className="blocked-host__port">:{blocked.port}</span>}
        {blocked.rest && <span className="blocked-host__rest"> {blocked.rest}</span>}
        {onOpenSandbox && (
          <>
            {" "}
            <button type="button" className="link-button" onClick={onOpenSandbox} data-testid="blocked-open-sandbox">
              Open the Network setting
            </button>
          </>
        )}
      </span>
    </li>
  );
}

/** Re-renders only when the items change, not on every streamed word. */
const ActivityItems = memo(function ActivityItems({ runId, items, runActive, onOpenSandbox }: ItemsProps) {
  return (
    <ul className="activity__items">
      {items.map((item) => {
        switch (item.kind) {
          case "tool":
            return <ToolCallRow key={item.key} call={item} />;
          case "permission":
            return <PermissionRow key={item.key} runId={runId} request={item} runActive={runActive} />;
          case "thinking":
            return (
              <li key={item.key} className="thinking" data-testid="activity-thinking">
                <details>
                  <summary>Thinking</summary>
                  <p className="thinking__text">{item.text}</p>
                </details>
              </li>
            );
          case "context":
            return (
              <li key={item.key} className="context-added" data-testid="activity-context">
                <details>
                  <summary>{item.summary}</summary>
                  <pre className="context-added__text">{item.text}</pre>
                </details>
              </li>
            );
          case "warning":
          case "error":
            if (item.kind === "warning" && parseBlockedHost(item.message)) {
              return <BlockedHostRow key={item.key} message={item.message} onOpenSandbox={onOpenSandbox} />;
            }
            return (
              <li key={item.key} className={`banner banner--${item.kind}`} data-testid={`activity-${item.kind}`}>
                {item.message}
                {item.kind === "error" && onOpenSandbox && mentionsSandbox(item.message) && (
                  <SandboxLink onOpenSandbox={onOpenSandbox} />
                )}
              </li>
            );
        }
      })}
    </ul>
  );
});

/** To the agent's Sandbox settings, under a run error that names the sandbox. */
export function SandboxLink({ onOpenSandbox }: { onOpenSandbox: () => void }) {
  return (
    <>
      {" "}
      <button type="button" className="link-button sandbox-link" onClick={onOpenSandbox} data-testid="open-sandbox-settings">
        Open the agent's Sandbox settings
      </button>
    </>
  );
}

function UsageLine({ usage, spent }: { usage: Usage; spent: RunSpend | undefined }) {
  const cache = usage.cacheReadTokens > 0 || usage.cacheWriteTokens > 0;
  return (
    <footer className="activity__usage" data-testid="activity-usage">
      <span>
        {formatCount(usage.inputTokens)} in · {formatCount(usage.outputTokens)} out
      </span>
      {cache && (
        <span>
          cache {formatCount(usage.cacheReadTokens)} read · {formatCount(usage.cacheWriteTokens)} write
        </span>
      )}
      {/* Money only as the engine counted it (a CLI's own price may be a subscription's). */}
      {spent && (
        <span className="run-cost" data-testid="activity-cost">
          {/* Only a CLI on the user's own sign-in bypasses the relay: say so with the tokens. */}
          {spent.billing === "subscription" && "your own sign-in · "}
          {runCostLabel(spent.costMicros, spent.billing)}
          {spent.cacheReadTokens > 0 && ` · cache reads ${cacheShare(spent)}`}
        </span>
      )}
    </footer>
  );
}

type Props = {
  run: RunSummary | null;
  /** Opens the run's agent's Sandbox settings, where the page can (the agent's own chat). */
  onOpenSandbox?: () => void;
};

/** What the agent is doing in the current (or last) run: tools, thinking, permission requests, usage. */
export function ActivityCard({ run, onOpenSandbox }: Props) {
  const { activity, backfillError } = useRunActivity(run?.id ?? null, !!run && run.status !== "running");
  const [collapsed, setCollapsed] = useState(startsCollapsed);
  // What the run cost, as the engine counted it (the relay's requests priced, or tokens on the
  // user's subscription); asked again as the run goes and once it ends.
  const spent = useRunsSpend(run ? [run.id] : [], run?.status ?? "").data?.[0];

  // The finished event can arrive before the history says so.
  const status: RunStatus | null = run ? (run.status === "running" && activity.finished?.outcome) || run.status : null;
  const runActive = status === "running";
  const waiting = runActive && activity.items.some((i) => i.kind === "permission" && i.allowed === null);
  // A question for the user is never hidden.
  const open = !collapsed || waiting;

  return (
    <aside className={`activity ${open ? "" : "is-collapsed"}`} aria-label="Activity" data-testid="activity-card">
      <header className="activity__head">
        <button
          type="button"
          className="activity__toggle"
          onClick={() => setCollapsed(open)}
          aria-expanded={open}
          data-testid="activity-toggle"
        >
          <span className="activity__chevron" aria-hidden="true">
            {open ? "▾" : "▸"}
          </span>
          Activity
        </button>
        {status && (
          <span className={`run-status run-status--${status}`} data-testid="run-status">
            {runActive && <span className="spinner" aria-hidden="true" />}
            {RUN_STATUS_LABELS[status]}
          </span>
        )}
      </header>
      {open && (
        <>
          <div className="activity__body">
            <ErrorMessage message={backfillError ? errorMessage(backfillError) : null} />
            {run && activity.items.length > 0 ? (
              <ActivityItems runId={run.id} items={activity.items} runActive={runActive} onOpenSandbox={onOpenSandbox} />
            ) : (
              <p className="activity__empty muted">
                {runActive
                  ? "Working…"
                  : run
                    ? "This run made no tool calls and asked for nothing."
                    : "Tool calls, thinking and permission requests show up here as the agent works."}
              </p>
            )}
          </div>
          {activity.usage && <UsageLine usage={activity.usage} spent={spent} />}
        </>
      )}
    </aside>
  );
}
