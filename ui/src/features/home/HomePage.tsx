// Home: what is running (who, on what, since when, a link to where it shows) and what needs the
// user (open requests, blocked cards), and the routines due next. Each list links to its page.
import { useEffect, useState } from "react";
import type { HomeSummary, RunningKind, RunningWork } from "../../bindings";
import { useNavigate } from "../../shell/navigation";
import type { Route } from "../../shell/route";
import { ErrorMessage } from "../../components/ErrorMessage";
import { errorMessage } from "../../errors";
import { useHomeEvents, useHomeSummary } from "./homeQueries";

const KIND_LABELS: Record<RunningKind, string> = {
  chat: "Chat",
  team: "Team",
  card: "Card",
  routine: "Routine",
};

/** Where a run shows: its room, its card, or its agent's chat. */
function placeOf(run: RunningWork): Route {
  if (run.teamId) return { page: "team", teamId: run.teamId, roomId: run.roomId };
  if (run.cardId) return { page: "board", cardId: run.cardId };
  return { page: "agent", agentId: run.agentId, tab: "chat", chatId: run.chatId };
}

/** "just now", "4 min", "2 h 5 min" since `ms`. */
export function elapsed(ms: number, now: number): string {
  const minutes = Math.floor(Math.max(0, now - ms) / 60_000);
  if (minutes < 1) return "just now";
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}

const clock = (ms: number) => new Date(ms).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" });

/** "today 14:00", or the date for later days. */
function when(ms: number): string {
  const date = new Date(ms);
  const sameDay = date.toDateString() === new Date().toDateString();
  return sameDay ? `today ${clock(ms)}` : `${date.toLocaleDateString([], { weekday: "short", day: "numeric", month: "short" })} ${clock(ms)}`;
}

/** The minute, so "since" counts on while Home shows. */
function useNow(): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 30_000);
    return () => clearInterval(timer);
  }, []);
  return now;
}

export function HomePage({ onEventsFailed }: { onEventsFailed: (e: unknown) => void }) {
  useHomeEvents(onEventsFailed);
  const summary = useHomeSummary();
  const navigate = useNavigate();
  const now = useNow();
  if (!summary.data) {
    return (
      <div className="home">
        <h1>Home</h1>
        {summary.error ? <ErrorMessage message={errorMessage(summary.error)} /> : <p className="muted">Loading…</p>}
      </div>
    );
  }
  const data: HomeSummary = summary.data;
  const quiet = data.running.length === 0 && data.openRequests === 0 && data.blockedCards.length === 0;
  return (
    <div className="home" data-testid="home">
      <h1>Home</h1>
      <p className="muted home__lede">
        {quiet ? "Nothing is running and nothing waits for you." : "What is running and what needs you."}
      </p>

      <section className="home__section" aria-labelledby="home-running">
        <h2 id="home-running">
          Running now <span className="home__count">{data.running.length}</span>
        </h2>
        {data.running.length === 0 ? (
          <p className="muted">No agent is working right now.</p>
        ) : (
          <ul className="home__list" data-testid="home-running">
            {data.running.map((run) => (
              <li key={run.runId} className="home__item" data-testid="home-run">
                <span className={`pill home__kind home__kind--${run.kind}`}>{KIND_LABELS[run.kind]}</span>
                <span className="home__who">{run.agentName}</span>
                <span className="home__what" title={run.what}>
                  {run.what}
                </span>
                <time className="muted home__since" dateTime={new Date(run.startedAt).toISOString()} title={when(run.startedAt)}>
                  since {clock(run.startedAt)} · {elapsed(run.startedAt, now)}
                </time>
                <button type="button" className="link-button" onClick={() => navigate(placeOf(run))} data-testid="home-run-open">
                  Open
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section className="home__section" aria-labelledby="home-needs-you">
        <h2 id="home-needs-you">
          Needs you <span className="home__count">{data.openRequests + data.blockedCards.length}</span>
        </h2>
        {data.openRequests === 0 && data.blockedCards.length === 0 && <p className="muted">Nothing waits for you.</p>}
        {data.openRequests > 0 && (
          <div className="home__group">
            <ul className="home__list" data-testid="home-requests">
              {data.requests.map((request) => (
                <li key={request.id} className="home__item">
                  <span className="pill home__kind home__kind--request">Asks</span>
                  <span className="home__who">{request.agentName}</span>
                  <span className="home__what" title={request.text}>
                    {request.text}
                  </span>
                  <button
                    type="button"
                    className="link-button"
                    onClick={() => navigate({ page: "inbox", focus: { id: request.id, at: Date.now() } })}
                  >
                    Answer
                  </button>
                </li>
              ))}
            </ul>
            <button type="button" className="link-button" onClick={() => navigate({ page: "inbox", focus: null })} data-testid="home-open-inbox">
              {data.openRequests === 1 ? "1 open request in the Inbox" : `${data.openRequests} open requests in the Inbox`}
            </button>
          </div>
        )}
        {data.blockedCards.length > 0 && (
          <ul className="home__list" data-testid="home-blocked">
            {data.blockedCards.map((card) => (
              <li key={card.id} className="home__item">
                <span className="pill home__kind home__kind--blocked">Blocked</span>
                <span className="home__who">#{card.number}</span>
                <span className="home__what" title={card.reason ? `${card.title}: ${card.reason}` : card.title}>
                  {card.title}
                  {card.reason && <span className="muted"> — {card.reason}</span>}
                </span>
                <button type="button" className="link-button" onClick={() => navigate({ page: "board", cardId: card.id })}>
                  Open
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>

      <section className="home__section" aria-labelledby="home-routines">
        <h2 id="home-routines">Next routines</h2>
        {data.nextRoutines.length === 0 ? (
          <p className="muted">No routine is due.</p>
        ) : (
          <ul className="home__list" data-testid="home-routines">
            {data.nextRoutines.map((routine) => (
              <li key={routine.id} className="home__item">
                <time className="home__due" dateTime={new Date(routine.nextAt).toISOString()}>
                  {when(routine.nextAt)}
                </time>
                <span className="home__who">{routine.name}</span>
                <span className="home__what muted">{routine.owner}</span>
                <button type="button" className="link-button" onClick={() => navigate({ page: "routines" })}>
                  Open
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
