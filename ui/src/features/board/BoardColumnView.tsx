import { useDroppable } from "@dnd-kit/core";
import type { Agent, BoardColumn, Card, CardStatus } from "../../bindings";
import { CardTile, type CardSpend } from "./CardTile";

type Props = {
  column: BoardColumn;
  columns: BoardColumn[];
  cards: Card[];
  agents: Agent[];
  numbers: Map<string, number>;
  spend: Map<string, CardSpend>;
  /** A drag is on and this column is not a legal place for its card. */
  refusesDrop: boolean;
  /** A drag is on: every column shows it takes drops (an empty one stays narrow: the layout
   *  never moves under the pointer). */
  dragActive: boolean;
  onOpen: (id: string) => void;
  onMove: (card: Card, to: CardStatus) => void;
};

export function BoardColumnView({ column, columns, cards, agents, numbers, spend, refusesDrop, dragActive, onOpen, onMove }: Props) {
  const { setNodeRef, isOver } = useDroppable({ id: column.status });
  // An empty column stays a narrow strip, so every column fits on screen, also during a drag.
  const collapsed = cards.length === 0;
  return (
    <section
      ref={setNodeRef}
      className={`board-column ${collapsed ? "is-collapsed" : ""} ${dragActive && !refusesDrop ? "is-drop-target" : ""} ${isOver ? (refusesDrop ? "is-refusing" : "is-over") : ""}`}
      aria-label={column.label}
      data-testid={`column-${column.status}`}
    >
      <header className="board-column__head">
        <h2>{column.label}</h2>
        <span className="board-column__count">{cards.length}</span>
      </header>
      <ul className="board-column__cards">
        {cards.map((card) => (
          <CardTile
            key={card.id}
            card={card}
            agents={agents}
            numbers={numbers}
            spend={spend.get(card.id)}
            column={column}
            columns={columns}
            onOpen={onOpen}
            onMove={onMove}
          />
        ))}
      </ul>
    </section>
  );
}
