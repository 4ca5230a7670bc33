// The two chat pages — an agent's and a team's — hold the chat timelines, the composer and the
// markdown stack (~250 KiB minified): left out of the start bundle, which Home, the sidebar and
// first run need no part of. Their code loads once the first screen is interactive (so the first
// click on an agent or a team finds it there) or as soon as one is shown, whichever is first.
import { lazyPage } from "../lib/lazyPage";
import { whenInteractive } from "./startup";

export const AgentPage = lazyPage(() => import("../features/agents/AgentPage"), (m) => m.AgentPage);
export const TeamPage = lazyPage(() => import("../features/team-chat/TeamPage"), (m) => m.TeamPage);

/** Loads both pages' code; a failure here is left to the page's own load to report. */
export function preloadChatPages(): Promise<void> {
  return Promise.all([AgentPage.preload(), TeamPage.preload()]).then(
    () => undefined,
    () => undefined,
  );
}

void whenInteractive().then(preloadChatPages);
