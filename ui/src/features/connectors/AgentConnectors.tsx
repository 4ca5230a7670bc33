import { useConnectors, useShareConnector } from "./connectorQueries";
import { ErrorWithCode } from "../../components/ErrorMessage";

/** An agent's page: which connectors it gets, each a toggle (Settings > Connectors adds them). */
export function AgentConnectors({ agentId }: { agentId: string }) {
  const connectors = useConnectors();
  const share = useShareConnector();
  if (!connectors.data || connectors.data.length === 0) return null;
  return (
    <section className="agent-connectors" data-testid="agent-connectors">
      <h3>Connectors</h3>
      <p className="muted">MCP servers this agent can use from its next run.</p>
      <ul className="agent-connectors__list">
        {connectors.data.map((c) => (
          <li key={c.id}>
            <label>
              <input
                type="checkbox"
                checked={c.sharedWith.includes(agentId)}
                disabled={share.isPending}
                onChange={(e) => share.mutate({ id: c.id, agentId, shared: e.target.checked })}
                data-testid={`agent-connector-${c.name}`}
              />{" "}
              {c.name}
              {!c.enabled && <span className="muted"> (off)</span>}
            </label>
          </li>
        ))}
      </ul>
      <ErrorWithCode error={share.error ?? connectors.error} />
    </section>
  );
}
