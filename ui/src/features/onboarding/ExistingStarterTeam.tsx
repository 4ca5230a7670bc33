import type { Team } from "../../bindings";
import { useAgents } from "../agents/agentQueries";

/** Opened again (from Settings) once the starter team is made: it is made only once, so open it. */
export function ExistingStarterTeam({ team, onOpen }: { team: Team; onOpen: () => void }) {
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
