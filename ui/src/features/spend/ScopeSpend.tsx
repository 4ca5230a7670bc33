// One line of what an agent, a team, a routine or a card spent in all: money for what had a price,
// tokens on the subscription and tokens with no price said apart, and the cache-read share.
import type { SpendScope as Scope } from "../../bindings";
import { cacheShare, costLabel, totalTokens } from "./money";
import { useScopeSpend } from "./spendQueries";

export function ScopeSpend({ scope, testId = "scope-spend" }: { scope: Scope; testId?: string }) {
  const spent = useScopeSpend(scope).data;
  if (!spent || totalTokens(spent) === 0) return null;
  return (
    <p className="run-cost" data-testid={testId}>
      Spent in all: {costLabel(spent)} · cache reads {cacheShare(spent)}
    </p>
  );
}
