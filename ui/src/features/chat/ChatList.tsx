import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import type { ChatSummary } from "../../bindings";
import { Menu } from "../../components/Menu";
import { errorMessage } from "../../errors";
import { useToasts } from "../../components/Toasts";
import { useChatActions } from "./chatQueries";
import { chatTitle } from "./lastChat";

/** How long a deleted chat offers Undo (the engine keeps it a little longer before purging). */
export const UNDO_MS = 5_000;

type Props = {
  agentId: string;
  chats: ChatSummary[];
  selectedId: string | null;
  onSelect: (chatId: string) => void;
  onNewChat: () => void;
  /** Shown (beside the conversation, or as a drawer in a narrow window); hidden, its Undo
   *  offer still shows. */
  open: boolean;
  /** Closes the list. */
  onClose: () => void;
};

/** An agent's chats: pinned on top, then the most recently used; archived ones in their own
 *  section. Each row opens its chat; its menu renames, pins, archives or deletes (with Undo). */
export function ChatList({ agentId, chats, selectedId, onSelect, onNewChat, open, onClose }: Props) {
  const actions = useChatActions(agentId);
  const toasts = useToasts();
  const [renaming, setRenaming] = useState<string | null>(null);
  const [showArchived, setShowArchived] = useState(false);
  const [deleted, setDeleted] = useState<ChatSummary | null>(null);
  const active = chats.filter((c) => c.archivedAt === null);
  const archived = chats.filter((c) => c.archivedAt !== null);

  useEffect(() => {
    if (!deleted) return;
    const timer = setTimeout(() => setDeleted(null), UNDO_MS);
    return () => clearTimeout(timer);
  }, [deleted]);

  const failed = (e: unknown) => toasts.error(errorMessage(e));

  const remove = (chat: ChatSummary) => {
    actions.remove.mutate(chat.id, {
      onSuccess: () => {
        setDeleted(chat);
        // The open chat went: the next one in the list opens.
        if (chat.id === selectedId) {
          const next = active.find((c) => c.id !== chat.id);
          if (next) onSelect(next.id);
        }
      },
      onError: failed,
    });
  };

  const undo = () => {
    if (!deleted) return;
    const chat = deleted;
    setDeleted(null);
    actions.restore.mutate(chat.id, { onSuccess: () => onSelect(chat.id), onError: failed });
  };

  const row = (chat: ChatSummary) => {
    const title = chatTitle(chat);
    const isArchived = chat.archivedAt !== null;
    return (
      <li key={chat.id} className={`chat-list__row ${chat.id === selectedId ? "is-selected" : ""}`}>
        {renaming === chat.id ? (
          <RenameField
            initial={chat.title ?? ""}
            onDone={(next) => {
              setRenaming(null);
              if (next !== null && next !== (chat.title ?? ""))
                actions.rename.mutate({ chatId: chat.id, title: next }, { onError: failed });
            }}
          />
        ) : (
          <button
            type="button"
            className="chat-list__open"
            aria-current={chat.id === selectedId ? "page" : undefined}
            onClick={() => onSelect(chat.id)}
            onDoubleClick={() => setRenaming(chat.id)}
            title={title}
            data-testid={`chat-item-${chat.id}`}
          >
            {chat.pinned && (
              // Drawn, not an emoji: not every system font has the pin (Linux showed a box).
              <svg className="chat-list__pin" viewBox="0 0 16 16" width="12" height="12" role="img" aria-label="Pinned">
                <path
                  fill="currentColor"
                  d="M9.8 1.2l5 5-1.3 1.3-.8-.4-2.6 2.6.4 3.2-1.3 1.3-2.9-2.9-3.6 3.6H2v-.7l3.6-3.6-2.9-2.9 1.3-1.3 3.2.4 2.6-2.6-.4-.8z"
                />
              </svg>
            )}
            <span className="chat-list__title">{title}</span>
          </button>
        )}
        <Menu
          label={`Actions for ${title}`}
          className="chat-list__menu"
          testId={`chat-menu-${chat.id}`}
          items={[
            { label: "Rename", onSelect: () => setRenaming(chat.id), testId: "chat-rename" },
            {
              label: chat.pinned ? "Unpin" : "Pin",
              onSelect: () => actions.pin.mutate({ chatId: chat.id, pinned: !chat.pinned }, { onError: failed }),
              testId: "chat-pin",
            },
            {
              label: isArchived ? "Restore from archive" : "Archive",
              onSelect: () =>
                actions.archive.mutate({ chatId: chat.id, archived: !isArchived }, { onError: failed }),
              testId: "chat-archive",
            },
            { label: "Delete", onSelect: () => remove(chat), danger: true, testId: "chat-delete" },
          ]}
        />
      </li>
    );
  };

  const undoOffer = deleted && (
    <div className="toasts">
      <div className="toast" role="status" data-testid="chat-deleted-toast">
        <span>Deleted “{chatTitle(deleted)}”.</span>
        <button type="button" className="button button--small" onClick={undo} data-testid="chat-undo">
          Undo
        </button>
      </div>
    </div>
  );
  if (!open) return undoOffer || null;

  return (
    <aside className="chat-list" aria-label="Chats" data-testid="chat-list">
      <div className="chat-list__head">
        <h2 className="chat-list__heading">Chats</h2>
        <button
          type="button"
          className="button button--small"
          onClick={onNewChat}
          title="New chat (⌘/Ctrl+Shift+O)"
          data-testid="chat-list-new"
        >
          + New
        </button>
        <button
          type="button"
          className="button button--small chat-list__close"
          onClick={onClose}
          aria-label="Hide chats"
          data-testid="chat-list-close"
        >
          ×
        </button>
      </div>
      <ul className="chat-list__items">{active.map(row)}</ul>
      {active.length === 0 && <p className="muted chat-list__empty">No chats yet: write a message to start one.</p>}
      {archived.length > 0 && (
        <div className="chat-list__archived">
          <button
            type="button"
            className="chat-list__section"
            aria-expanded={showArchived}
            onClick={() => setShowArchived((s) => !s)}
            data-testid="chat-archived-toggle"
          >
            {showArchived ? "▾" : "▸"} Archived ({archived.length})
          </button>
          {showArchived && <ul className="chat-list__items">{archived.map(row)}</ul>}
        </div>
      )}
      {undoOffer}
    </aside>
  );
}

/** The title being edited in place: Enter or leaving the field saves, Escape cancels. */
function RenameField({ initial, onDone }: { initial: string; onDone: (title: string | null) => void }) {
  const [value, setValue] = useState(initial);
  const input = useRef<HTMLInputElement>(null);
  const done = useRef(false);
  useEffect(() => {
    input.current?.focus();
    input.current?.select();
  }, []);
  const finish = (title: string | null) => {
    if (done.current) return;
    done.current = true;
    onDone(title);
  };
  const keyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === "Enter") {
      e.preventDefault();
      finish(value.trim());
    } else if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      finish(null);
    }
  };
  return (
    <input
      ref={input}
      className="chat-list__rename"
      value={value}
      maxLength={200}
      aria-label="Chat title"
      onChange={(e) => setValue(e.target.value)}
      onKeyDown={keyDown}
      onBlur={() => finish(value.trim())}
      data-testid="chat-rename-input"
    />
  );
}
