import { useState } from "react";
import type { Agent, BoardColumn, Card, CardRun, CardStatus, Team } from "../../bindings";
import { useCardDetail, useCardRuns, useDeleteCard, useEditCard, useStartRun, useStopRun } from "./boardQueries";
import { errorMessage } from "../../errors";
import { cardRef } from "./board";
import { formatTime } from "../memory/memoryLabels";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { RunContextViewer } from "../run-context/RunContextViewer";
import { CardDiffView } from "./CardDiffView";
import { TaskRunContextViewer } from "./TaskRunContextViewer";
import { ErrorMessage } from "../../components/ErrorMessage";
import { Modal } from "../../components/Modal";
import { CardForm, fieldsOf, type CardFields } from "./CardForm";
import { CardMeta } from "./CardMeta";
import { CardRunControls } from "./CardRunControls";
import { CardTask } from "./CardTask";
import { CardComments } from "./CardComments";
import { CardRuns } from "./CardRuns";
import { activityText, actorLabel } from "./cardActivity";
import { ExportMenu } from "../search/ExportMenu";

type Props = {
  cardId: string;
  cards: Card[];
  agents: Agent[];
  teams: Team[];
  columns: BoardColumn[];
  onMove: (card: Card, to: CardStatus) => void;
  onClose: () => void;
};

/** One card, opened: what the agent was asked (the exact task text it received), its comments
 *  (the agent's report is one), its activity and its runs. */
export function CardPanel({ cardId, cards, agents, teams, columns, onMove, onClose }: Props) {
  const detail = useCardDetail(cardId);
  const runs = useCardRuns(cardId);
  const edit = useEditCard();
  const remove = useDeleteCard();
  const [editing, setEditing] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [withMemory, setWithMemory] = useState(true);
  const [contextRun, setContextRun] = useState<CardRun | null>(null);
  const start = useStartRun();
  const stop = useStopRun();

  const card = detail.data?.card;
  if (!card) {
    return (
      <Modal title="Card" onClose={onClose} size="wide" testId="card-panel">
        {detail.error ? <ErrorMessage message={errorMessage(detail.error)} /> : <p className="muted">Loading…</p>}
      </Modal>
    );
  }
  const assignee = agents.find((a) => a.id === card.assigneeId);
  const team = teams.find((t) => t.id === card.teamId);
  const numberOf = (id: string) => cards.find((c) => c.id === id)?.number;
  // Where its runs work: its own folder, else its team's.
  const folder = card.projectFolder ?? team?.projectFolder ?? null;

  const save = (fields: CardFields) =>
    edit.mutate(
      {
        id: card.id,
        edit: {
          title: fields.title,
          description: fields.description,
          assigneeId: fields.assigneeId,
          teamId: fields.teamId,
          priority: fields.priority,
          dependsOn: fields.dependsOn,
          checkCommand: fields.checkCommand,
          projectFolder: fields.projectFolder,
        },
      },
      { onSuccess: () => setEditing(false) },
    );

  return (
    <Modal title={`${cardRef(card)} ${card.title}`} onClose={onClose} size="wide" testId="card-panel">
      <div className="card-panel">
        <CardMeta
          card={card}
          columns={columns}
          agents={agents}
          assignee={assignee}
          team={team}
          editing={editing}
          onMove={onMove}
          onEdit={() => setEditing(true)}
          onDelete={() => setConfirmDelete(true)}
        />
        {card.status === "blocked" && card.blockedReason && (
          <p className="card-panel__blocked" data-testid="card-blocked-reason">
            Blocked: {card.blockedReason}
          </p>
        )}
        {card.waitingOn.length > 0 && (
          <p className="card-panel__waiting">
            Waits for {card.waitingOn.map((id) => `#${numberOf(id) ?? "?"}`).join(", ")} to be done.
          </p>
        )}

        <CardRunControls
          card={card}
          hasAssignee={!!assignee}
          withMemory={withMemory}
          onWithMemory={setWithMemory}
          onStart={() => start.mutate({ id: card.id, withMemory })}
          onStop={() => stop.mutate(card.id)}
          pending={start.isPending || stop.isPending}
        />
        <ErrorMessage message={start.error ? errorMessage(start.error) : stop.error ? errorMessage(stop.error) : null} />

        {editing ? (
          <CardForm
            initial={fieldsOf(card)}
            others={cards.filter((c) => c.id !== card.id)}
            agents={agents}
            teams={teams}
            submitLabel="Save"
            pending={edit.isPending}
            error={edit.error ? errorMessage(edit.error) : null}
            onSubmit={save}
            onCancel={() => setEditing(false)}
          />
        ) : (
          <CardTask card={card} folder={folder} />
        )}

        <CardComments cardId={card.id} comments={detail.data?.comments} />

        <CardRuns
          runs={runs.data}
          assignee={assignee}
          onShowContext={setContextRun}
          onRetry={
            assignee &&
            !["in_progress", "done", "cancelled"].includes(card.status) &&
            card.waitingOn.length === 0 &&
            !start.isPending
              ? () => start.mutate({ id: card.id, withMemory })
              : undefined
          }
        />
        {(runs.data?.length ?? 0) > 0 && (
          <div className="card-panel__export">
            <span className="muted">Export this card's runs</span>
            <ExportMenu target={{ kind: "card", id: card.id }} testId="card-export" />
          </div>
        )}

        {folder && runs.data?.some((r) => r.kind !== "handoff") && (
          <section className="card-panel__section">
            <h3>Changes</h3>
            <CardDiffView cardId={card.id} />
          </section>
        )}

        <section className="card-panel__section">
          <h3>Activity</h3>
          <ul className="card-activity" data-testid="card-activity">
            {detail.data?.activity.map((a) => (
              <li key={a.id}>
                <time className="muted">{formatTime(a.at)}</time> <strong>{actorLabel(a.actor)}</strong>{" "}
                {activityText(a, columns, numberOf, agents)}
              </li>
            ))}
          </ul>
        </section>
      </div>
      {contextRun &&
        (contextRun.kind === "handoff" ? (
          <RunContextViewer runId={contextRun.runId} who={who(assignee)} onClose={() => setContextRun(null)} />
        ) : (
          <TaskRunContextViewer runId={contextRun.runId} who={who(assignee)} onClose={() => setContextRun(null)} />
        ))}
      {confirmDelete && (
        <ConfirmDialog
          title={`Delete ${cardRef(card)}?`}
          confirmLabel="Delete"
          busy={remove.isPending}
          error={remove.error ? errorMessage(remove.error) : null}
          onConfirm={() => remove.mutate(card.id, { onSuccess: onClose })}
          onCancel={() => setConfirmDelete(false)}
          confirmTestId="card-delete-confirm"
        >
          <p>The card, its comments and its activity are removed. Its runs stay in the agents&apos; history.</p>
        </ConfirmDialog>
      )}
    </Modal>
  );
}

const who = (agent: Agent | undefined) => (agent ? `@${agent.handle}` : "the agent");
