import type { Agent, Room } from "../../bindings";

/** Who is in a named room and who leads it (General, the whole team, needs no summary). */
export function RoomSummary({ room, byId }: { room: Room; byId: Map<string, Agent> }) {
  const handle = (id: string | null) => (id ? `@${byId.get(id)?.handle ?? "unknown"}` : "nobody");
  if (room.isGeneral) return null;
  return (
    <p className="room-summary" data-testid="room-summary">
      {room.memberIds.length === 0
        ? "Nobody is in this room: every member left the team. Pick members from the room's menu."
        : `${room.memberIds.map(handle).join(", ")} · led by ${handle(room.leaderId)}`}
    </p>
  );
}
