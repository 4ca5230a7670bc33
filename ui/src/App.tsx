import { lazy, Suspense, useEffect, useState } from "react";
import { QueryClientProvider } from "@tanstack/react-query";
import type { Agent, AttentionRequest, Team, Viewing } from "./bindings";
import { createQueryClient } from "./lib/queryClient";
import { useAgents } from "./features/agents/agentQueries";
import { useTeams } from "./features/team-chat/teamQueries";
import { useReportViewing, useTrayState } from "./features/attention/attentionQueries";
import { useBackendEvents, useShellEvents } from "./shell/backendEvents";
import { useRoomEvents } from "./features/team-chat/roomQueries";
import { FileSessionContext, FileSessionStore, useFileSessionStore } from "./features/agent-files/fileSessions";
import { RunActivityContext, RunActivityStore } from "./features/activity/runActivity";
import { errorCode, errorMessage, type ClawbooError } from "./errors";
import { ToastProvider, useToasts } from "./components/Toasts";
import { Sidebar } from "./shell/Sidebar";
import { NewAgentDialog } from "./features/agents/NewAgentDialog";
import { NewTeamDialog } from "./features/team-chat/NewTeamDialog";
import { TeamPage } from "./features/team-chat/TeamPage";
import { FatalErrorPanel } from "./shell/FatalErrorPanel";
import { AgentPage, type AgentTab } from "./features/agents/AgentPage";
import { WelcomePage } from "./shell/WelcomePage";
import type { InboxFocus } from "./features/inbox/RequestList";
import { TrayNotice } from "./features/attention/TrayNotice";
import { OnboardingPage } from "./features/onboarding/OnboardingPage";
import { useOnboardingState } from "./features/onboarding/onboardingQueries";
import { ShortcutsSheet } from "./shell/ShortcutsSheet";
import { shortcutFor, type ShortcutAction } from "./shell/shortcuts";
import { learnAppVersion } from "./lib/errorDetails";
import { useReportInteractive } from "./shell/startup";

// Pages away from the first screen and the chats load when first opened: a lighter start.
const SettingsPage = lazy(() => import("./features/settings/SettingsPage").then((m) => ({ default: m.SettingsPage })));
const MemoryPage = lazy(() => import("./features/memory/MemoryPage").then((m) => ({ default: m.MemoryPage })));
const BoardPage = lazy(() => import("./features/board/BoardPage").then((m) => ({ default: m.BoardPage })));
const InboxPage = lazy(() => import("./features/inbox/InboxPage").then((m) => ({ default: m.InboxPage })));
const RoutinesPage = lazy(() => import("./features/routines/RoutinesPage").then((m) => ({ default: m.RoutinesPage })));

type Route =
  | { page: "home" }
  | { page: "onboarding" }
  | { page: "agent"; agentId: string; tab: AgentTab }
  | { page: "team"; teamId: string; roomId: string | null }
  | { page: "settings"; section?: "keys" }
  | { page: "memory" }
  | { page: "routines" }
  | { page: "board"; cardId: string | null }
  | { page: "inbox"; focus: InboxFocus | null };

/** Where a request came from: its team's room, its agent's chat, or its card on the Board. */
function sourceRoute(request: AttentionRequest): Route {
  if (request.origin === "team" && request.teamId) return { page: "team", teamId: request.teamId, roomId: request.roomId };
  if (request.origin === "card" && request.cardId) return { page: "board", cardId: request.cardId };
  return { page: "agent", agentId: request.agentId, tab: "chat" };
}

