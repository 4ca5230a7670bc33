// The health of the link to each OpenClaw Gateway an agent runs on (one the user runs): read once
// with `gatewayHealths`, then kept in place by `gatewayHealthChanged` events (shell/backendEvents).
import { useQuery, type QueryClient } from "@tanstack/react-query";
import { call } from "../../api";
import type { GatewayHealth } from "../../bindings";

export const gatewayHealthKeys = { all: ["gatewayHealths"] as const };

export function useGatewayHealths() {
  return useQuery({ queryKey: gatewayHealthKeys.all, queryFn: () => call("gatewayHealths") });
}

/** The agent's Gateway health, or null for an agent with no link (not on a Gateway the user runs). */
export function useGatewayHealth(agentId: string | undefined): GatewayHealth | null {
  const healths = useGatewayHealths();
  return healths.data?.find((h) => h.agentId === agentId) ?? null;
}

/** An event's health replaces that agent's in the cache. */
export function putGatewayHealth(client: QueryClient, health: GatewayHealth) {
  client.setQueryData<GatewayHealth[]>(gatewayHealthKeys.all, (old) => [
    ...(old ?? []).filter((h) => h.agentId !== health.agentId),
    health,
  ]);
}

export type HealthTone = "ok" | "busy" | "lost";

export type HealthWords = {
  tone: HealthTone;
  /** For the member list: one short phrase. */
  short: string;
  /** For the profile and the member's tooltip: the whole state, the reason included. */
  long: string;
};

/** What the member list and the profile say of `health` at `now` (ms). */
export function describeGatewayHealth(health: GatewayHealth, now: number): HealthWords {
  if (health.state === "connected") {
    const parts = ["Gateway connected"];
    if (health.latencyMs !== null) parts.push(`${health.latencyMs} ms`);
    if (health.version) parts.push(health.version);
    const text = parts.join(" · ");
    return { tone: "ok", short: text, long: `${text} (${health.url})` };
  }
  if (health.state === "connecting") {
    return { tone: "busy", short: "Connecting to the Gateway…", long: `Connecting to the Gateway at ${health.url}…` };
  }
  const seconds = health.retryAt === null ? null : Math.max(0, Math.ceil((health.retryAt - now) / 1000));
  const retry = seconds === null ? "" : seconds > 0 ? `Reconnecting in ${seconds} s` : "Reconnecting…";
  const reason = health.lastError ?? "no answer";
  return {
    tone: "lost",
    short: retry || "Gateway lost",
    long: `Gateway lost: ${reason}.${retry ? ` ${retry}.` : ""} Its turns are refused until it is back.`,
  };
}
