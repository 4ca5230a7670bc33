import type { Card } from "../../bindings";
import { Markdown } from "../../components/Markdown";

/** What the card asks: its description, the exact task text the agent received, its check command
 *  and the folder its runs work in. */
export function CardTask({ card, folder }: { card: Card; folder: string | null }) {
  return (
    <>
      {card.description.trim() !== "" && (
        <section className="card-panel__section">
          <h3>Description</h3>
          <div className="card-panel__markdown">
            <Markdown text={card.description} />
          </div>
        </section>
      )}
      {card.taskText && (
        <section className="card-panel__section">
          <h3>Task text the agent received</h3>
          <pre className="card-panel__task" data-testid="card-task-text">
            {card.taskText}
          </pre>
        </section>
      )}
      {(card.checkCommand || folder) && (
        <section className="card-panel__section card-panel__facts">
          {card.checkCommand && (
            <p>
              Check: <code>{card.checkCommand}</code>
            </p>
          )}
          {folder && (
            <p>
              Folder: <code>{folder}</code>
              {!card.projectFolder && " (the team's)"}
            </p>
          )}
        </section>
      )}
    </>
  );
}
