/** The order agent files are shown in; unknown names follow, as listed. */
export const AGENT_FILE_ORDER = [
  "SOUL.md",
  "AGENTS.md",
  "IDENTITY.md",
  "USER.md",
  "MEMORY.md",
  "BOOTSTRAP.md",
  "HEARTBEAT.md",
];

export const PERSONA_FILE = "SOUL.md";

export function sortAgentFileNames(names: string[]): string[] {
  const rank = (name: string) => {
    const i = AGENT_FILE_ORDER.indexOf(name);
    return i === -1 ? AGENT_FILE_ORDER.length : i;
  };
  return names
    .map((name, index) => ({ name, index }))
    .sort((a, b) => rank(a.name) - rank(b.name) || a.index - b.index)
    .map((x) => x.name);
}
