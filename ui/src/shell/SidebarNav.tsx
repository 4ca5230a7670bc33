import type { ReactNode } from "react";

// The sidebar's foot: Home (what runs, what needs you), the Inbox (with its count), the Board,
// Routines, Spend, Memory, Settings and the shortcuts sheet.

type Props = {
  collapsed: boolean;
  settingsOpen: boolean;
  memoryOpen: boolean;
  boardOpen: boolean;
  routinesOpen: boolean;
  spendOpen?: boolean;
  inboxOpen: boolean;
  homeOpen?: boolean;
  /** Open requests (the tray's count); the badge hides at 0. */
  inboxCount: number;
  onOpenSettings: () => void;
  onOpenMemory: () => void;
  onOpenBoard: () => void;
  onOpenRoutines?: () => void;
  onOpenSpend?: () => void;
  onOpenInbox: () => void;
  onOpenHome?: () => void;
  onOpenShortcuts?: () => void;
};

/** One page in the sidebar's foot: its icon and label (the label hides when the sidebar is
 *  collapsed, so the title names it then). */
function NavLink({
  label,
  icon,
  open,
  onOpen,
  collapsed,
  className = "",
  title,
  testId,
  children,
}: {
  label: string;
  icon: string;
  open: boolean;
  onOpen: () => void;
  collapsed: boolean;
  className?: string;
  title?: string;
  testId: string;
  children?: ReactNode;
}) {
  return (
    <button
      type="button"
      className={`sidebar__settings ${className} ${open ? "is-active" : ""}`}
      aria-current={open ? "page" : undefined}
      onClick={onOpen}
      title={title ?? (collapsed ? label : undefined)}
      data-testid={testId}
    >
      <span aria-hidden="true">{icon}</span> <span className="sidebar__label">{label}</span>
      {children}
    </button>
  );
}

export function SidebarNav({
  collapsed,
  settingsOpen,
  memoryOpen,
  boardOpen,
  routinesOpen,
  spendOpen = false,
  inboxOpen,
  homeOpen = false,
  inboxCount,
  onOpenSettings,
  onOpenMemory,
  onOpenBoard,
  onOpenRoutines,
  onOpenSpend,
  onOpenInbox,
  onOpenHome,
  onOpenShortcuts,
}: Props) {
  return (
    <>
      {onOpenHome && (
        <NavLink
          label="Home"
          icon="⌂"
          open={homeOpen}
          onOpen={onOpenHome}
          collapsed={collapsed}
          className="sidebar__home"
          testId="nav-home"
        />
      )}

      <NavLink
        label="Inbox"
        icon="✉"
        open={inboxOpen}
        onOpen={onOpenInbox}
        collapsed={collapsed}
        className="sidebar__inbox"
        title={inboxCount > 0 ? `Inbox: ${inboxCount} waiting for you` : undefined}
        testId="nav-inbox"
      >
        {inboxCount > 0 && (
          <span className="sidebar__count" data-testid="inbox-count">
            {inboxCount}
          </span>
        )}
      </NavLink>
      <NavLink
        label="Board"
        icon="▦"
        open={boardOpen}
        onOpen={onOpenBoard}
        collapsed={collapsed}
        className="sidebar__board"
        testId="nav-board"
      />
      {onOpenRoutines && (
        <NavLink
          label="Routines"
          icon="↻"
          open={routinesOpen}
          onOpen={onOpenRoutines}
          collapsed={collapsed}
          className="sidebar__routines"
          testId="nav-routines"
        />
      )}
      {onOpenSpend && (
        <NavLink
          label="Spend"
          icon="$"
          open={spendOpen}
          onOpen={onOpenSpend}
          collapsed={collapsed}
          className="sidebar__spend"
          testId="nav-spend"
        />
      )}
      <NavLink
        label="Memory"
        icon="◎"
        open={memoryOpen}
        onOpen={onOpenMemory}
        collapsed={collapsed}
        className="sidebar__memory"
        testId="nav-memory"
      />
      <NavLink
        label="Settings"
        icon="⚙"
        open={settingsOpen}
        onOpen={onOpenSettings}
        collapsed={collapsed}
        testId="settings-link"
      />
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
