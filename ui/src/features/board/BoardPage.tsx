import { useMemo, useState } from "react";
import {
  DndContext,
  DragOverlay,
  KeyboardSensor,
  PointerSensor,
  useSensor,
  useSensors,
  type DragEndEvent,
  type DragStartEvent,
} from "@dnd-kit/core";
import type { Agent, Card, CardFilter, CardStatus, RunSpend, TaskTrace, Team, Totals } from "../../bindings";
import { CardTilePicture } from "./CardTile";
import { totalsOfRuns } from "../spend/money";
import { useRunsSpend } from "../spend/spendQueries";
import { boardAnnouncements, columnKeyboardCoordinates, columnUnderPointer } from "./boardDrag";
import { useBoardColumns, useCards, useCreateCard, useMoveCard, useTraces } from "./boardQueries";
import { BoardColumnView } from "./BoardColumnView";
import { CardForm, fieldsOf } from "./CardForm";
import { CardPanel } from "./CardPanel";
import { ErrorMessage } from "../../components/ErrorMessage";
import { Modal } from "../../components/Modal";
import { useToasts } from "../../components/Toasts";
import { errorCode, errorMessage } from "../../errors";
import { cardRef, inColumn, positionBetween } from "./board";
import { BoardFilters } from "./BoardFilters";
import { BlockReasonDialog } from "./BlockReasonDialog";

type Props = {
  teams: Team[];
  agents: Agent[];
  /** The card whose panel is open: part of the app's route, so the Inbox can open a card and the
   *  app knows which card the window shows. */
  openCardId: string | null;
  onOpenCard: (cardId: string | null) => void;
};

const NO_FILTER: CardFilter = { teamId: null, assigneeId: null, status: null };

/** The Board: task cards in columns, moved by drag and drop (or a card's ⋯ menu), filtered by
 *  team, agent and status; a card opens to what its agent was asked and what it did. */
