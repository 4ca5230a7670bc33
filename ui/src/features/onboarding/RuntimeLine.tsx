import type { RuntimeInfo, RuntimeKind, StarterProposal } from "../../bindings";
import { runtimeLabel } from "../../lib/runtimes";
import { CopyCommand, isCommand } from "../../components/CopyCommand";

/** Where the search for one runtime is: still looking, failed, or what it found. */
export type Probe = { state: "looking" } | { state: "done"; info: RuntimeInfo } | { state: "failed"; message: string };

/** One runtime looked for, with its own progress, and what is missing to use it. */
export function RuntimeLine({ kind, probe, proposal }: { kind: RuntimeKind; probe?: Probe; proposal?: StarterProposal }) {
  const label = runtimeLabel(kind);
  const missing = proposal?.missing.find((m) => m.kind === kind);
  let status;
  if (!probe || probe.state === "looking") {
    status = (
      <span className="onboarding__status is-looking">
        <span className="onboarding__spinner" aria-hidden="true" /> Looking…
      </span>
    );
  } else if (probe.state === "failed") {
    status = <span className="onboarding__status is-missing">Could not check: {probe.message}</span>;
  } else if (probe.info.found) {
    status = (
      <span className="onboarding__status is-found">
        ✓ {probe.info.version} found
        {missing && (
          <span className="muted">
            {" "}
            — {missing.reason}. {isCommand(missing.fix) ? <CopyCommand command={missing.fix} /> : missing.fix}
          </span>
        )}
        {!missing && kind === "openclaw" && <span className="muted"> — set up per agent (it needs a Gateway)</span>}
      </span>
    );
  } else {
    status = (
      <span className="onboarding__status is-missing">
        {probe.info.problem ?? "Not found"}. Install: <CopyCommand command={probe.info.installHint} />
      </span>
    );
  }
  return (
    <li className="onboarding__line" data-testid={`onboarding-runtime-${kind}`}>
      <span className="onboarding__name">{label}</span>
      {status}
    </li>
  );
}
