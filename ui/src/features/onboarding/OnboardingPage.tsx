import { useEffect, useState, type FormEvent } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { call } from "../../api";
import type { RuntimeInfo, RuntimeKind, StarterMember, StarterProposal, Team } from "../../bindings";
import { errorMessage } from "../../errors";
import { useAgents } from "../agents/agentQueries";
import { useProviders } from "../settings/settingsQueries";
import { useTeams } from "../team-chat/teamQueries";
import {
  proposalKey,
  useCreateStarterTeam,
  useFinishOnboarding,
  useOnboardingState,
  useStarterProposal,
} from "./onboardingQueries";
import { runtimeLabel } from "../../lib/runtimes";
import { PROVIDERS } from "../../lib/providers";
import { ErrorMessage, ErrorWithCode } from "../../components/ErrorMessage";
import { settingsKeys } from "../settings/settingsQueries";

/** The CLIs looked for, in the order shown. */
export const LOOKED_FOR: RuntimeKind[] = ["claude-code", "codex", "hermes", "openclaw"];

type Probe = { state: "looking" } | { state: "done"; info: RuntimeInfo } | { state: "failed"; message: string };

type Props = {
  onCreated: (team: Team) => void;
  onSkip: () => void;
  onOpenSettings: () => void;
};

const ROLE_LABEL: Record<StarterMember["role"], string> = {
  leader: "Leader",
  researcher: "Researcher",
  builder: "Builder",
};

const providerLabel = (p: string) => PROVIDERS.find((x) => x.value === p)?.label ?? p;

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
          <button type="button" className="button button--small" onClick={onOpenSettings} data-testid="onboarding-open-keys">
            Add a key in Settings › API keys
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
                <NothingYet proposal={proposal.data} onOpenSettings={onOpenSettings} onLookAgain={lookAgain} />
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

function RuntimeLine({ kind, probe, proposal }: { kind: RuntimeKind; probe?: Probe; proposal?: StarterProposal }) {
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
            — {missing.reason}. {missing.fix}
          </span>
        )}
        {!missing && kind === "openclaw" && <span className="muted"> — set up per agent (it needs a Gateway)</span>}
      </span>
    );
  } else {
    status = (
      <span className="onboarding__status is-missing">
        {probe.info.problem ?? "Not found"}. Install: <code>{probe.info.installHint}</code>
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

function memberRuntime(m: StarterMember): string {
  if (m.runtime !== "native") return `${runtimeLabel(m.runtime)} (its default model)`;
  const model = m.model ? ` · ${m.model}` : "";
  return `Native · ${m.provider ? providerLabel(m.provider) : "no provider"}${model}`;
}

/** Opened again (from Settings) once the starter team is made: it is made only once, so open it. */
function ExistingStarterTeam({ team, onOpen }: { team: Team; onOpen: () => void }) {
  const agents = useAgents();
  const handles = team.members
    .map((m) => agents.data?.find((a) => a.id === m.agentId)?.handle)
    .filter((h): h is string => !!h);
  return (
    <div data-testid="onboarding-existing">
      <p>
        Your starter team, <strong>{team.name}</strong>, is made
        {handles.length > 0 && <> ({handles.map((h) => `@${h}`).join(", ")})</>}. It is made only once; for
        another team, use <em>+ New team</em> in the sidebar.
      </p>
      <div className="onboarding__actions">
        <button type="button" className="button button--primary" onClick={onOpen} data-testid="onboarding-open-existing">
          Open {team.name}
        </button>
      </div>
    </div>
  );
}

function ProposalForm({ proposal, onCreated }: { proposal: StarterProposal; onCreated: (team: Team) => void }) {
  const create = useCreateStarterTeam();
  const [teamName, setTeamName] = useState(proposal.teamName);
  const [model, setModel] = useState("");
  const [aboutYou, setAboutYou] = useState("");
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate(
      { teamName: teamName.trim() || null, model: model.trim() || null, aboutYou: aboutYou.trim() || null },
      { onSuccess: onCreated },
    );
  };
  return (
    <form className="onboarding__form" onSubmit={submit} data-testid="onboarding-proposal">
      <ul className="onboarding__list">
        {proposal.members.map((m) => (
          <li key={m.role} className="onboarding__line" data-testid={`onboarding-member-${m.role}`}>
            <span className="onboarding__name">
              {m.name} <span className="muted">@{m.handle}</span>
            </span>
            <span className="pill">{ROLE_LABEL[m.role]}</span>
            <span className="muted">{memberRuntime(m)}</span>
          </li>
        ))}
      </ul>
      <div className="field">
        <label htmlFor="onboarding-team-name">Team name</label>
        <input
          id="onboarding-team-name"
          value={teamName}
          onChange={(e) => setTeamName(e.target.value)}
          data-testid="onboarding-team-name"
        />
      </div>
      {proposal.needsModel && (
        <div className="field">
          <label htmlFor="onboarding-model">Model your endpoint serves</label>
          <input
            id="onboarding-model"
            value={model}
            placeholder="llama3.1"
            onChange={(e) => setModel(e.target.value)}
            data-testid="onboarding-model"
          />
        </div>
      )}
      <div className="field">
        <label htmlFor="onboarding-about-you">About you (optional: the team reads it with your messages)</label>
        <textarea
          id="onboarding-about-you"
          rows={2}
          value={aboutYou}
          placeholder="I am Ada; I run a tea shop in Leeds."
          onChange={(e) => setAboutYou(e.target.value)}
          data-testid="onboarding-about-you"
        />
      </div>
      <ErrorWithCode error={create.error} />
      <div className="onboarding__actions">
        <button
          type="submit"
          className="button button--primary"
          disabled={create.isPending}
          data-testid="onboarding-create"
        >
          {create.isPending ? "Creating…" : "Create the team"}
        </button>
      </div>
    </form>
  );
}

function NothingYet({
  proposal,
  onOpenSettings,
  onLookAgain,
}: {
  proposal: StarterProposal;
  onOpenSettings: () => void;
  onLookAgain: () => void;
}) {
  return (
    <div className="onboarding__nothing" data-testid="onboarding-nothing">
      <p>
        Nothing here can run an agent yet. Add one of these, then look again; the app works meanwhile (you can write
        agents' files, plan on the Board, keep memory).
      </p>
      <ul className="onboarding__list">
        {proposal.missing.map((m) => (
          <li key={m.kind} className="onboarding__line" data-testid={`onboarding-missing-${m.kind}`}>
            <span className="onboarding__name">{m.label}</span>
            <span className="muted">{m.reason}:</span>
            {m.fix.startsWith("npm ") || m.fix.startsWith("pipx ") ? <code>{m.fix}</code> : <span>{m.fix}</span>}
          </li>
        ))}
      </ul>
      <div className="onboarding__actions">
        <button type="button" className="button button--primary" onClick={onOpenSettings} data-testid="onboarding-add-key">
          Add an API key
        </button>
        <button type="button" className="button" onClick={onLookAgain} data-testid="onboarding-look-again">
          Look again
        </button>
      </div>
    </div>
  );
}