function Shell() {
  const agents = useAgents();
  const teams = useTeams();
  const toasts = useToasts();
  const sessions = useFileSessionStore();
  const [route, setRoute] = useState<Route>({ page: "home" });
  const [creating, setCreating] = useState(false);
  const [creatingTeam, setCreatingTeam] = useState(false);
  const [trayNotice, setTrayNotice] = useState(false);
  const tray = useTrayState();
  const onboarding = useOnboardingState();
  const [shortcutsOpen, setShortcutsOpen] = useState(false);

  useEffect(() => {
    const routes: Partial<Record<ShortcutAction, Route>> = {
      settings: { page: "settings" },
      inbox: { page: "inbox", focus: null },
      board: { page: "board", cardId: null },
      memory: { page: "memory" },
      routines: { page: "routines" },
    };
    const onKey = (e: KeyboardEvent) => {
      const action = shortcutFor(e);
      if (!action) return;
      // A dialog open keeps the keyboard (Esc closes it first).
      if (document.querySelector('[aria-modal="true"]')) return;
      e.preventDefault();
      if (action === "shortcuts") setShortcutsOpen(true);
      else if (action === "new-agent") setCreating(true);
      else if (action === "new-team") setCreatingTeam(true);
      else if (routes[action]) setRoute(routes[action]);
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, []);

  const liveUpdatesFailed = (e: unknown) => toasts.error(`Live updates are unavailable: ${errorMessage(e)}`, errorCode(e));
  useBackendEvents(liveUpdatesFailed);
  useShellEvents(
    {
      onOpenAttention: (requestId) =>
        setRoute({ page: "inbox", focus: requestId ? { id: requestId, at: Date.now() } : null }),
      onKeptInTray: (first) => {
        if (first) setTrayNotice(true);
      },
    },
    liveUpdatesFailed,
  );
  useRoomEvents();
  useReportInteractive(!agents.isPending && !teams.isPending);

  const selectedAgent =
    route.page === "agent" ? agents.data?.find((a) => a.id === route.agentId) ?? null : null;

  const selectedTeam = route.page === "team" ? teams.data?.find((t) => t.id === route.teamId) ?? null : null;

  // What the window shows, so the backend raises no notification for it while focused.
  let viewing: Viewing | null = null;
  if (selectedTeam) viewing = { kind: "team", teamId: selectedTeam.id };
  else if (selectedAgent && route.page === "agent" && route.tab === "chat") viewing = { kind: "chat", agentId: selectedAgent.id };
  else if (route.page === "board" && route.cardId) viewing = { kind: "card", cardId: route.cardId };
  useReportViewing(viewing);

  const onTeamCreated = (team: Team) => {
    setCreatingTeam(false);
    setRoute({ page: "team", teamId: team.id, roomId: null });
  };

  const onTeamDeleted = (team: Team) => {
    setRoute({ page: "home" });
    toasts.info(`${team.name} was deleted.`);
  };

  const onCreated = (agent: Agent) => {
    setCreating(false);
    setRoute({ page: "agent", agentId: agent.id, tab: "chat" });
  };

  const onDeleted = (agent: Agent) => {
    sessions.forgetAgent(agent.id);
    setRoute({ page: "home" });
    toasts.info(`${agent.name} was deleted.`);
  };

  // First run: nothing made yet and onboarding neither done nor skipped (the lists tell at once
  // when the user made something another way).
  const firstRun =
    !!onboarding.data?.firstRun && teams.data?.length === 0 && (agents.data?.length ?? 0) <= 1;

  let main;
  if (route.page === "onboarding" || (route.page === "home" && firstRun)) {
    main = (
      <OnboardingPage
        onCreated={(team) => setRoute({ page: "team", teamId: team.id, roomId: null })}
        onSkip={() => setRoute({ page: "home" })}
        onOpenSettings={() => setRoute({ page: "settings", section: "keys" })}
      />
    );
  } else if (route.page === "settings") {
    main = (
      <SettingsPage
        onSetUpStarterTeam={() => setRoute({ page: "onboarding" })}
        showKeys={route.section === "keys"}
      />
    );
  } else if (route.page === "inbox") {
    main = (
      <InboxPage
        // A new request to show starts the page afresh on it.
        key={route.focus?.at ?? "inbox"}
        agents={agents.data ?? []}
        teams={teams.data ?? []}
        focus={route.focus}
        onOpenSource={(request) => setRoute(sourceRoute(request))}
      />
    );
  } else if (route.page === "board") {
    main = (
      <BoardPage
        teams={teams.data ?? []}
        agents={agents.data ?? []}
        openCardId={route.cardId}
        onOpenCard={(cardId) => setRoute({ page: "board", cardId })}
      />
    );
  } else if (route.page === "routines") {
    main = (
      <RoutinesPage
        agents={agents.data ?? []}
        teams={teams.data ?? []}
        onOpenCard={(cardId) => setRoute({ page: "board", cardId })}
        onOpenRoom={(teamId, roomId) => setRoute({ page: "team", teamId, roomId })}
        onEventsFailed={liveUpdatesFailed}
      />
    );
  } else if (route.page === "memory") {
    main = <MemoryPage teams={teams.data ?? []} agents={agents.data ?? []} />;
  } else if (selectedTeam) {
    main = (
      <TeamPage
        team={selectedTeam}
        agents={agents.data ?? []}
        initialRoomId={route.page === "team" ? route.roomId : null}
        onDeleted={onTeamDeleted}
      />
    );
  } else if (selectedAgent && route.page === "agent") {
    main = (
      <AgentPage
        agent={selectedAgent}
        tab={route.tab}
        onTab={(tab) => setRoute({ page: "agent", agentId: selectedAgent.id, tab })}
        onDeleted={onDeleted}
      />
    );
  } else {
    main = <WelcomePage hasAgents={!!agents.data?.length} onNewAgent={() => setCreating(true)} />;
  }

  return (
    <div className="app">
      <Sidebar
        teams={teams.data}
        teamsError={teams.error ? errorMessage(teams.error) : null}
        selectedTeamId={selectedTeam?.id ?? null}
        onSelectTeam={(teamId) => setRoute({ page: "team", teamId, roomId: null })}
        onNewTeam={() => setCreatingTeam(true)}
        agents={agents.data}
        loading={agents.isPending}
        error={agents.error ? errorMessage(agents.error) : null}
        selectedAgentId={selectedAgent?.id ?? null}
        settingsOpen={route.page === "settings"}
        memoryOpen={route.page === "memory"}
        boardOpen={route.page === "board"}
        routinesOpen={route.page === "routines"}
        inboxOpen={route.page === "inbox"}
        inboxCount={tray.data?.open ?? 0}
        // The same agent again keeps its tab; another opens on Chat.
        onSelectAgent={(agentId) =>
          setRoute((r) => (r.page === "agent" && r.agentId === agentId ? r : { page: "agent", agentId, tab: "chat" }))
        }
        onNewAgent={() => setCreating(true)}
        onOpenSettings={() => setRoute({ page: "settings" })}
        onOpenMemory={() => setRoute({ page: "memory" })}
        onOpenBoard={() => setRoute({ page: "board", cardId: null })}
        onOpenRoutines={() => setRoute({ page: "routines" })}
        onOpenInbox={() => setRoute({ page: "inbox", focus: null })}
        onOpenShortcuts={() => setShortcutsOpen(true)}
      />
      <main className="main">
        <Suspense fallback={null}>{main}</Suspense>
      </main>
      {shortcutsOpen && <ShortcutsSheet onClose={() => setShortcutsOpen(false)} />}
      {trayNotice && <TrayNotice onDismiss={() => setTrayNotice(false)} />}
      {creating && <NewAgentDialog onClose={() => setCreating(false)} onCreated={onCreated} />}
      {creatingTeam && (
        <NewTeamDialog agents={agents.data ?? []} onClose={() => setCreatingTeam(false)} onCreated={onTeamCreated} />
      )}
    </div>
  );
}

export function App() {
  const [fatal, setFatal] = useState<ClawbooError | null>(null);
  const [queryClient] = useState(() => createQueryClient((e) => setFatal((prev) => prev ?? e)));
  const [sessions] = useState(() => new FileSessionStore());
  const [runs] = useState(() => new RunActivityStore());
  useEffect(learnAppVersion, []);

  if (fatal) return <FatalErrorPanel message={fatal.message} code={fatal.code} />;

  return (
    <QueryClientProvider client={queryClient}>
      <FileSessionContext.Provider value={sessions}>
        <RunActivityContext.Provider value={runs}>
          <ToastProvider>
            <Shell />
          </ToastProvider>
        </RunActivityContext.Provider>
      </FileSessionContext.Provider>
    </QueryClientProvider>
  );
}
