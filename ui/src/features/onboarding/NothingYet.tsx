import type { StarterProposal } from "../../bindings";

/** Nothing here can run an agent: what to add (a key, or a CLI with its install command). */
export function NothingYet({
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
