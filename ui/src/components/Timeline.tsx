import { useCallback, useLayoutEffect, useRef, type CSSProperties, type ReactNode } from "react";
import { useVirtualizer } from "@tanstack/react-virtual";

/** How close to the bottom (px) still counts as "at the bottom". */
const STICKY_SLACK = 48;
/** How close to the top (px) asks for older items. */
const LOAD_OLDER_SLACK = 300;

export type TimelineProps<T> = {
  /** Oldest first. */
  items: T[];
  getKey: (item: T) => string;
  renderItem: (item: T) => ReactNode;
  /** Whether older items can be loaded; asked for when the user scrolls near the top. */
  hasOlder: boolean;
  loadingOlder: boolean;
  onLoadOlder: () => void;
  /** Rows after the items that change often (a message being sent, a streaming reply). */
  footer?: ReactNode;
  /** Shown when there are no items and no footer. */
  empty?: ReactNode;
  /** A guess at a row's height before it is measured. */
  estimateSize?: number;
  /** Changes when the user acts (sends): the list goes back to the bottom. */
  followKey?: unknown;
  className?: string;
  style?: CSSProperties;
  ariaLabel: string;
  testId?: string;
};

/**
 * A long conversation, newest at the bottom, only the rows in view in the DOM. Rows have their
 * own heights (measured as they render). It stays at the bottom while content grows unless the
 * user scrolled up, and keeps the rows in view in place when older ones are added above.
 * Generic so team rooms can show hand-off and batch cards in the same list.
 */
export function Timeline<T>({
  items,
  getKey,
  renderItem,
  hasOlder,
  loadingOlder,
  onLoadOlder,
  footer,
  empty,
  estimateSize = 72,
  followKey,
  className,
  style,
  ariaLabel,
  testId,
}: TimelineProps<T>) {
  const scroller = useRef<HTMLDivElement>(null);
  const content = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);

  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => estimateSize,
    getItemKey: (index) => getKey(items[index]),
    overscan: 6,
    gap: 10,
    // Rows added above keep the rows in view where they are.
    anchorTo: "end",
    // Open at the bottom: the first rows rendered are the newest, not the oldest.
    initialOffset: () => Math.max(0, items.length * (estimateSize + 10) - (scroller.current?.clientHeight ?? 0)),
  });

  const toBottom = useCallback(() => {
    const el = scroller.current;
    if (el && atBottom.current) el.scrollTop = el.scrollHeight;
  }, []);

  const askForOlder = useCallback(() => {
    const el = scroller.current;
    if (el && hasOlder && !loadingOlder && el.scrollTop <= LOAD_OLDER_SLACK && el.scrollHeight > el.clientHeight) {
      onLoadOlder();
    }
  }, [hasOlder, loadingOlder, onLoadOlder]);

  const onScroll = () => {
    const el = scroller.current;
    if (!el) return;
    atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight <= STICKY_SLACK;
    askForOlder();
  };

  useLayoutEffect(() => {
    atBottom.current = true;
  }, [followKey]);

  // After every render (an item added, the streaming row grown), follow if at the bottom.
  useLayoutEffect(toBottom);

  // Rows measured after render (Markdown, fonts) change the height without a render here.
  useLayoutEffect(() => {
    const el = content.current;
    if (!el || typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(toBottom);
    observer.observe(el);
    return () => observer.disconnect();
  }, [toBottom]);

  const virtualItems = virtualizer.getVirtualItems();
  const isEmpty = items.length === 0 && !footer;

  return (
    <div
      className={`timeline ${className ?? ""}`}
      ref={scroller}
      onScroll={onScroll}
      style={style}
      role="log"
      aria-label={ariaLabel}
      data-testid={testId}
    >
      {(hasOlder || loadingOlder) && (
        <div className="timeline__older">
          <button
            type="button"
            className="button button--small"
            onClick={onLoadOlder}
            disabled={loadingOlder}
            data-testid="timeline-load-older"
          >
            {loadingOlder ? "Loading…" : "Load older"}
          </button>
        </div>
      )}
      <div ref={content} className="timeline__content">
        {isEmpty && empty}
        <div className="timeline__rows" style={{ height: virtualizer.getTotalSize() }}>
          {virtualItems.map((row) => (
            <div
              key={row.key}
              data-index={row.index}
              ref={virtualizer.measureElement}
              className="timeline__row"
              style={{ transform: `translateY(${row.start}px)` }}
            >
              {renderItem(items[row.index])}
            </div>
          ))}
        </div>
        {footer}
      </div>
    </div>
  );
}
