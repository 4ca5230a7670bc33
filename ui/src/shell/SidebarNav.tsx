// The sidebar's foot: Home (what runs, what needs you), the Inbox (with its count), the Board, Routines, Memory, Settings and the
// shortcuts sheet.

type Props = {
  collapsed: boolean;
  settingsOpen: boolean;
  memoryOpen: boolean;
  boardOpen: boolean;
  routinesOpen: boolean;
  inboxOpen: boolean;
  homeOpen?: boolean;
  /** Open requests (the tray's count); the badge hides at 0. */
  inboxCount: number;
  onOpenSettings: () => void;
  onOpenMemory: () => void;
  onOpenBoard: () => void;
  onOpenRoutines?: () => void;
  onOpenInbox: () => void;
  onOpenHome?: () => void;
  onOpenShortcuts?: () => void;
};

export function SidebarNav({
  collapsed,
  settingsOpen,
  memoryOpen,
  boardOpen,
  routinesOpen,
  inboxOpen,
  homeOpen = false,
  inboxCount,
  onOpenSettings,
  onOpenMemory,
  onOpenBoard,
  onOpenRoutines,
  onOpenInbox,
  onOpenHome,
  onOpenShortcuts,
}: Props) {
  return (
    <>
      {onOpenHome && (
        <button
          type="button"
          className={`sidebar__settings sidebar__home ${homeOpen ? "is-active" : ""}`}
          aria-current={homeOpen ? "page" : undefined}
          onClick={onOpenHome}
          title={collapsed ? "Home" : undefined}
          data-testid="nav-home"
        >
          <span aria-hidden="true">⌂</span> <span className="sidebar__label">Home</span>
        </button>
      )}

      <button
        type="button"
        className={`sidebar__settings sidebar__inbox ${inboxOpen ? "is-active" : ""}`}
        aria-current={inboxOpen ? "page" : undefined}
        onClick={onOpenInbox}
        title={inboxCount > 0 ? `Inbox: ${inboxCount} waiting for you` : collapsed ? "Inbox" : undefined}
        data-testid="nav-inbox"
      >
        <span aria-hidden="true">✉</span> <span className="sidebar__label">Inbox</span>
        {inboxCount > 0 && (
          <span className="sidebar__count" data-testid="inbox-count">
            {inboxCount}
          </span>
        )}
      </button>
      <button
        type="button"
        className={`sidebar__settings sidebar__board ${boardOpen ? "is-active" : ""}`}
        aria-current={boardOpen ? "page" : undefined}
        onClick={onOpenBoard}
        title={collapsed ? "Board" : undefined}
        data-testid="nav-board"
      >
        <span aria-hidden="true">▦</span> <span className="sidebar__label">Board</span>
      </button>
      {onOpenRoutines && (
        <button
          type="button"
          className={`sidebar__settings sidebar__routines ${routinesOpen ? "is-active" : ""}`}
          aria-current={routinesOpen ? "page" : undefined}
          onClick={onOpenRoutines}
          title={collapsed ? "Routines" : undefined}
          data-testid="nav-routines"
        >
          <span aria-hidden="true">↻</span> <span className="sidebar__label">Routines</span>
        </button>
      )}
      <button
        type="button"
        className={`sidebar__settings sidebar__memory ${memoryOpen ? "is-active" : ""}`}
        aria-current={memoryOpen ? "page" : undefined}
        onClick={onOpenMemory}
        title={collapsed ? "Memory" : undefined}
        data-testid="nav-memory"
      >
        <span aria-hidden="true">◎</span> <span className="sidebar__label">Memory</span>
      </button>
      <button
        type="button"
        className={`sidebar__settings ${settingsOpen ? "is-active" : ""}`}
        aria-current={settingsOpen ? "page" : undefined}
        onClick={onOpenSettings}
        title={collapsed ? "Settings" : undefined}
        data-testid="settings-link"
      >
        <span aria-hidden="true">⚙</span> <span className="sidebar__label">Settings</span>
      </button>
      {onOpenShortcuts && (
        <button
          type="button"
          className="sidebar__settings sidebar__shortcuts"
          onClick={onOpenShortcuts}
          title="Keyboard shortcuts (?)"
          data-testid="shortcuts-button"
        >
          <span aria-hidden="true">⌨</span>{" "}
          <span className="sidebar__label">
            Shortcuts <kbd>?</kbd>
          </span>
        </button>
      )}
    </>
  );
}
