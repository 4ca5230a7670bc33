import { useEffect, useState } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { call } from "../../api";
import type { RuntimeKind, Team } from "../../bindings";
import { errorMessage } from "../../errors";
import { settingsKeys, useProviders } from "../settings/settingsQueries";
import { useTeams } from "../team-chat/teamQueries";
import { proposalKey, useFinishOnboarding, useOnboardingState, useStarterProposal } from "./onboardingQueries";
import { providerLabel } from "../../lib/providers";
import { ErrorMessage, ErrorWithCode } from "../../components/ErrorMessage";
import { RuntimeLine, type Probe } from "./RuntimeLine";
import { ExistingStarterTeam } from "./ExistingStarterTeam";
import { ProposalForm } from "./ProposalForm";
import { NothingYet } from "./NothingYet";

/** The CLIs looked for, in the order shown. */
export const LOOKED_FOR: RuntimeKind[] = ["claude-code", "codex", "hermes", "openclaw"];

type Props = {
  onCreated: (team: Team) => void;
  onSkip: () => void;
  onOpenSettings: () => void;
};

/**
 * The first-run page: each runtime looked for (with its own progress), the keys stored, and a
 * starter team proposed on what was found. "Create the team" makes it and opens its chat; "Skip"
 * goes to the app. With nothing available it says how to get a runtime, and the app stays usable.
 */
export function OnboardingPage({ onCreated, onSkip, onOpenSettings }: Props) {
  const client = useQueryClient();
  const [round, setRound] = useState(0);
  const [probes, setProbes] = useState<Record<string, Probe>>({});
  const detectionDone = LOOKED_FOR.every((k) => probes[k] && probes[k].state !== "looking");
  const providers = useProviders();
  const proposal = useStarterProposal(detectionDone);
  const finish = useFinishOnboarding();
  const state = useOnboardingState();
  const teams = useTeams();
  // Opened again from Settings once the starter team exists: that team is shown, not a new proposal.
  const existing = teams.data?.find((t) => t.id === state.data?.starterTeamId) ?? null;

  useEffect(() => {
    let live = true;
    setProbes(Object.fromEntries(LOOKED_FOR.map((k) => [k, { state: "looking" } as Probe])));
    for (const kind of LOOKED_FOR) {
      call("runtimeInfo", kind).then(
        (info) => live && setProbes((p) => ({ ...p, [kind]: { state: "done", info } })),
        (e) => live && setProbes((p) => ({ ...p, [kind]: { state: "failed", message: errorMessage(e) } })),
      );
    }
    return () => {
      live = false;
    };
  }, [round]);

  const lookAgain = () => {
    client.removeQueries({ queryKey: proposalKey });
    void client.invalidateQueries({ queryKey: settingsKeys.providers });
    setRound((r) => r + 1);
  };

  const checked = LOOKED_FOR.filter((k) => probes[k] && probes[k].state !== "looking").length;
  const keys = providers.data?.filter((p) => p.keySet || (p.provider === "custom" && p.baseUrl)) ?? [];

  return (
    <div className="onboarding" data-testid="onboarding">
      <header className="onboarding__header">
        <div className="welcome__mark" aria-hidden="true">
          ◆
        </div>
        <h1>Welcome to Clawboo</h1>
        <p className="muted">
          Clawboo runs teams of AI agents on this machine. It looks for what can run them, then proposes a starter
          team: Boo Zero leading a researcher and a builder.
        </p>
      </header>

      <section className="card onboarding__step" aria-labelledby="onboarding-runtimes">
        <h2 className="card__title" id="onboarding-runtimes">
          1. Runtimes on this machine
        </h2>
        <p className="muted" data-testid="onboarding-progress">
          {detectionDone
            ? `Looked for ${LOOKED_FOR.length} runtimes.`
            : `Looking for runtimes… ${checked} of ${LOOKED_FOR.length} checked`}
        </p>
        <ul className="onboarding__list">
          {LOOKED_FOR.map((kind) => (
            <RuntimeLine key={kind} kind={kind} probe={probes[kind]} proposal={proposal.data} />
          ))}
        </ul>
      </section>

      <section className="card onboarding__step" aria-labelledby="onboarding-keys">
        <h2 className="card__title" id="onboarding-keys">
          2. API keys
        </h2>
        {providers.isPending && <p className="muted">Looking in the keychain…</p>}
        <ErrorMessage message={providers.error ? errorMessage(providers.error) : null} />
        {providers.data &&
          (keys.length > 0 ? (
            <p data-testid="onboarding-keys">
              Stored: {keys.map((k) => providerLabel(k.provider)).join(", ")}. Clawboo's own Native runtime can use{" "}
              {keys.length === 1 ? "it" : "them"}.
            </p>
          ) : (
            <p className="muted" data-testid="onboarding-keys">
              No API key stored. With a key (Anthropic, OpenAI, OpenRouter, or your own endpoint such as Ollama), agents
              run on Clawboo's Native runtime with no CLI to install.
            </p>
          ))}
        <div className="onboarding__actions">
          <button
            type="button"
            className={`button button--small ${keys.length === 0 ? "button--primary" : ""}`}
            onClick={onOpenSettings}
            data-testid="onboarding-add-key"
          >
            {keys.length === 0 ? "Add an API key" : "Add another key"}
          </button>
        </div>
      </section>

      <section className="card onboarding__step" aria-labelledby="onboarding-team">
        <h2 className="card__title" id="onboarding-team">
          3. Your starter team
        </h2>
        {existing ? (
          <ExistingStarterTeam team={existing} onOpen={() => onCreated(existing)} />
        ) : (
          <>
            {!detectionDone && <p className="muted">Waiting for the search above to finish…</p>}
            {detectionDone && proposal.isFetching && <p className="muted">Choosing runtimes…</p>}
            <ErrorWithCode error={proposal.error} />
            {/* A proposal from an earlier look (before a key was added, say) is not shown while a new one comes. */}
            {detectionDone &&
              !proposal.isFetching &&
              proposal.data &&
              (proposal.data.ready ? (
                <ProposalForm proposal={proposal.data} onCreated={onCreated} />
              ) : (
                <NothingYet onLookAgain={lookAgain} />
              ))}
          </>
        )}
      </section>

      <footer className="onboarding__footer">
        <button
          type="button"
          className="button"
          onClick={() => finish.mutate(undefined, { onSuccess: onSkip })}
          disabled={finish.isPending}
          data-testid="onboarding-skip"
        >
          Skip for now
        </button>
        <span className="muted">You can set up a starter team later from Settings.</span>
        <ErrorWithCode error={finish.error} />
      </footer>
    </div>
  );
}
