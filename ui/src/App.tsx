import { useState } from "react";
import { QueryClientProvider } from "@tanstack/react-query";
import type { Agent } from "./api";
import { createQueryClient, useAgents } from "./queries";
import { useBackendEvents } from "./backendEvents";
import { FileSessionContext, FileSessionStore, useFileSessionStore } from "./fileSessions";
import { RunActivityContext, RunActivityStore } from "./runActivity";
import { errorMessage, type ClawbooError } from "./errors";
import { ToastProvider, useToasts } from "./components/Toasts";
import { Sidebar } from "./components/Sidebar";
import { NewAgentDialog } from "./components/NewAgentDialog";
import { FatalErrorPanel } from "./components/FatalErrorPanel";
import { AgentPage } from "./pages/AgentPage";
import { SettingsPage } from "./pages/SettingsPage";
import { WelcomePage } from "./pages/WelcomePage";

type Route = { page: "home" } | { page: "agent"; agentId: string } | { page: "settings" };

function Shell() {
  const agents = useAgents();
  const toasts = useToasts();
  const sessions = useFileSessionStore();
  const [route, setRoute] = useState<Route>({ page: "home" });
  const [creating, setCreating] = useState(false);

  useBackendEvents((e) => toasts.error(`Live updates are unavailable: ${errorMessage(e)}`));

  const selectedAgent =
    route.page === "agent" ? agents.data?.find((a) => a.id === route.agentId) ?? null : null;

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
  } else if (selectedAgent) {
    main = <AgentPage agent={selectedAgent} onDeleted={onDeleted} />;
  } else {
    main = <WelcomePage hasAgents={!!agents.data?.length} onNewAgent={() => setCreating(true)} />;
  }

  return (
    <div className="app">
      <Sidebar
        agents={agents.data}
        loading={agents.isPending}
        error={agents.error ? errorMessage(agents.error) : null}
        selectedAgentId={selectedAgent?.id ?? null}
        settingsOpen={route.page === "settings"}
        onSelectAgent={(agentId) => setRoute({ page: "agent", agentId })}
        onNewAgent={() => setCreating(true)}
        onOpenSettings={() => setRoute({ page: "settings" })}
      />
      <main className="main">{main}</main>
      {creating && <NewAgentDialog onClose={() => setCreating(false)} onCreated={onCreated} />}
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
