import type { FileRouteInfo } from "../../bindings";
import { fileChars } from "./agentFiles";
import { formatCount } from "../../lib/format";

type Props = {
  /** The file's name, e.g. "AGENTS.md". */
  name: string;
  /** The editor's text (the draft, saved or not). */
  text: string;
  budget: number;
  /** How the file reaches the runtime; null while it is not known (the line is left out). */
  route: FileRouteInfo | null;
  /** The agent's runtime, e.g. "Codex". */
  runtimeLabel: string;
};

/** How much of its budget an agent file uses, and how it reaches the agent's runtime. The engine
 *  never cuts a file: one over a budget that applies stops the agent's runs instead. A file the
 *  runtime reads itself is metered against that runtime's own limit, and never stops a run. */
export function FileBudgetMeter({ name, text, budget, route, runtimeLabel }: Props) {
  const count = fileChars(text);
  const over = count - budget;
  // Without a route (not loaded yet) nothing says the budget does not apply: warn as if it did.
  const blocks = over > 0 && (route?.budgetApplies ?? true);
  const ratio = budget > 0 ? Math.min(count / budget, 1) : 1;

  return (
    <div className={`file-meter ${blocks ? "is-over" : ""}`} data-testid="file-meter" data-file={name}>
      <div className="file-meter__row">
        <span className="file-meter__count">
          {formatCount(count)} / {formatCount(budget)} characters
        </span>
        <span className="file-meter__bar" aria-hidden="true">
          <span className="file-meter__fill" style={{ width: `${ratio * 100}%` }} />
        </span>
      </div>
      {route && (
        <p className="file-meter__route" data-testid="file-route">
          How it reaches {runtimeLabel}: {route.routeLabel}
        </p>
      )}
      {blocks && (
        <p className="file-meter__warning" role="status" data-testid="file-over-budget">
          Over its budget by {formatCount(over)} characters: this agent&apos;s runs are refused until it is shortened.
          Nothing is ever cut.
        </p>
      )}
      {over > 0 && !blocks && route?.route === "workspace" && (
        <p className="file-meter__note" data-testid="file-over-budget-note">
          Over {runtimeLabel}&apos;s own limit by {formatCount(over)} characters: runs go ahead, and {runtimeLabel}{" "}
          reads it itself, so it may leave out the rest. Clawboo cuts nothing.
        </p>
      )}
      {over > 0 && !blocks && route?.route !== "workspace" && (
        <p className="file-meter__note" data-testid="file-over-budget-note">
          Over its budget by {formatCount(over)} characters, but its content is not sent, so runs go ahead.
        </p>
      )}
    </div>
  );
}
