import { lazy } from "react";
import type { Agent, Team } from "../bindings";
import { OnboardingPage } from "../features/onboarding/OnboardingPage";
import { WelcomePage } from "./WelcomePage";
import { HomePage } from "../features/home/HomePage";
import { sourceRoute, type Route } from "./route";
import { AgentPage, TeamPage } from "./chatPages";

// Pages away from the first screen and the chats load when first opened: a lighter start.
const SettingsPage = lazy(() => import("../features/settings/SettingsPage").then((m) => ({ default: m.SettingsPage })));
const MemoryPage = lazy(() => import("../features/memory/MemoryPage").then((m) => ({ default: m.MemoryPage })));
const BoardPage = lazy(() => import("../features/board/BoardPage").then((m) => ({ default: m.BoardPage })));
const InboxPage = lazy(() => import("../features/inbox/InboxPage").then((m) => ({ default: m.InboxPage })));
const SpendPage = lazy(() => import("../features/spend/SpendPage").then((m) => ({ default: m.SpendPage })));
const RoutinesPage = lazy(() => import("../features/routines/RoutinesPage").then((m) => ({ default: m.RoutinesPage })));

type Props = {
  route: Route;
  setRoute: (route: Route) => void;
  agents: Agent[] | undefined;
  teams: Team[] | undefined;
  /** Nothing made yet and onboarding neither done nor skipped. */
  firstRun: boolean;
  selectedAgent: Agent | null;
  selectedTeam: Team | null;
  onNewAgent: () => void;
  onAgentDeleted: (agent: Agent) => void;
  onTeamDeleted: (team: Team) => void;
  onEventsFailed: (e: unknown) => void;
};

/** The page the route shows in the main area. */
export function MainView({
  route,
  setRoute,
  agents,
  teams,
  firstRun,
  selectedAgent,
  selectedTeam,
  onNewAgent,
  onAgentDeleted,
  onTeamDeleted,
  onEventsFailed,
}: Props) {
  let main;
  if (route.page === "onboarding" || (route.page === "home" && firstRun)) {
    main = (
      <OnboardingPage
        onCreated={(team) => setRoute({ page: "team", teamId: team.id, roomId: null })}
        onSkip={() => setRoute({ page: "home" })}
        onOpenSettings={() => setRoute({ page: "settings", section: "keys", from: "onboarding" })}
      />
    );
  } else if (route.page === "settings") {
    main = (
      <SettingsPage
        onSetUpStarterTeam={() => setRoute({ page: "onboarding" })}
        showKeys={route.section === "keys"}
        showLimits={route.section === "limits"}
        onBackToSetup={route.from === "onboarding" ? () => setRoute({ page: "onboarding" }) : undefined}
      />
    );
  } else if (route.page === "inbox") {
    main = (
      <InboxPage
        // A new request to show starts the page afresh on it.
        key={route.focus?.at ?? "inbox"}
        agents={agents ?? []}
        teams={teams ?? []}
        focus={route.focus}
        onOpenSource={(request) => setRoute(sourceRoute(request))}
      />
    );
  } else if (route.page === "board") {
    main = (
      <BoardPage
        teams={teams ?? []}
        agents={agents ?? []}
        openCardId={route.cardId}
        onOpenCard={(cardId) => setRoute({ page: "board", cardId })}
      />
    );
  } else if (route.page === "routines") {
    main = (
      <RoutinesPage
        agents={agents ?? []}
        teams={teams ?? []}
        onOpenCard={(cardId) => setRoute({ page: "board", cardId })}
        onOpenRoom={(teamId, roomId) => setRoute({ page: "team", teamId, roomId })}
        onEventsFailed={onEventsFailed}
      />
    );
  } else if (route.page === "spend") {
    main = <SpendPage />;
  } else if (route.page === "memory") {
    main = <MemoryPage teams={teams ?? []} agents={agents ?? []} />;
  } else if (selectedTeam) {
    main = (
      <TeamPage
        team={selectedTeam}
        agents={agents ?? []}
        initialRoomId={route.page === "team" ? route.roomId : null}
        onDeleted={onTeamDeleted}
        onOpenAgent={(agentId) => setRoute({ page: "agent", agentId, tab: "chat" })}
        onOpenCard={(cardId) => setRoute({ page: "board", cardId })}
      />
    );
  } else if (selectedAgent && route.page === "agent") {
    main = (
      <AgentPage
        agent={selectedAgent}
        tab={route.tab}
        onTab={(tab) => setRoute({ page: "agent", agentId: selectedAgent.id, tab })}
        chatId={route.chatId ?? null}
        onChat={(chatId) => {
          if (route.chatId !== chatId) setRoute({ ...route, chatId });
        }}
        onDeleted={onAgentDeleted}
      />
    );
  } else if (route.page === "home" && agents?.length) {
    main = <HomePage onEventsFailed={onEventsFailed} />;
  } else {
    main = <WelcomePage hasAgents={!!agents?.length} onNewAgent={onNewAgent} />;
  }
  return main;
}
