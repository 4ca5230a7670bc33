import type { Agent } from "../../bindings";
import { useNavigate } from "../../shell/navigation";
import { useAgentReadiness, type Fix } from "./readiness";

type AgentLike = Pick<Agent, "id" | "name" | "runtime" | "model" | "provider">;

const FIX_LABELS: Record<Fix, string> = {
  profile: "Open its profile",
  runtimes: "Open Settings > Runtimes",
  keys: "Open Settings > API keys",
};

/** A "can't run" mark beside an agent that cannot run here; its reason on hover. Nothing otherwise. */
export function CantRunBadge({ agent, className }: { agent: AgentLike; className?: string }) {
  const readiness = useAgentReadiness(agent);
  if (readiness.ready) return null;
  return (
    <span
      className={`cant-run-badge ${className ?? ""}`}
      title={readiness.reason}
      aria-label={`can't run: ${readiness.reason}`}
      role="img"
      data-testid="cant-run-badge"
    >
      can&apos;t run
    </span>
  );
}

/** Why the agent cannot run, with a button to where it is fixed; nothing when it can. */
export function CantRunNotice({ agent }: { agent: AgentLike }) {
  const readiness = useAgentReadiness(agent);
  const navigate = useNavigate();
  if (readiness.ready) return null;
  const fix = () => {
    if (readiness.fix === "profile") navigate({ page: "agent", agentId: agent.id, tab: "details" });
    else navigate({ page: "settings", section: readiness.fix === "keys" ? "keys" : undefined });
  };
  return (
    <div className="cant-run-notice" role="status" data-testid="cant-run-notice">
      <span>
        <strong>{agent.name} can&apos;t run yet.</strong> {readiness.reason}
      </span>
      <button type="button" className="button button--small" onClick={fix} data-testid="cant-run-fix">
        {FIX_LABELS[readiness.fix]}
      </button>
    </div>
  );
}
