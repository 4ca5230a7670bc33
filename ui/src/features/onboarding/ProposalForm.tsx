import { useState, type FormEvent } from "react";
import type { StarterMember, StarterProposal, Team } from "../../bindings";
import { ErrorWithCode } from "../../components/ErrorMessage";
import { providerLabel } from "../../lib/providers";
import { runtimeLabel } from "../../lib/runtimes";
import { useCreateStarterTeam } from "./onboardingQueries";

const ROLE_LABEL: Record<StarterMember["role"], string> = {
  leader: "Leader",
  researcher: "Researcher",
  builder: "Builder",
};

function memberRuntime(m: StarterMember): string {
  if (m.runtime !== "native") return `${runtimeLabel(m.runtime)} (its default model)`;
  const model = m.model ? ` · ${m.model}` : "";
  return `Native · ${m.provider ? providerLabel(m.provider) : "no provider"}${model}`;
}

/** The starter team proposed (each member's runtime), its name, a model when the endpoint needs
 *  one, and About you: "Create the team" makes it. */
export function ProposalForm({ proposal, onCreated }: { proposal: StarterProposal; onCreated: (team: Team) => void }) {
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
