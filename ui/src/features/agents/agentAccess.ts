// What one agent's runtime uses to reach its model: the user's own CLI sign-in or a key from
// Clawboo. Claude Code and Codex decide per runtime (Settings > Runtimes); Hermes takes the key of
// each agent's provider, so the automatic choice is made per agent, as the engine makes it: the
// choice, else the key when the agent's provider has one, else the sign-in when one is found.

import type { Access, Agent, ProviderStatus, RuntimeAccess } from "../../bindings";
import { providerLabel } from "../../lib/providers";

export type AgentAccess = {
  /** What the agent's runs use; null when neither is available (`problem` says the fix). */
  effective: Access | null;
  /** The sentence the profile shows. */
  text: string;
  problem: string | null;
};

const CHANGE = "Change it in Settings > Runtimes.";

/** The providers Hermes can use with a key (as the engine's `key_providers`). */
const HERMES_KEY_PROVIDERS = ["openai", "openrouter", "custom"];

export function agentAccess(
  entry: RuntimeAccess,
  agent: Pick<Agent, "runtime" | "provider">,
  providers: ProviderStatus[] | undefined,
): AgentAccess {
  if (agent.runtime !== "hermes") {
    const text = entry.effective ? `${entry.label} uses ${describe(entry, entry.effective)}. ${CHANGE}` : "";
    return { effective: entry.effective, text, problem: entry.effective ? null : entry.problem };
  }
  const provider = agent.provider && HERMES_KEY_PROVIDERS.includes(agent.provider) ? agent.provider : null;
  // A custom endpoint may need no key; the engine counts it as set.
  const keySet = !!provider && (provider === "custom" || !!providers?.find((p) => p.provider === provider)?.keySet);
  const wanted: Access = entry.choice ?? (keySet ? "api_key" : "own_sign_in");
  const available = wanted === "api_key" ? keySet : entry.signInFound;
  if (!available) {
    const problem =
      wanted === "own_sign_in"
        ? `Hermes is set to use your own sign-in, but none was found in ${entry.signInPlace}: run \`hermes model\` once in a terminal and sign in, or pick a provider with a key.`
        : "Hermes is set to use an API key from Clawboo: pick a provider with a key for this agent, or choose “Use my own sign-in” in Settings > Runtimes.";
    return { effective: null, text: "", problem };
  }
  const how =
    wanted === "own_sign_in"
      ? `your own sign-in (${entry.signInPlace}): its requests go to the provider you signed in to, not to a provider picked here`
      : `an API key from Clawboo (${providerLabel(provider ?? "")})`;
  const auto = entry.choice === null ? ", chosen automatically" : "";
  return { effective: wanted, text: `Hermes uses ${how}${auto}. ${CHANGE}`, problem: null };
}

/** "your own sign-in (~/.claude/.credentials.json)", "an API key from Clawboo (OpenAI)". */
export function describe(entry: RuntimeAccess, access: Access): string {
  return access === "own_sign_in"
    ? `your own sign-in (${entry.signInPlace})`
    : `an API key from Clawboo (${providerLabel(entry.keyProvider)})`;
}
