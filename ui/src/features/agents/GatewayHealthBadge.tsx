import { useEffect, useState } from "react";
import { describeGatewayHealth, useGatewayHealth } from "./gatewayHealth";

/** Re-renders every second while `active` (the reconnect countdown). */
function useNow(active: boolean): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (!active) return;
    setNow(Date.now());
    const timer = window.setInterval(() => setNow(Date.now()), 1000);
    return () => window.clearInterval(timer);
  }, [active]);
  return now;
}

/**
 * A dot and a few words for an agent on an OpenClaw Gateway the user runs: connected (latency,
 * version), connecting, or lost (the reconnect countdown; the reason in the tooltip, and written
 * out on the profile). Nothing for an agent without such a Gateway.
 */
export function GatewayHealthBadge({ agentId, variant }: { agentId: string; variant: "member" | "profile" }) {
  const health = useGatewayHealth(agentId);
  const now = useNow(health?.state === "lost");
  if (!health) return null;
  const words = describeGatewayHealth(health, now);
  return (
    <span
      className={`gateway-health gateway-health--${words.tone} gateway-health--${variant}`}
      title={words.long}
      data-testid={`gateway-health-${variant}`}
      data-state={health.state}
    >
      <span className="gateway-health__dot" aria-hidden="true" />
      <span className="gateway-health__text">{variant === "member" ? words.short : words.long}</span>
    </span>
  );
}