export function BoardPage({ teams, agents, openCardId: openId, onOpenCard: setOpenId }: Props) {
  const [filter, setFilter] = useState<CardFilter>(NO_FILTER);
  const columns = useBoardColumns();
  const cards = useCards(filter);
  const all = useCards(NO_FILTER);
  const move = useMoveCard();
  const create = useCreateCard();
  const toasts = useToasts();
  const [creating, setCreating] = useState(false);
  const [blocking, setBlocking] = useState<{ card: Card; position: number | null } | null>(null);
  const [dragging, setDragging] = useState<Card | null>(null);
  const sensors = useSensors(
    // A press that does not move is a click (opens the card, or its menu).
    useSensor(PointerSensor, { activationConstraint: { distance: 6 } }),
    // Space picks a focused card up, arrows move it a column at a time, Space drops it.
    useSensor(KeyboardSensor, { coordinateGetter: columnKeyboardCoordinates }),
  );

  const traces = useTraces();
  const list = cards.data ?? [];
  // What each card's runs spent, as the engine counted it (the same rows as a card's Runs).
  const traceRunIds = useMemo(() => (traces.data ?? []).map((t) => t.runId), [traces.data]);
  const runsSpent = useRunsSpend(traceRunIds, (traces.data ?? []).map((t) => t.status).join(",")).data;
  const spend = useMemo(() => spendByCard(traces.data ?? [], runsSpent ?? []), [traces.data, runsSpent]);
  const numbers = useMemo(() => new Map((all.data ?? []).map((c) => [c.id, c.number])), [all.data]);
  const shown = (columns.data ?? []).filter((c) => filter.status === null || c.status === filter.status);
  const announcements = useMemo(
    () =>
      boardAnnouncements(
        (id) => {
          const card = list.find((c) => c.id === id);
          return card ? `${cardRef(card)} ${card.title}` : "the card";
        },
        (id) => columns.data?.find((c) => c.status === id)?.label ?? String(id),
      ),
    [list, columns.data],
  );
  const allowed = (from: CardStatus, to: CardStatus) =>
    columns.data?.find((c) => c.status === from)?.allowedMoves.includes(to) ?? false;

  const moveCard = (card: Card, to: CardStatus, position: number | null = null) => {
    if (to === "blocked" && card.status !== "blocked") {
      setBlocking({ card, position });
      return;
    }
    move.mutate({ id: card.id, to, position }, { onError: (e) => toasts.error(errorMessage(e), errorCode(e)) });
  };

  const onDragEnd = ({ active, over }: DragEndEvent) => {
    setDragging(null);
    const card = (active.data.current as { card: Card } | undefined)?.card;
    if (!card || !over) return;
    const to = over.id as CardStatus;
    const column = inColumn(list, to).filter((c) => c.id !== card.id);
    // Dropped on a column: it goes to the end (ordering within a column is by position).
    const position = positionBetween(column[column.length - 1]?.position ?? null, null);
    if (to === card.status) return;
    if (!allowed(card.status, to)) {
      const fromLabel = columns.data?.find((c) => c.status === card.status)?.label;
      const toLabel = columns.data?.find((c) => c.status === to)?.label;
      toasts.error(
        to === "in_progress"
          ? `${cardRef(card)} goes to In progress when a run starts on it.`
          : `${cardRef(card)} cannot go from ${fromLabel} to ${toLabel}.`,
      );
      return;
    }
    moveCard(card, to, position);
  };

  return (
    <div className="board-page" data-testid="board-page">
      <header className="board-page__header">
        <div>
          <h1 className="page-title">Board</h1>
          <p className="muted">Work your agents take on, from your hands or a leader&apos;s hand-off.</p>
        </div>
        <BoardFilters
          filter={filter}
          teams={teams}
          agents={agents}
          columns={columns.data ?? []}
          onChange={setFilter}
          onNew={() => setCreating(true)}
        />
      </header>
      <ErrorMessage message={cards.error ? errorMessage(cards.error) : null} />
      <DndContext
        sensors={sensors}
        collisionDetection={columnUnderPointer}
        accessibility={{ announcements }}
        onDragStart={({ active }: DragStartEvent) =>
          setDragging((active.data.current as { card: Card } | undefined)?.card ?? null)
        }
        onDragCancel={() => setDragging(null)}
        onDragEnd={onDragEnd}
      >
        <div className="board-columns">
          {shown.map((column) => (
            <BoardColumnView
              key={column.status}
              column={column}
              columns={columns.data ?? []}
              cards={inColumn(list, column.status)}
              agents={agents}
              numbers={numbers}
              spend={spend}
              dragActive={dragging !== null}
              refusesDrop={dragging !== null && dragging.status !== column.status && !allowed(dragging.status, column.status)}
              onOpen={setOpenId}
              onMove={(card, to) => moveCard(card, to)}
            />
          ))}
        </div>
        {/* The card follows the pointer above everything; nothing in the columns moves. */}
        <DragOverlay dropAnimation={null}>
          {dragging && <CardTilePicture card={dragging} agents={agents} numbers={numbers} spend={spend.get(dragging.id)} />}
        </DragOverlay>
      </DndContext>
      {list.length === 0 && cards.isSuccess && (
        <p className="board-page__empty muted">
          No cards here yet. Make one with <strong>New card</strong>, or let a team&apos;s leader hand off work.
        </p>
      )}

      {creating && (
        <Modal title="New card" onClose={() => setCreating(false)} size="wide" testId="new-card-dialog">
          <CardForm
            initial={{ ...fieldsOf(null), teamId: filter.teamId, assigneeId: filter.assigneeId }}
            others={all.data ?? []}
            agents={agents}
            teams={teams}
            submitLabel="Create card"
            pending={create.isPending}
            error={create.error ? errorMessage(create.error) : null}
            onCancel={() => setCreating(false)}
            onSubmit={(fields) =>
              create.mutate(
                { ...fields, status: null, priority: fields.priority },
                { onSuccess: () => setCreating(false) },
              )
            }
          />
        </Modal>
      )}
      {blocking && (
        <BlockReasonDialog
          card={blocking.card}
          onCancel={() => setBlocking(null)}
          onBlock={(reason) => {
            move.mutate(
              { id: blocking.card.id, to: "blocked", reason, position: blocking.position },
              { onError: (e) => toasts.error(errorMessage(e), errorCode(e)) },
            );
            setBlocking(null);
          }}
        />
      )}
      {openId && (
        <CardPanel
          cardId={openId}
          cards={all.data ?? []}
          agents={agents}
          teams={teams}
          columns={columns.data ?? []}
          onMove={(card, to) => moveCard(card, to)}
          onClose={() => setOpenId(null)}
        />
      )}
    </div>
  );
}

/** What each card's runs spent, from the spend the engine counted for the newest traces' runs:
 *  money only where a price was known, tokens on the subscription and unpriced tokens apart. */
function spendByCard(traces: TaskTrace[], spent: RunSpend[]): Map<string, Totals> {
  const cardOf = new Map(traces.map((t) => [t.runId, t.cardId]));
  const runsOf = new Map<string, RunSpend[]>();
  for (const run of spent) {
    const cardId = cardOf.get(run.runId);
    if (cardId) runsOf.set(cardId, [...(runsOf.get(cardId) ?? []), run]);
  }
  return new Map([...runsOf].map(([cardId, runs]) => [cardId, totalsOfRuns(runs)]));
}
