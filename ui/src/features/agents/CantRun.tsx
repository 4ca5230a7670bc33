import type { Agent, RunErrorCode } from "../../bindings";
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

/** The button to where a problem is fixed. */
export function FixButton({ fix, agentId }: { fix: Fix; agentId: string }) {
  const navigate = useNavigate();
  const go = () => {
    if (fix === "profile") navigate({ page: "agent", agentId, tab: "details" });
    else navigate({ page: "settings", section: fix === "keys" ? "keys" : undefined });
  };
  return (
    <button type="button" className="button button--small" onClick={go} data-testid="fix-button">
      {FIX_LABELS[fix]}
    </button>
  );
}

/** Where the fix for a failed run is, by the code the engine recorded with it. */
export function fixForCode(code: RunErrorCode | null): Fix | null {
  switch (code) {
    case "api_key":
      return "keys";
    case "model_missing":
      return "profile";
    case "runtime_setup":
      return "runtimes";
    default:
      return null;
  }
}

/** Why the agent cannot run, with a button to where it is fixed; nothing when it can. */
export function CantRunNotice({ agent }: { agent: AgentLike }) {
  const readiness = useAgentReadiness(agent);
  if (readiness.ready) return null;
  return (
    <div className="cant-run-notice" role="status" data-testid="cant-run-notice">
      <span>
        <strong>{agent.name} can&apos;t run yet.</strong> {readiness.reason}
      </span>
      <FixButton fix={readiness.fix} agentId={agent.id} />
    </div>
  );
}
