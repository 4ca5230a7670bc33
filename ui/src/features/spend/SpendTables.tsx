// The Spend page's numbers: the top agents, teams and routines, and every day of the range.
import type { SpendPage, TopSpend, Totals } from "../../bindings";
import { cacheShare, costLabel, totalTokens } from "./money";

function TopList({ title, rows, nameOf, testId }: { title: string; rows: TopSpend[]; nameOf: (id: string) => string; testId: string }) {
  return (
    <section className="card spend-top" data-testid={testId}>
      <h2 className="card__title">{title}</h2>
      {rows.length === 0 ? (
        <p className="muted">None in these days.</p>
      ) : (
        <ol className="spend-top__list">
          {rows.map((row) => (
            <li key={row.key}>
              <span className="spend-top__name">{nameOf(row.key)}</span>
              <span className="spend-top__cost">{costLabel(row.totals)}</span>
              <span className="muted">cache {cacheShare(row.totals)}</span>
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

function sumDay(data: SpendPage, day: string): Totals | null {
  const parts = data.days.filter((d) => d.day === day).map((d) => d.totals);
  if (parts.length === 0) return null;
  return parts.reduce((a, b) => ({
    requests: a.requests + b.requests,
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
    costMicros: a.costMicros + b.costMicros,
    unpricedTokens: a.unpricedTokens + b.unpricedTokens,
    subscriptionTokens: a.subscriptionTokens + b.subscriptionTokens,
  }));
}

export function SpendTables({ data, days, nameOf }: { data: SpendPage; days: string[]; nameOf: (key: string) => string }) {
  const routineNames = new Map(data.routines.map((r) => [r.id, r.name]));
  return (
    <>
      <div className="spend-tops">
        <TopList title="Top agents" rows={data.topAgents} nameOf={nameOf} testId="spend-top-agents" />
        <TopList title="Top teams" rows={data.topTeams} nameOf={nameOf} testId="spend-top-teams" />
        <TopList
          title="Top routines"
          rows={data.topRoutines}
          nameOf={(id) => routineNames.get(id) ?? "Deleted routine"}
          testId="spend-top-routines"
        />
      </div>
      <section className="card">
        <h2 className="card__title">Every day</h2>
        <table className="spend-table" data-testid="spend-table">
          <thead>
            <tr>
              <th>Day</th>
              <th>Cost</th>
              <th>Calls</th>
              <th>Input</th>
              <th>Output</th>
              <th>Cache read</th>
              <th>Cache write</th>
              <th>Cache share</th>
            </tr>
          </thead>
          <tbody>
            {[...days].reverse().map((day) => {
              const t = sumDay(data, day);
              if (!t) return null;
              return (
                <tr key={day} data-testid="spend-table-row">
                  <td>{day}</td>
                  <td>{costLabel(t)}</td>
                  <td>{t.requests}</td>
                  <td>{t.inputTokens.toLocaleString("en-US")}</td>
                  <td>{t.outputTokens.toLocaleString("en-US")}</td>
                  <td>{t.cacheReadTokens.toLocaleString("en-US")}</td>
                  <td>{t.cacheWriteTokens.toLocaleString("en-US")}</td>
                  <td>{cacheShare(t)}</td>
                </tr>
              );
            })}
          </tbody>
          <tfoot>
            <tr>
              <td>All</td>
              <td>{costLabel(data.rangeTotals)}</td>
              <td>{data.rangeTotals.requests}</td>
              <td colSpan={4}>{totalTokens(data.rangeTotals).toLocaleString("en-US")} tokens</td>
              <td>{cacheShare(data.rangeTotals)}</td>
            </tr>
          </tfoot>
        </table>
      </section>
    </>
  );
}
