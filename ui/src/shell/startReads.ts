// The first screen's reads (the sidebar's agents, teams, Boo Zero, unread marks and inbox count;
// the last place, onboarding, Home), asked as the page's script starts (main.tsx runs
// `askStartReads` from the first module it imports) instead of from the first render's effects.
// Those effects run only after React's first render and that render's paint (~120 ms on this
// machine): asked before, the answers are usually in by the first render, which then draws the
// sidebar and Home with their data at once, not loading and then again.
import type { QueryClient } from "@tanstack/react-query";
import { call } from "../api";
import { agentKeys } from "../features/agents/agentQueries";
import { teamKeys } from "../features/team-chat/teamQueries";
import { booZeroKey } from "../features/boo-zero/booZeroQueries";
import { unreadKeys } from "../features/chat/unread";
import { attentionKeys } from "../features/attention/attentionQueries";
import { preferenceKeys } from "../features/settings/preferencesQueries";
import { onboardingStateKey } from "../features/onboarding/onboardingQueries";
import { homeKeys } from "../features/home/homeQueries";
import { whenInteractive } from "./startup";

type StartRead = {
  key: readonly unknown[];
  answer: Promise<unknown>;
  /** Set once the answer is in: handed to the cache synchronously then. */
  data?: { value: unknown };
  /** Kept in step by backend events: read again once the first screen's listeners are up. */
  followsEvents: boolean;
};

let asked: StartRead[] | null = null;

function read(key: readonly unknown[], answer: Promise<unknown>, followsEvents: boolean): StartRead {
  const entry: StartRead = { key, answer, followsEvents };
  // A failed read is left to the query that needs it, which asks again and shows the error.
  answer.then((value) => (entry.data = { value }), () => {});
  return entry;
}

/** Asks the first screen's reads (once until they are handed to a query client). */
export function askStartReads() {
  asked ??= [
    read(agentKeys.agents, call("listAgents"), true),
    read(teamKeys.teams, call("listTeams"), true),
    read(booZeroKey, call("booZero"), true),
    read(unreadKeys.all, call("unreadThreads"), true),
    read(attentionKeys.tray, call("trayState"), true),
    read(homeKeys.summary, call("homeSummary"), true),
    read(preferenceKeys.all, call("windowPreferences"), false),
    read(onboardingStateKey, call("onboardingState"), false),
  ];
}

/**
 * Hands what `askStartReads` asked to the app's query client (a later client asks for itself):
 * an answer already in is put
 * in the cache now (the first render shows it); one still on its way becomes that query's fetch,
 * so the query mounting meanwhile shares it rather than asking again. The reads backend events
 * keep in step were asked before the first render's listeners were up: they are read again once
 * the first screen is interactive, so no change in between is missed.
 */
export function seedStartReads(client: QueryClient) {
  const reads = asked ?? [];
  asked = null;
  for (const { key, answer, data } of reads) {
    if (data) client.setQueryData(key, data.value);
    else void client.prefetchQuery({ queryKey: key, queryFn: () => answer });
  }
  const followed = reads.filter((r) => r.followsEvents);
  if (followed.length === 0) return;
  void whenInteractive().then(() => {
    for (const { key } of followed) void client.invalidateQueries({ queryKey: key });
  });
}
