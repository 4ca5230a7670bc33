type Props = { hasAgents: boolean; onNewAgent: () => void };

export function WelcomePage({ hasAgents, onNewAgent }: Props) {
  return (
    <div className="welcome">
      <div className="welcome__mark" aria-hidden="true">
        ◆
      </div>
      <h1>{hasAgents ? "Pick an agent" : "Welcome to Clawboo"}</h1>
      <p className="muted">
        {hasAgents
          ? "Choose an agent on the left to edit its profile and files."
          : "Create your first agent to give it a persona, a runtime and a model."}
      </p>
      <button type="button" className="button button--primary" onClick={onNewAgent}>
        + New agent
      </button>
    </div>
  );
}
