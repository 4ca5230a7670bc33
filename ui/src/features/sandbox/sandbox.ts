// What the UI says about an agent's OS sandbox. Pure; no React.
import type { Agent, NetworkAccess, SandboxSettings } from "../../bindings";

export const UNCONFINED_TOOLTIP = "Runs without Clawboo's sandbox: it can reach your files, keys and network";

/** True only when the user turned the sandbox off for this agent. */
export const isUnconfined = (agent: Pick<Agent, "sandbox"> | null | undefined): boolean =>
  agent?.sandbox?.confined === false;

export const NETWORK_CHOICES: { value: NetworkAccess; label: string; hint: string }[] = [
  { value: "clawboo_only", label: "Clawboo only", hint: "The model relay and Clawboo's tools. Nothing else." },
  {
    value: "hosts",
    label: "These hosts",
    hint: "Clawboo, and the hosts listed below, over HTTP(S) through Clawboo's proxy.",
  },
  { value: "any", label: "Any host", hint: "Over HTTP(S) through Clawboo's proxy." },
];

/** The suggested hosts, in one-click groups ("Add npm"). Hosts the UI does not know go under "docs". */
export type HostGroup = { label: string; hosts: string[] };

const GROUPS: { label: string; test: (host: string) => boolean }[] = [
  { label: "npm", test: (h) => /(^|\.)npmjs\.(org|com)$/.test(h) },
  { label: "PyPI", test: (h) => /(^|\.)(pypi\.org|pythonhosted\.org)$/.test(h) },
  { label: "crates.io", test: (h) => /(^|\.)crates\.io$/.test(h) },
  { label: "GitHub", test: (h) => /(^|\.)(github\.com|githubusercontent\.com)$/.test(h) },
];

export function groupSuggestedHosts(suggested: readonly string[]): HostGroup[] {
  const groups: HostGroup[] = [...GROUPS.map((g) => ({ label: g.label, hosts: [] as string[] })), { label: "docs", hosts: [] }];
  for (const host of suggested) {
    const at = GROUPS.findIndex((g) => g.test(host));
    groups[at === -1 ? GROUPS.length : at].hosts.push(host);
  }
  return groups.filter((g) => g.hosts.length > 0);
}

/** The host list as the user typed it: one a line (commas and spaces also split), blanks dropped. */
export function hostsFromText(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((h) => h.trim())
    .filter((h) => h !== "");
}

export const hostsToText = (hosts: readonly string[]): string => hosts.join("\n");

/** `text` with `hosts` added at the end, those already listed (any case) left out. */
export function addHosts(text: string, hosts: readonly string[]): string {
  const listed = hostsFromText(text);
  const have = new Set(listed.map((h) => h.toLowerCase()));
  return hostsToText([...listed, ...hosts.filter((h) => !have.has(h.toLowerCase()))]);
}

export const sameSandbox = (a: SandboxSettings, b: SandboxSettings): boolean =>
  a.confined === b.confined &&
  a.network === b.network &&
  a.allowedHosts.length === b.allowedHosts.length &&
  a.allowedHosts.every((h, i) => h === b.allowedHosts[i]);

const BLOCKED_PREFIX = "Blocked by Clawboo's sandbox";

/** A Warning from the sandbox's proxy: "Blocked by Clawboo's sandbox: <host>:<port> (…)". */
export type BlockedHost = { host: string; port: string | null; rest: string };

export function parseBlockedHost(message: string): BlockedHost | null {
  if (!message.startsWith(BLOCKED_PREFIX)) return null;
  const m = /^Blocked by Clawboo's sandbox: (\S+?)(?::(\d+))?(?=\s|$)([\s\S]*)$/.exec(message);
  if (!m) return { host: "", port: null, rest: message.slice(BLOCKED_PREFIX.length).replace(/^:\s*/, "") };
  return { host: m[1], port: m[2] ?? null, rest: m[3].trim() };
}

/**
 * A failed run whose error names the sandbox. Runs keep only their error's text (the
 * `sandbox_unavailable` code stays with the command that returned it), so this reads the words.
 */
export const mentionsSandbox = (message: string | null | undefined): boolean =>
  !!message && /\bsandbox|bubblewrap|\bbwrap\b/i.test(message) && !message.startsWith(BLOCKED_PREFIX);
