import { Suspense, useEffect, useLayoutEffect, useState } from "react";
import { QueryClientProvider } from "@tanstack/react-query";
import type { Agent, Team, Viewing } from "./bindings";
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
import { FatalErrorPanel } from "./shell/FatalErrorPanel";
import { TrayNotice } from "./features/attention/TrayNotice";
import { useOnboardingState } from "./features/onboarding/onboardingQueries";
import { ShortcutsSheet } from "./shell/ShortcutsSheet";
import { useShortcuts } from "./shell/useShortcuts";
import { SearchPalette } from "./features/search/SearchPalette";
import { MainView } from "./shell/MainView";
import type { Route } from "./shell/route";
import { learnAppVersion } from "./lib/errorDetails";
import { useReportInteractive } from "./shell/startup";
import { markStart } from "./lib/startSteps";
import { useLastPlace } from "./shell/useLastPlace";
import { useSidebarCollapsed } from "./shell/useSidebarCollapsed";
import { NavigateContext } from "./shell/navigation";
import { useKeptTheme } from "./features/settings/preferencesQueries";
import { seedStartReads } from "./shell/startReads";

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
  const [searchOpen, setSearchOpen] = useState(false);
  const [sidebarCollapsed, toggleSidebar] = useSidebarCollapsed();

  useShortcuts({
    onShortcuts: () => setShortcutsOpen(true),
    onSearch: () => setSearchOpen(true),
    onNewAgent: () => setCreating(true),
    onNewTeam: () => setCreatingTeam(true),
    onRoute: setRoute,
    onToggleSidebar: toggleSidebar,
  });

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
  useKeptTheme();
  useLastPlace(route, setRoute, agents.data, teams.data);
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

  return (
    <NavigateContext.Provider value={setRoute}>
      <div className={`app ${sidebarCollapsed ? "is-sidebar-collapsed" : ""}`}>
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
          spendOpen={route.page === "spend"}
          inboxOpen={route.page === "inbox"}
          homeOpen={route.page === "home"}
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
          onOpenSpend={() => setRoute({ page: "spend" })}
          onOpenInbox={() => setRoute({ page: "inbox", focus: null })}
          onOpenHome={() => setRoute({ page: "home" })}
          onOpenShortcuts={() => setShortcutsOpen(true)}
          collapsed={sidebarCollapsed}
          onToggleCollapsed={toggleSidebar}
        />
        <main className="main">
          <Suspense fallback={null}>
            <MainView
              route={route}
              setRoute={setRoute}
              agents={agents.data}
              teams={teams.data}
              firstRun={firstRun}
              selectedAgent={selectedAgent}
              selectedTeam={selectedTeam}
              onNewAgent={() => setCreating(true)}
              onAgentDeleted={onDeleted}
              onTeamDeleted={onTeamDeleted}
              onEventsFailed={liveUpdatesFailed}
            />
          </Suspense>
        </main>
        {shortcutsOpen && <ShortcutsSheet onClose={() => setShortcutsOpen(false)} />}
        {searchOpen && <SearchPalette onClose={() => setSearchOpen(false)} onNavigate={setRoute} />}
        {trayNotice && <TrayNotice onDismiss={() => setTrayNotice(false)} />}
        {creating && <NewAgentDialog onClose={() => setCreating(false)} onCreated={onCreated} />}
        {creatingTeam && (
          <NewTeamDialog agents={agents.data ?? []} onClose={() => setCreatingTeam(false)} onCreated={onTeamCreated} />
        )}
      </div>
    </NavigateContext.Provider>
  );
}

let renderBegun = false;

export function App() {
  const [fatal, setFatal] = useState<ClawbooError | null>(null);
  const [queryClient] = useState(() => {
    const client = createQueryClient((e) => setFatal((prev) => prev ?? e));
    // What the page asked as its script started (main.tsx): often in by this first render.
    seedStartReads(client);
    return client;
  });
  const [sessions] = useState(() => new FileSessionStore());
  const [runs] = useState(() => new RunActivityStore());
  useEffect(learnAppVersion, []);
  // The first render begun, committed (before its paint), and its effects run (after it).
  if (!renderBegun) {
    renderBegun = true;
    markStart("first render begun");
  }
  useLayoutEffect(() => markStart("first render committed"), []);
  useEffect(() => markStart("first render"), []);

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
