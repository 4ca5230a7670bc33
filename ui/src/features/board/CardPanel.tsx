import { useState } from "react";
import type { Activity, Actor, Agent, BoardColumn, Card, CardRun, CardStatus, RunSummary, Team } from "../../bindings";
import {
  useCardDetail,
  useCardRuns,
  useCommentCard,
  useDeleteCard,
  useEditCard,
  useStartRun,
  useStopRun,
} from "./boardQueries";
import { errorMessage } from "../../errors";
import { cardRef, priorityLabel } from "./board";
import { formatTime } from "../memory/memoryLabels";
import { ActivityCard } from "../activity/ActivityCard";
import { UnconfinedBadge } from "../sandbox/UnconfinedBadge";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { RunContextViewer } from "../run-context/RunContextViewer";
import { CardDiffView } from "./CardDiffView";
import { TaskRunContextViewer } from "./TaskRunContextViewer";
import { ErrorMessage } from "../../components/ErrorMessage";
import { Markdown } from "../../components/Markdown";
import { Modal } from "../../components/Modal";
import { CardForm, fieldsOf, type CardFields } from "./CardForm";

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
  const comment = useCommentCard();
  const remove = useDeleteCard();
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState("");
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [withMemory, setWithMemory] = useState(true);
  const [shownRunId, setShownRunId] = useState<string | null>(null);
  const [contextRun, setContextRun] = useState<CardRun | null>(null);
  const start = useStartRun();
  const stop = useStopRun();

  const card = detail.data?.card;
  // The run whose activity shows: the one picked, else the newest (live while it goes).
  const activityRun = runs.data?.find((r) => r.runId === shownRunId) ?? runs.data?.[runs.data.length - 1] ?? null;
  if (!card) {
    return (
      <Modal title="Card" onClose={onClose} size="wide" testId="card-panel">
        {detail.error ? <ErrorMessage message={errorMessage(detail.error)} /> : <p className="muted">Loading…</p>}
      </Modal>
    );
  }
  const column = columns.find((c) => c.status === card.status);
  const assignee = agents.find((a) => a.id === card.assigneeId);
  const team = teams.find((t) => t.id === card.teamId);
  const numberOf = (id: string) => cards.find((c) => c.id === id)?.number;
  const fromAgentId = card.origin.kind === "handoff" ? card.origin.from_agent_id : null;
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
        <div className="card-panel__meta">
          <span className={`pill status-pill status-${card.status}`} data-testid="card-status">
            {column?.label ?? card.status}
          </span>
          <span className="pill pill--muted">{priorityLabel(card.priority)}</span>
          <span>{assignee ? `@${assignee.handle}` : "Unassigned"}</span>
          <UnconfinedBadge agent={assignee} />
          {team && <span className="muted">{team.name}</span>}
          {card.origin.kind === "handoff" && (
            <span className="muted">
              Handed off by @{agents.find((a) => a.id === fromAgentId)?.handle ?? "a deleted agent"}
            </span>
          )}
          {card.origin.kind === "api" && (
            <span className="muted" data-testid="card-origin-api">
              Started through the local API
            </span>
          )}
          {card.origin.kind === "routine" && (
            <span className="muted" data-testid="card-origin-routine">
              A routine's run
            </span>
          )}
          <span className="card-panel__actions">
            {(column?.allowedMoves ?? []).map((to) => (
              <button
                key={to}
                type="button"
                className="button button--small"
                onClick={() => onMove(card, to)}
                data-testid={`card-panel-move-${to}`}
              >
                {columns.find((c) => c.status === to)?.label ?? to}
              </button>
            ))}
            {!editing && (
              <button type="button" className="button button--small" onClick={() => setEditing(true)} data-testid="card-edit">
                Edit
              </button>
            )}
            <button
              type="button"
              className="button button--small button--danger"
              onClick={() => setConfirmDelete(true)}
              data-testid="card-delete"
            >
              Delete
            </button>
          </span>
        </div>
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

        <RunControls
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
        )}

        <section className="card-panel__section">
          <h3>Comments</h3>
          <ul className="card-comments" data-testid="card-comments">
            {detail.data?.comments.length === 0 && <li className="muted">No comments yet.</li>}
            {detail.data?.comments.map((c) => (
              <li key={c.id} className={`card-comment ${c.kind === "report" ? "is-report" : ""}`} data-testid={`card-comment-${c.kind}`}>
                <div className="card-comment__head">
                  <strong>{actorLabel(c.author)}</strong>
                  {c.kind === "report" && <span className="pill">Report</span>}
                  <time className="muted">{formatTime(c.createdAt)}</time>
                </div>
                <Markdown text={c.text} />
              </li>
            ))}
          </ul>
          <form
            className="card-comment-form"
            onSubmit={(e) => {
              e.preventDefault();
              if (draft.trim() === "") return;
              comment.mutate({ id: card.id, text: draft }, { onSuccess: () => setDraft("") });
            }}
          >
            <textarea
              value={draft}
              onChange={(e) => setDraft(e.target.value)}
              rows={2}
              placeholder="Add a comment"
              data-testid="card-comment-input"
            />
            <button type="submit" className="button button--small" disabled={comment.isPending || draft.trim() === ""}>
              Comment
            </button>
          </form>
          <ErrorMessage message={comment.error ? errorMessage(comment.error) : null} />
        </section>

        <section className="card-panel__section">
          <h3>Runs</h3>
          {runs.data?.length ? (
            <ul className="card-runs" data-testid="card-runs">
              {runs.data.map((run) => (
                <li key={run.runId} className="card-run" data-testid={`card-run-${run.attempt}`}>
                  <span>Attempt {run.attempt}</span>
                  <span className="pill pill--muted">{run.kind}</span>
                  <span className={`run-status run-status--${run.status}`} data-testid={`card-run-status-${run.attempt}`}>
                    {run.status}
                  </span>
                  <time className="muted">{formatTime(run.startedAt)}</time>
                  {run.reason && <span className="muted card-run__reason">{run.reason}</span>}
                  <span className="card-run__actions">
                    <button
                      type="button"
                      className="button button--small"
                      onClick={() => setContextRun(run)}
                      data-testid={`card-run-context-${run.attempt}`}
                    >
                      What it saw
                    </button>
                    <button
                      type="button"
                      className="button button--small"
                      aria-pressed={activityRun?.runId === run.runId}
                      onClick={() => setShownRunId(run.runId)}
                      data-testid={`card-run-activity-${run.attempt}`}
                    >
                      Activity
                    </button>
                  </span>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">No runs yet.</p>
          )}
          {activityRun && assignee && <ActivityCard run={runSummary(activityRun, assignee)} />}
        </section>

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

/** A card's run as the Activity card reads runs. */
function runSummary(run: CardRun, agent: Agent): RunSummary {
  return {
    id: run.runId,
    agentId: agent.id,
    runtime: agent.runtime,
    status: run.status,
    error: run.reason,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
  };
}

/** Start a run (the assignee works on the card in a fresh session), or stop the one going. */
function RunControls({
  card,
  hasAssignee,
  withMemory,
  onWithMemory,
  onStart,
  onStop,
  pending,
}: {
  card: Card;
  hasAssignee: boolean;
  withMemory: boolean;
  onWithMemory: (on: boolean) => void;
  onStart: () => void;
  onStop: () => void;
  pending: boolean;
}) {
  if (card.status === "in_progress") {
    return (
      <div className="card-run-controls">
        <span className="card-run-controls__live">A run is working on this card.</span>
        <button type="button" className="button button--small button--danger" onClick={onStop} disabled={pending} data-testid="card-run-stop">
          Stop
        </button>
      </div>
    );
  }
  if (card.status === "done" || card.status === "cancelled") return null;
  if (!hasAssignee) return <p className="muted card-run-controls">Assign an agent to run this card.</p>;
  const waiting = card.waitingOn.length > 0;
  return (
    <div className="card-run-controls">
      <button
        type="button"
        className="button button--primary button--small"
        onClick={onStart}
        disabled={pending || waiting}
        title={waiting ? "It waits for the cards it depends on." : undefined}
        data-testid="card-run-start"
      >
        Run
      </button>
      <label className="card-run-controls__memory">
        <input type="checkbox" checked={withMemory} onChange={(e) => onWithMemory(e.target.checked)} data-testid="card-run-memory" />
        Give it the memory facts that match the task
      </label>
    </div>
  );
}

function actorLabel(actor: Actor): string {
  switch (actor.kind) {
    case "user":
      return "You";
    case "agent":
      return `@${actor.handle}`;
    case "clawboo":
      return "Clawboo";
  }
}

function activityText(
  entry: Activity,
  columns: BoardColumn[],
  numberOf: (id: string) => number | undefined,
  agents: Agent[],
): string {
  const label = (s: CardStatus) => columns.find((c) => c.status === s)?.label ?? s;
  const who = (id: string | null) => (id ? `@${agents.find((a) => a.id === id)?.handle ?? "deleted agent"}` : "nobody");
  const a = entry.activity;
  switch (a.kind) {
    case "created":
      return "created the card";
    case "edited":
      return `edited ${a.fields.join(", ")}`;
    case "moved":
      return `moved it from ${label(a.from)} to ${label(a.to)}${a.reason ? `: ${a.reason}` : ""}`;
    case "assigned":
      return `assigned it to ${who(a.to)}`;
    case "claimed":
      return "started a run";
    case "released":
      return "ended its run";
    case "commented":
      return "commented";
    case "dependency_added":
      return `made it wait for #${numberOf(a.card_id) ?? "?"}`;
    case "dependency_removed":
      return `stopped it waiting for #${numberOf(a.card_id) ?? "?"}`;
  }
}
