import type { Agent } from "../../bindings";
import { isUnconfined, UNCONFINED_TOOLTIP } from "./sandbox";

type Props = { agent: Pick<Agent, "sandbox"> | null | undefined; className?: string };

/** A red "unconfined" mark beside an agent the user runs without Clawboo's sandbox; nothing otherwise. */
export function UnconfinedBadge({ agent, className }: Props) {
  if (!isUnconfined(agent)) return null;
  return (
    <span
      className={`unconfined-badge ${className ?? ""}`}
      title={UNCONFINED_TOOLTIP}
      aria-label={`unconfined: ${UNCONFINED_TOOLTIP}`}
      role="img"
      data-testid="unconfined-badge"
    >
      unconfined
    </span>
  );
}
