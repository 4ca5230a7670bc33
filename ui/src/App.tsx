import { useState } from "react";
import { QueryClientProvider } from "@tanstack/react-query";
import type { Agent, Team } from "./api";
import { createQueryClient, useAgents, useTeams } from "./queries";
import { useBackendEvents } from "./backendEvents";
import { useRoomEvents } from "./roomQueries";
import { FileSessionContext, FileSessionStore, useFileSessionStore } from "./fileSessions";
import { RunActivityContext, RunActivityStore } from "./runActivity";
import { errorMessage, type ClawbooError } from "./errors";
import { ToastProvider, useToasts } from "./components/Toasts";
import { Sidebar } from "./components/Sidebar";
import { NewAgentDialog } from "./components/NewAgentDialog";
import { NewTeamDialog } from "./components/NewTeamDialog";
import { TeamPage } from "./pages/TeamPage";
import { FatalErrorPanel } from "./components/FatalErrorPanel";
import { AgentPage } from "./pages/AgentPage";
import { SettingsPage } from "./pages/SettingsPage";
import { MemoryPage } from "./pages/MemoryPage";
import { BoardPage } from "./pages/BoardPage";
import { WelcomePage } from "./pages/WelcomePage";

type Route =
  | { page: "home" }
  | { page: "agent"; agentId: string }
  | { page: "team"; teamId: string }
  | { page: "settings" }
  | { page: "memory" }
  | { page: "board" };

function Shell() {
  const agents = useAgents();
  const teams = useTeams();
  const toasts = useToasts();
  const sessions = useFileSessionStore();
  const [route, setRoute] = useState<Route>({ page: "home" });
  const [creating, setCreating] = useState(false);
  const [creatingTeam, setCreatingTeam] = useState(false);

  useBackendEvents((e) => toasts.error(`Live updates are unavailable: ${errorMessage(e)}`));
  useRoomEvents();

  const selectedAgent =
    route.page === "agent" ? agents.data?.find((a) => a.id === route.agentId) ?? null : null;

  const selectedTeam = route.page === "team" ? teams.data?.find((t) => t.id === route.teamId) ?? null : null;

  const onTeamCreated = (team: Team) => {
    setCreatingTeam(false);
    setRoute({ page: "team", teamId: team.id });
  };

  const onTeamDeleted = (team: Team) => {
    setRoute({ page: "home" });
    toasts.info(`${team.name} was deleted.`);
  };

  const onCreated = (agent: Agent) => {
    setCreating(false);
    setRoute({ page: "agent", agentId: agent.id });
  };

  const onDeleted = (agent: Agent) => {
    sessions.forgetAgent(agent.id);
    setRoute({ page: "home" });
    toasts.info(`${agent.name} was deleted.`);
  };

  let main;
  if (route.page === "settings") {
    main = <SettingsPage />;
  } else if (route.page === "board") {
    main = <BoardPage teams={teams.data ?? []} agents={agents.data ?? []} />;
  } else if (route.page === "memory") {
    main = <MemoryPage teams={teams.data ?? []} agents={agents.data ?? []} />;
  } else if (selectedTeam) {
    main = <TeamPage team={selectedTeam} agents={agents.data ?? []} onDeleted={onTeamDeleted} />;
  } else if (selectedAgent) {
    main = <AgentPage agent={selectedAgent} onDeleted={onDeleted} />;
  } else {
    main = <WelcomePage hasAgents={!!agents.data?.length} onNewAgent={() => setCreating(true)} />;
  }

  return (
    <div className="app">
      <Sidebar
        teams={teams.data}
        teamsError={teams.error ? errorMessage(teams.error) : null}
        selectedTeamId={selectedTeam?.id ?? null}
        onSelectTeam={(teamId) => setRoute({ page: "team", teamId })}
        onNewTeam={() => setCreatingTeam(true)}
        agents={agents.data}
        loading={agents.isPending}
        error={agents.error ? errorMessage(agents.error) : null}
        selectedAgentId={selectedAgent?.id ?? null}
        settingsOpen={route.page === "settings"}
        memoryOpen={route.page === "memory"}
        boardOpen={route.page === "board"}
        onSelectAgent={(agentId) => setRoute({ page: "agent", agentId })}
        onNewAgent={() => setCreating(true)}
        onOpenSettings={() => setRoute({ page: "settings" })}
        onOpenMemory={() => setRoute({ page: "memory" })}
        onOpenBoard={() => setRoute({ page: "board" })}
      />
      <main className="main">{main}</main>
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

  if (fatal) return <FatalErrorPanel message={fatal.message} />;

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
