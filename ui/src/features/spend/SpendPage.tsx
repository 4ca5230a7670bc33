// The Spend page: what every agent, team and routine cost. Pictures first (the totals, the chart by
// day stacked by agent or team), then the numbers (the top lists and a table by day), filters by
// runtime, agent and team, and the runs behind it all as CSV.
import { useMemo, useState } from "react";
import type { GroupBy, SpendFilter, SpendPage as Page, Totals } from "../../bindings";
import { ErrorMessage } from "../../components/ErrorMessage";
import { errorMessage } from "../../errors";
import { SpendChart } from "./SpendChart";
import { SpendTables } from "./SpendTables";
import { cacheShare, daysBefore, headlineParts, localToday, totalTokens } from "./money";
import { useExportSpendCsv, useSpendPage } from "./spendQueries";

const RANGES = [7, 30, 90] as const;
const PALETTE = ["#5b8def", "#e0795b", "#4fb386", "#b57be0", "#d9b03f", "#4bb3c9", "#e05b9a", "#8a9a5b"];

function Headline({ title, totals, testId }: { title: string; totals: Totals; testId: string }) {
  const { figure, note } = headlineParts(totals);
  return (
    <div className="spend-headline" data-testid={testId}>
      <span className="spend-headline__title muted">{title}</span>
      <strong className="spend-headline__cost">{figure}</strong>
      {note && <span className="spend-headline__note">{note}</span>}
      <span className="muted">
        {totalTokens(totals).toLocaleString("en-US")} tokens · cache reads {cacheShare(totals)}
      </span>
    </div>
  );
}

export function SpendPage() {
  const today = localToday();
  const [range, setRange] = useState<(typeof RANGES)[number]>(30);
  const [group, setGroup] = useState<GroupBy>("agent");
  const [filter, setFilter] = useState<SpendFilter>({ runtime: null, agentId: null, teamId: null });
  const query = useMemo(
    () => ({ from: daysBefore(today, range - 1), to: today, group, filter }),
    [today, range, group, filter],
  );
  const page = useSpendPage(query);
  const exportCsv = useExportSpendCsv();
  const data = page.data;

  return (
    <div className="spend-page" data-testid="spend-page">
      <h1 className="page-title">Spend</h1>
      <ErrorMessage message={page.error ? errorMessage(page.error) : null} />
      {page.isPending && <p className="muted">Loading…</p>}
      {data && <SpendBody data={data} range={range} group={group} filter={filter} days={daysOf(query.from, range)} />}
      {data && (
        <div className="spend-controls" role="group" aria-label="What to show">
          <label>
            Days{" "}
            <select value={range} onChange={(e) => setRange(Number(e.target.value) as typeof range)} data-testid="spend-range">
              {RANGES.map((r) => (
                <option key={r} value={r}>
                  Last {r} days
                </option>
              ))}
            </select>
          </label>
          <label>
            Stack by{" "}
            <select value={group} onChange={(e) => setGroup(e.target.value as GroupBy)} data-testid="spend-group">
              <option value="agent">Agent</option>
              <option value="team">Team</option>
            </select>
          </label>
          <label>
            Runtime{" "}
            <select
              value={filter.runtime ?? ""}
              onChange={(e) => setFilter({ ...filter, runtime: e.target.value || null })}
              data-testid="spend-filter-runtime"
            >
              <option value="">All</option>
              {data.runtimes.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </label>
          <label>
            Agent{" "}
            <select
              value={filter.agentId ?? ""}
              onChange={(e) => setFilter({ ...filter, agentId: e.target.value || null })}
              data-testid="spend-filter-agent"
            >
              <option value="">All</option>
              {data.agents.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name}
                </option>
              ))}
            </select>
          </label>
          <label>
            Team{" "}
            <select
              value={filter.teamId ?? ""}
              onChange={(e) => setFilter({ ...filter, teamId: e.target.value || null })}
              data-testid="spend-filter-team"
            >
              <option value="">All</option>
              {data.teams.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
            </select>
          </label>
          <button
            type="button"
            className="button button--small"
            onClick={() => exportCsv.mutate(query)}
            disabled={exportCsv.isPending}
            data-testid="spend-export"
          >
            Export the runs as CSV…
          </button>
          {exportCsv.data && (
            <span className="muted" role="status" data-testid="spend-export-note">
              Saved to {exportCsv.data}
            </span>
          )}
          <ErrorMessage message={exportCsv.error ? errorMessage(exportCsv.error) : null} />
        </div>
      )}
    </div>
  );
}

function daysOf(from: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => daysBefore(from, -i));
}

function SpendBody({
  data,
  range,
  group,
  filter,
  days,
}: {
  data: Page;
  range: number;
  group: GroupBy;
  filter: SpendFilter;
  days: string[];
}) {
  const names = new Map<string, string>([
    ...data.agents.map((a) => [a.id, a.name] as const),
    ...data.teams.map((t) => [t.id, t.name] as const),
  ]);
  const nameOf = (key: string) => names.get(key) ?? (key === "" ? (group === "team" ? "No team" : "No agent") : "Deleted");
  const byKey = new Map<string, number>();
  for (const s of data.days) byKey.set(s.key, (byKey.get(s.key) ?? 0) + s.totals.costMicros + totalTokens(s.totals) / 1e6);
  const keys = [...byKey.entries()].sort((a, b) => b[1] - a[1]).map(([k]) => k);
  const colours = new Map(keys.map((k, i) => [k, PALETTE[i % PALETTE.length]]));
  const filtered = filter.runtime || filter.agentId || filter.teamId;

  if (totalTokens(data.rangeTotals) === 0) {
    return (
      <div className="spend-empty card" data-testid="spend-empty">
        <p>
          {filtered
            ? "Nothing was spent in these days with these filters."
            : `Nothing spent in the last ${range} days yet. Each model call an agent makes is counted here as it happens: its tokens, and what they cost when the model's price is known (Settings > Spend).`}
        </p>
      </div>
    );
  }
  return (
    <>
      <div className="spend-headlines">
        <Headline title="Today" totals={data.todayTotals} testId="spend-today" />
        <Headline title="This week" totals={data.weekTotals} testId="spend-week" />
        <Headline title="This month" totals={data.monthTotals} testId="spend-month" />
        <Headline title={`Last ${range} days`} totals={data.rangeTotals} testId="spend-range-total" />
      </div>
      <section className="card">
        <h2 className="card__title">By day, stacked by {group === "team" ? "team" : "agent"}</h2>
        <SpendChart days={days} segments={data.days} nameOf={nameOf} colours={colours} />
      </section>
      <SpendTables data={data} days={days} nameOf={nameOf} />
    </>
  );
}
