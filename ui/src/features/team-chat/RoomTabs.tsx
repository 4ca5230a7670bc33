import type { Room } from "../../bindings";
import { Menu } from "../../components/Menu";
import { ExportMenu } from "../search/ExportMenu";
import { UnreadMark } from "../../components/UnreadMark";
import { useUnreadCounts } from "../chat/unread";

/** The team's rooms as tabs (General first), the open room's menu, and + for a new room. */
export function RoomTabs({
  rooms,
  room,
  onOpen,
  onEdit,
  onDelete,
  onNew,
}: {
  rooms: Room[];
  /** The open room. */
  room: Room | undefined;
  onOpen: (roomId: string) => void;
  onEdit: (roomId: string, focus: "name" | "members") => void;
  onDelete: (roomId: string) => void;
  onNew: () => void;
}) {
  const unread = useUnreadCounts();
  return (
    <div className="tabs room-tabs" role="tablist" aria-label="Rooms">
      {rooms.map((r) => (
        <div key={r.id} className={`room-tab ${r.id === room?.id ? "is-active" : ""}`}>
          <button
            type="button"
            role="tab"
            aria-selected={r.id === room?.id}
            className={`tab ${r.id === room?.id ? "is-active" : ""}`}
            onClick={() => onOpen(r.id)}
            data-testid={`room-tab-${r.name}`}
          >
            {r.isGeneral ? "General" : r.name}
            {r.id !== room?.id && (
              <UnreadMark count={unread.byRoom.get(r.id)} what={`in ${r.isGeneral ? "General" : r.name}`} />
            )}
          </button>
          {!r.isGeneral && r.id === room?.id && (
            <Menu
              label={`Room ${r.name} actions`}
              className="room-tab__menu"
              testId="room-menu"
              items={[
                { label: "Rename", onSelect: () => onEdit(r.id, "name") },
                {
                  label: "Members…",
                  onSelect: () => onEdit(r.id, "members"),
                },
                {
                  label: "Delete room…",
                  danger: true,
                  onSelect: () => onDelete(r.id),
                  testId: "room-delete",
                },
              ]}
            />
          )}
        </div>
      ))}
      <button
        type="button"
        className="tab room-tabs__add"
        onClick={onNew}
        aria-label="New room"
        title="New room"
        data-testid="new-room-button"
      >
        +
      </button>
      {room && <ExportMenu target={{ kind: "room", id: room.id }} testId="room-export" />}
    </div>
  );
}
