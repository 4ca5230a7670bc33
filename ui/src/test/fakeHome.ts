// Home's summary in the fake backend, read from the other fakes' state as the engine reads its
// tables: running one-to-one runs, open requests, blocked cards, the active routines due next.
import { vi } from "vitest";
import type { HomeSummary, ProviderModels, Provider } from "../bindings";
import { backend } from "./fakeState";
import { attention } from "./fakeAttention";
import { board } from "./fakeBoard";
import { routines } from "./fakeRoutines";
import { ClawbooError } from "../errors";

function summary(): HomeSummary {
  const chats = [...backend.chats.values(), ...backend.moreChats.values()];
  const running = chats.flatMap((chat) => {
    const agentId = chat.summary.agentId;
    const run = chat.activeRun;
    if (!run) return [];
    const asked = chat.messages.find((m) => m.runId === run.id && m.role === "user");
    const agent = backend.agents.find((a) => a.id === agentId);
    return [
      {
        runId: run.id,
        agentId,
        agentName: agent?.name ?? "A deleted agent",
        kind: "chat" as const,
        what: asked?.content ?? "A reply",
        startedAt: run.startedAt,
        teamId: null,
        chatId: chat.summary.id,
        roomId: null,
        cardId: null,
      },
    ];
  });
  const open = attention.requests.filter((r) => r.status === "open").sort((a, b) => b.createdAt - a.createdAt);
  return {
    running,
    openRequests: open.length,
    requests: open.slice(0, 5).map((r) => ({ id: r.id, agentName: r.agentName, text: r.text, createdAt: r.createdAt })),
    blockedCards: board.cards
      .filter((c) => c.status === "blocked")
      .map((c) => ({ id: c.id, number: c.number, title: c.title, reason: c.blockedReason ?? "" })),
    nextRoutines: routines.routines
      .filter((r) => r.state === "active" && r.nextFireAt !== null)
      .sort((a, b) => a.nextFireAt! - b.nextFireAt!)
      .slice(0, 5)
      .map((r) => ({ id: r.id, name: r.name, owner: r.ownerName, nextAt: r.nextFireAt! })),
  };
}

/** The models each provider lists; a provider missing here fails to list (as a provider may). */
const initialModelLists = (): [Provider, string[]][] => [
  ["anthropic", ["claude-haiku-4-5", "claude-sonnet-4-5"]],
  ["openai", ["gpt-5", "gpt-5-mini"]],
];
export const providerModelLists = new Map<Provider, string[]>(initialModelLists());

export function resetHome() {
  providerModelLists.clear();
  for (const [provider, models] of initialModelLists()) providerModelLists.set(provider, models);
}

export const fakeHomeApi = {
  homeSummary: vi.fn(async (): Promise<HomeSummary> => summary()),
  providerModels: vi.fn(async (provider: Provider, _refresh: boolean): Promise<ProviderModels> => {
    const models = providerModelLists.get(provider);
    if (!models) throw new ClawbooError("runtime_failed", `Could not list ${provider}'s models: HTTP 404.`);
    return { provider, models: [...models], fetchedAt: 1 };
  }),
};
