// Whether an agent can run on this machine, and if not, why and where the fix is: its runtime is
// installed, has a sign-in or key, and (Native) it has a model and a provider that is set up.
// Read from what Settings already shows; while that is loading, nothing is claimed.
import type { Agent, ProviderStatus, RuntimeAccess, RuntimeInfo, RuntimeKind } from "../../bindings";
import { runtimeLabel } from "../../lib/runtimes";
import { useProviders, useRuntimeAccess, useRuntimes } from "../settings/settingsQueries";

/** Where the fix is: the agent's profile, Settings > Runtimes, or Settings > API keys. */
export type Fix = "profile" | "runtimes" | "keys";

export type Readiness = { ready: true } | { ready: false; reason: string; fix: Fix };

export type MachineSetup = {
  runtimes?: RuntimeInfo[];
  access?: RuntimeAccess[];
  providers?: ProviderStatus[];
};

const READY: Readiness = { ready: true };

/** Why `kind` cannot run agents here (not installed, broken, no sign-in or key), or null. */
export function runtimeProblem(kind: RuntimeKind, setup: MachineSetup): string | null {
  if (kind === "native") return null;
  const label = runtimeLabel(kind);
  const info = setup.runtimes?.find((r) => r.kind === kind);
  if (info && !info.found) return `${label} is not installed on this computer.`;
  if (info?.problem) return info.problem;
  const access = setup.access?.find((a) => a.kind === kind);
  if (access && access.effective === null) return access.problem ?? `${label} has no sign-in or API key here.`;
  return null;
}

export function agentReadiness(
  agent: Pick<Agent, "name" | "runtime" | "model" | "provider">,
  setup: MachineSetup,
): Readiness {
  if (agent.runtime !== "native") {
    const problem = runtimeProblem(agent.runtime, setup);
    return problem ? { ready: false, reason: problem, fix: "runtimes" } : READY;
  }
  if (!agent.model.trim()) return { ready: false, reason: `${agent.name} has no model: choose one in its profile.`, fix: "profile" };
  if (!agent.provider) return { ready: false, reason: `${agent.name} has no provider: choose one in its profile.`, fix: "profile" };
  const status = setup.providers?.find((p) => p.provider === agent.provider);
  if (!status) return READY;
  if (agent.provider === "custom" && !status.baseUrl) {
    return { ready: false, reason: "The custom endpoint has no address yet: set it in Settings > API keys.", fix: "keys" };
  }
  if (agent.provider !== "custom" && !status.keySet) {
    return { ready: false, reason: `There is no ${status.label} API key yet: add one in Settings > API keys.`, fix: "keys" };
  }
  return READY;
}

/** The runtimes, access and providers as Settings shows them (cached queries). */
export function useMachineSetup(): MachineSetup {
  return { runtimes: useRuntimes().data, access: useRuntimeAccess().data, providers: useProviders().data };
}

export function useAgentReadiness(agent: Pick<Agent, "name" | "runtime" | "model" | "provider">): Readiness {
  return agentReadiness(agent, useMachineSetup());
}

/** The runtime a new agent starts on: the first CLI that can run here, else Native. */
export function defaultRuntime(setup: MachineSetup): RuntimeKind {
  if (!setup.runtimes) return "native";
  const order: RuntimeKind[] = ["claude-code", "codex", "hermes", "openclaw"];
  return order.find((kind) => setup.runtimes!.some((r) => r.kind === kind) && runtimeProblem(kind, setup) === null) ?? "native";
}
