/** A small dot with the number of unread replies, next to a chat's or a room's name; nothing at 0. */
export function UnreadMark({ count, what, testId }: { count: number | undefined; what: string; testId?: string }) {
  if (!count) return null;
  const label = `${count} unread ${count === 1 ? "reply" : "replies"} ${what}`;
  return (
    <span className="unread-mark" role="status" aria-label={label} title={label} data-testid={testId}>
      {count > 99 ? "99+" : count}
    </span>
  );
}
