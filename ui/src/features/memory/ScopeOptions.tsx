import type { Agent, Team } from "../../bindings";

type Props = { teams: Team[]; agents: Agent[] };

/** Global, each team, each agent: a fact's possible scopes as `<option>`s (values: `scopeKey`). */
export function ScopeOptions({ teams, agents }: Props) {
  return (
    <>
      <option value="global">Global</option>
      {teams.length > 0 && (
        <optgroup label="Teams">
          {teams.map((t) => (
            <option key={t.id} value={`team:${t.id}`}>
              #{t.name}
            </option>
          ))}
        </optgroup>
      )}
      {agents.length > 0 && (
        <optgroup label="Agents">
          {agents.map((a) => (
            <option key={a.id} value={`agent:${a.id}`}>
              @{a.handle} only
            </option>
          ))}
        </optgroup>
      )}
    </>
  );
}
