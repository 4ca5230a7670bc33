import { useEffect, useMemo, useRef, useState } from "react";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { call } from "../../api";
import { errorMessage } from "../../errors";
import type { Route } from "../../shell/route";
import { itemOf, jumpToMessage, KIND_LABELS, recentItems, rememberItem, type PaletteItem } from "./paletteItems";

/** Search everything (⌘/Ctrl+K): agents, teams, rooms, chats, cards, routines, memory and every
 *  message, as you type. Arrows move, Enter opens, Esc closes; with nothing typed, the items
 *  opened last. */
export function SearchPalette({ onClose, onNavigate }: { onClose: () => void; onNavigate: (route: Route) => void }) {
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLUListElement>(null);
  const typed = query.trim() !== "";
  const found = useQuery({
    queryKey: ["search", query],
    queryFn: () => call("searchEverything", query),
    enabled: typed,
    placeholderData: keepPreviousData,
    staleTime: 5_000,
  });
  const recent = useMemo(recentItems, []);
  const items: PaletteItem[] = typed ? (found.data ?? []).map(itemOf) : recent;

  useEffect(() => input.current?.focus(), []);
  useEffect(() => setActive(0), [query]);
  useEffect(() => {
    list.current?.querySelector(`[data-index="${active}"]`)?.scrollIntoView?.({ block: "nearest" });
  }, [active]);

  const open = (item: PaletteItem | undefined) => {
    if (!item) return;
    rememberItem(item);
    onClose();
    onNavigate(item.route);
    if (item.messageId) jumpToMessage(item.messageId);
  };

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      if (items.length === 0) return;
      const step = e.key === "ArrowDown" ? 1 : -1;
      setActive((a) => (a + step + items.length) % items.length);
    } else if (e.key === "Enter") {
      e.preventDefault();
      open(items[active]);
    } else if (e.key === "Escape") {
      e.preventDefault();
      e.stopPropagation();
      onClose();
    }
  };

  return (
    <div
      className="modal-backdrop search-backdrop"
      onMouseDown={(e) => {
        if (e.target === e.currentTarget) onClose();
      }}
    >
      <div className="search-palette" role="dialog" aria-modal="true" aria-label="Search everything" data-testid="search-palette">
        <input
          ref={input}
          className="search-palette__input"
          placeholder="Search agents, teams, chats, messages, cards, memory…"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          onKeyDown={onKeyDown}
          role="combobox"
          aria-expanded="true"
          aria-controls="search-results"
          aria-activedescendant={items[active] ? `search-item-${active}` : undefined}
          data-testid="search-input"
        />
        {typed && found.isError && <p className="search-palette__empty">Search failed: {errorMessage(found.error)}</p>}
        {!typed && items.length > 0 && <p className="search-palette__heading">Recent</p>}
        {items.length === 0 ? (
          <p className="search-palette__empty" data-testid="search-empty">
            {typed ? (found.isFetching ? "Searching…" : "Nothing matches.") : "Type to search everything."}
          </p>
        ) : (
          <ul className="search-palette__list" id="search-results" role="listbox" ref={list}>
            {items.map((item, i) => (
              <li
                key={item.key}
                id={`search-item-${i}`}
                data-index={i}
                role="option"
                aria-selected={i === active}
                className={i === active ? "search-item is-active" : "search-item"}
                onMouseMove={() => setActive(i)}
                onClick={() => open(item)}
                data-testid="search-item"
              >
                <span className={`search-item__kind search-item__kind--${item.kind}`}>{KIND_LABELS[item.kind]}</span>
                <span className="search-item__text">
                  <span className="search-item__title">
                    {item.title}
                    {item.detail && <span className="search-item__detail"> · {item.detail}</span>}
                  </span>
                  {item.snippet && (
                    <span className="search-item__snippet">
                      {item.snippet.map((part, n) => (part.hit ? <mark key={n}>{part.text}</mark> : <span key={n}>{part.text}</span>))}
                    </span>
                  )}
                </span>
              </li>
            ))}
          </ul>
        )}
        <p className="search-palette__keys muted">↑↓ to move · Enter to open · Esc to close</p>
      </div>
    </div>
  );
}
