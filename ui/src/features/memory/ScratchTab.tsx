import type { Agent, ScratchNote, Team } from "../../bindings";
import { errorMessage } from "../../errors";
import { useScratchNotes } from "./memoryQueries";
import { ErrorMessage } from "../../components/ErrorMessage";
import { PromotionList } from "./PromotionList";
import { ScratchGroup } from "./ScratchGroup";

type Props = { teams: Team[]; agents: Agent[] };

/** Scratch notes by scope: pending promotions first, then global, each team's, and the agents'
 *  session notes (theirs to write; shown here so nothing is hidden). */
export function ScratchTab({ teams, agents }: Props) {
  const scratch = useScratchNotes();
  const notes = scratch.data ?? [];
  const of = (test: (n: ScratchNote) => boolean) => notes.filter(test);

  return (
    <div className="memory-scratch">
      <PromotionList teams={teams} agents={agents} />
      <ErrorMessage message={scratch.error ? errorMessage(scratch.error) : null} />
      {scratch.isPending ? (
        <p className="muted">Loading…</p>
      ) : (
        <>
          <ScratchGroup
            title="Global"
            hint="Every agent sees these, after its session's and its team's notes."
            testKey="global"
            notes={of((n) => n.scope.kind === "global")}
            addTo={{ kind: "global" }}
          />
          {teams
            .filter((t) => !t.archived || notes.some((n) => n.scope.kind === "team" && n.scope.team_id === t.id))
            .map((team) => (
              <ScratchGroup
                key={team.id}
                title={`#${team.name}`}
                testKey={`team-${team.id}`}
                notes={of((n) => n.scope.kind === "team" && n.scope.team_id === team.id)}
                addTo={{ kind: "team", team_id: team.id }}
              />
            ))}
          <ScratchGroup
            title="Sessions"
            hint="Written by agents in their own conversations. An agent can ask to promote one to its team or to everyone."
            testKey="sessions"
            notes={of((n) => n.scope.kind === "session")}
            addTo={null}
          />
        </>
      )}
    </div>
  );
}
