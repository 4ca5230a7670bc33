import { useDraggable } from "@dnd-kit/core";
import type { Agent, BoardColumn, Card, CardStatus, Totals } from "../../bindings";
import { cacheShare, headlineParts, totalTokens } from "../spend/money";
import { cardRef, priorityLabel } from "./board";
import { runtimeLabel } from "../../lib/runtimes";
import { Menu } from "../../components/Menu";
import { TintDot } from "../../components/TintDot";
import { UnconfinedBadge } from "../sandbox/UnconfinedBadge";

/** What a card's runs spent, as the engine counted it. */
export type CardSpend = Totals;

/** The badge's text: money for what had a price, else the tokens and why there is no money. */
function spendBadge(spend: CardSpend): string {
  const { figure, note } = headlineParts(spend);
  if (!note) return figure;
  return note.startsWith("+") ? `${figure} ${note}` : `${figure} · ${note}`;
}

type Props = {
  card: Card;
  agents: Agent[];
  /** Numbers of cards by id, to say which ones this card waits for. */
  numbers: Map<string, number>;
  spend: CardSpend | undefined;
  column: BoardColumn | undefined;
  columns: BoardColumn[];
  onOpen: (id: string) => void;
  onMove: (card: Card, to: CardStatus) => void;
};

/** A card on the Board: drag it to another column (pointer or keyboard), or use its ⋯ menu to
 *  move it. While it is dragged, it stays in place as a faint placeholder and its picture
 *  ([`CardTilePicture`]) follows the pointer. */
export function CardTile(props: Props) {
  const { card } = props;
  const { attributes, listeners, setNodeRef, isDragging } = useDraggable({ id: card.id, data: { card } });
  return (
    <li
      ref={setNodeRef}
      className={`card-tile priority-${card.priority} ${isDragging ? "is-placeholder" : ""}`}
      data-testid={`card-${card.number}`}
      aria-label={`${cardRef(card)} ${card.title}`}
      {...attributes}
      {...listeners}
    >
      <CardTileFace {...props} />
    </li>
  );
}

/** What follows the pointer during a drag: the card's face, not a live tile. */
export function CardTilePicture(props: Omit<Props, "onOpen" | "onMove" | "column" | "columns">) {
  return (
    <div className={`card-tile priority-${props.card.priority} is-dragging`} data-testid="card-drag-picture">
      <CardTileFace {...props} column={undefined} columns={[]} onOpen={() => {}} onMove={() => {}} />
    </div>
  );
}

function CardTileFace({ card, agents, numbers, spend, column, columns, onOpen, onMove }: Props) {
  const assignee = agents.find((a) => a.id === card.assigneeId);
  const moves = (column?.allowedMoves ?? []).map((to) => ({
    label: `Move to ${columns.find((c) => c.status === to)?.label ?? to}`,
    onSelect: () => onMove(card, to),
    testId: `card-move-${card.number}-${to}`,
  }));
  return (
    <>
      <div className="card-tile__head">
        <span className="card-tile__ref">{cardRef(card)}</span>
        {card.priority !== "medium" && (
          <span className={`pill pill--priority-${card.priority}`}>{priorityLabel(card.priority)}</span>
        )}
        {moves.length > 0 && (
          <Menu label={`Move ${cardRef(card)}`} items={moves} testId={`card-menu-${card.number}`} className="card-tile__menu" />
        )}
      </div>
      <button type="button" className="card-tile__title" onClick={() => onOpen(card.id)}>
        {card.title}
      </button>
      {card.blockedReason && card.status === "blocked" && (
        <p className="card-tile__blocked" title={card.blockedReason}>
          {card.blockedReason}
        </p>
      )}
      <div className="card-tile__badges">
        {assignee ? (
          <span className="card-tile__assignee">
            <TintDot tint={assignee.tint} /> @{assignee.handle}
            <UnconfinedBadge agent={assignee} />
          </span>
        ) : (
          <span className="muted">Unassigned</span>
        )}
        {assignee && <span className="pill pill--muted">{runtimeLabel(assignee.runtime)}</span>}
        {spend && totalTokens(spend) > 0 && (
          <span
            className="pill pill--muted"
            title={`What its runs spent · cache reads ${cacheShare(spend)}`}
            data-testid={`card-spend-${card.number}`}
          >
            {spendBadge(spend)}
          </span>
        )}
        {card.waitingOn.length > 0 && (
          <span className="pill pill--warning" title="Waits for these cards to be done">
            waits on {card.waitingOn.map((id) => `#${numbers.get(id) ?? "?"}`).join(", ")}
          </span>
        )}
      </div>
    </>
  );
}
