-- Circuit breakers and budgets (issue 27): what stops a team that loops or spends too much.

-- A scope (an agent, a room) a circuit breaker paused: new runs there are refused with code
-- `paused` and this reason until the user resumes it from its Inbox request. Kept once resumed
-- (`resumed_at`), so a breaker counts only what happened since (it would trip again at once).
CREATE TABLE paused_scopes (
    scope_kind TEXT NOT NULL CHECK (scope_kind IN ('agent', 'room')),
    scope_id   TEXT NOT NULL,
    breaker    TEXT NOT NULL CHECK (breaker IN ('runs_per_hour', 'handoffs', 'repeated_tool_call')),
    reason     TEXT NOT NULL,
    paused_at  INTEGER NOT NULL,
    request_id TEXT,
    resumed_at INTEGER,
    PRIMARY KEY (scope_kind, scope_id)
) WITHOUT ROWID;

-- A budget: per agent, team or routine (`scope_id`) or overall (`scope_id` ''), per day or month
-- (UTC), in tokens or in money (micro-dollars). `allowed_until`: the user allowed runs past it
-- until then ("Allow until tomorrow"). `warned_period` / `reached_period`: the day or month
-- number the 80% line and the 100% request were raised for (each once per period).
CREATE TABLE budgets (
    scope_kind     TEXT NOT NULL CHECK (scope_kind IN ('overall', 'agent', 'team', 'routine')),
    scope_id       TEXT NOT NULL,
    period         TEXT NOT NULL CHECK (period IN ('day', 'month')),
    unit           TEXT NOT NULL CHECK (unit IN ('tokens', 'usd')),
    amount         INTEGER NOT NULL CHECK (amount > 0),
    allowed_until  INTEGER,
    warned_period  INTEGER,
    reached_period INTEGER,
    updated_at     INTEGER NOT NULL,
    PRIMARY KEY (scope_kind, scope_id, period)
) WITHOUT ROWID;

-- What the budgets count: tokens (all four kinds) and reported cost per scope and UTC day, kept
-- as each usage report of a run is recorded, so a check reads at most 31 rows per budget.
CREATE TABLE guard_usage_days (
    scope_kind  TEXT NOT NULL,
    scope_id    TEXT NOT NULL,
    day         INTEGER NOT NULL,
    tokens      INTEGER NOT NULL DEFAULT 0,
    cost_micros INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (scope_kind, scope_id, day)
) WITHOUT ROWID;

-- What an Inbox request of the breakers or the budgets is about, for its answer.
CREATE TABLE guard_requests (
    request_id TEXT PRIMARY KEY,
    kind       TEXT NOT NULL CHECK (kind IN ('paused', 'budget_warning', 'budget_reached')),
    scope_kind TEXT NOT NULL,
    scope_id   TEXT NOT NULL,
    period     TEXT
) WITHOUT ROWID;

-- The breakers count an agent's runs in the last hour and a room's hand-offs in ten minutes.
CREATE INDEX runs_by_agent ON runs (agent_id, started_at);
CREATE INDEX handoffs_by_room ON handoffs (room_id, created_at);
