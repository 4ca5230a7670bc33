import type { Room, Team } from "../api";

type Props = { team: Team; room: Room };

/** The team chat of one room. A placeholder: the team-chat work replaces it. */
export function RoomChat({ room }: Props) {
  return (
    <div className="room-chat" data-testid="room-chat">
      <p className="muted">Chat in {room.name}</p>
    </div>
  );
}
