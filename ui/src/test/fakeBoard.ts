// The Board part of the fake API: cards, comments, activity and runs, with the engine's move
// table (src-tauri/board/src/types.rs) where the view's tests look at it.
import { vi } from "vitest";
import type { SomeCommandFakes } from "./commandFakes";
import { emit } from "./fakeEvents";
import { ClawbooError } from "../errors";
import type {
  Activity,
  ActivityKind,
  Actor,
  BoardColumn,
  Card,
  CardDetail,
  CardEdit,
  CardFilter,
  CardRun,
  CardStatus,
  Comment,
  NewCard,
  RunnerSettings,
  TaskRunContext,
  TaskStart,
  TaskTrace,
  CardDiff,
} from "../bindings";

export const COLUMNS: BoardColumn[] = [
  { status: "backlog", label: "Backlog", allowedMoves: ["todo", "cancelled"] },
  { status: "todo", label: "To do", allowedMoves: ["backlog", "blocked", "cancelled"] },
  { status: "in_progress", label: "In progress", allowedMoves: ["in_review", "done", "blocked", "todo", "cancelled"] },
  { status: "in_review", label: "In review", allowedMoves: ["done", "todo", "blocked", "cancelled"] },
  { status: "blocked", label: "Blocked", allowedMoves: ["todo", "backlog", "cancelled"] },
  { status: "done", label: "Done", allowedMoves: ["todo"] },
  { status: "cancelled", label: "Cancelled", allowedMoves: ["backlog", "todo"] },
];

function initialBoard() {
  return {
    cards: [] as Card[],
    comments: [] as Comment[],
    activity: [] as Activity[],
    runs: [] as CardRun[],
    settings: { maxConcurrent: 4, wallClockSecs: 1800, silenceSecs: 600 } as RunnerSettings,
    contexts: new Map<string, TaskRunContext>(),
    traces: [] as TaskTrace[],
    diffs: new Map<string, CardDiff>(),
    nextNumber: 1,
    nextId: 1,
    clock: 20_000,
  };
}

export const board = initialBoard();

export function resetBoard() {
  Object.assign(board, initialBoard());
}

const invalid = (message: string): never => {
  throw new ClawbooError("invalid_input", message);
};
const tick = () => board.clock++;
const newId = (prefix: string) => `${prefix}-${board.nextId++}`;
const label = (s: CardStatus) => COLUMNS.find((c) => c.status === s)?.label ?? s;

export function emitBoardChanged() {
  emit("boardChanged", { cardId: null });
}
const changed = () => void setTimeout(emitBoardChanged, 0);

function cardOf(id: string): Card {
  return board.cards.find((c) => c.id === id) ?? (() => { throw new ClawbooError("not_found", `No card ${id}.`); })();
}

function withWaiting(card: Card): Card {
  const waitingOn = card.dependsOn.filter((id) => board.cards.find((c) => c.id === id)?.status !== "done");
  return { ...card, dependsOn: [...card.dependsOn], waitingOn };
}

function log(cardId: string, actor: Actor, activity: ActivityKind) {
  board.activity.push({ id: newId("act"), cardId, actor, activity, at: tick() });
}

export function seedCard(partial: Partial<Card> & { title: string }): Card {
  const at = tick();
  const status = partial.status ?? "todo";
  const card: Card = {
    id: newId("card"),
    number: board.nextNumber++,
    description: "",
    assigneeId: null,
    teamId: null,
    status,
    priority: "medium",
    dependsOn: [],
    waitingOn: [],
    checkCommand: null,
    projectFolder: null,
    taskText: null,
    origin: { kind: "user" },
    claimedByRun: null,
    blockedReason: null,
    position: board.cards.filter((c) => c.status === status).length + 1,
    createdAt: at,
    updatedAt: at,
    ...partial,
  };
  board.cards.push(card);
  log(card.id, { kind: "user" }, { kind: "created" });
  return card;
}

export function seedComment(cardId: string, author: Actor, text: string, kind: Comment["kind"] = "comment"): Comment {
  const comment: Comment = { id: newId("comment"), cardId, author, kind, text, runId: null, createdAt: tick() };
  board.comments.push(comment);
  return comment;
}

export function seedCardRun(partial: Partial<CardRun> & { cardId: string }): CardRun {
  const run: CardRun = {
    runId: newId("run"),
    attempt: board.runs.filter((r) => r.cardId === partial.cardId).length + 1,
    kind: "run",
    status: "succeeded",
    startedAt: tick(),
    finishedAt: tick(),
    reason: null,
    errorCode: null,
    ...partial,
  };
  board.runs.push(run);
  return run;
}

function matches(card: Card, filter: CardFilter) {
  return (
    (filter.teamId == null || card.teamId === filter.teamId) &&
    (filter.assigneeId == null || card.assigneeId === filter.assigneeId) &&
    (filter.status == null || card.status === filter.status)
  );
}

export const fakeBoardApi = {
  boardColumns: vi.fn(async (): Promise<BoardColumn[]> => COLUMNS.map((c) => ({ ...c }))),
  boardList: vi.fn(async (filter: CardFilter): Promise<Card[]> =>
    board.cards.filter((c) => matches(c, filter)).map(withWaiting),
  ),
  boardCard: vi.fn(async (id: string): Promise<CardDetail> => ({
    card: withWaiting(cardOf(id)),
    comments: board.comments.filter((c) => c.cardId === id).map((c) => ({ ...c })),
    activity: board.activity.filter((a) => a.cardId === id).map((a) => ({ ...a })),
  })),
  boardRuns: vi.fn(async (id: string): Promise<CardRun[]> => board.runs.filter((r) => r.cardId === id)),
  boardCreate: vi.fn(async (input: NewCard): Promise<Card> => {
    if (!input.title.trim()) invalid("A card needs a title.");
    const card = seedCard({
      title: input.title.trim(),
      description: input.description ?? "",
      assigneeId: input.assigneeId ?? null,
      teamId: input.teamId ?? null,
      status: input.status ?? "todo",
      priority: input.priority ?? "medium",
      dependsOn: input.dependsOn ?? [],
      checkCommand: input.checkCommand ?? null,
      projectFolder: input.projectFolder ?? null,
    });
    changed();
    return withWaiting(card);
  }),
  boardEdit: vi.fn(async (id: string, edit: CardEdit): Promise<Card> => {
    const card = cardOf(id);
    const fields = Object.keys(edit).filter((k) => edit[k as keyof CardEdit] !== undefined);
    Object.assign(card, Object.fromEntries(fields.map((k) => [k, edit[k as keyof CardEdit]])));
    card.updatedAt = tick();
    log(id, { kind: "user" }, { kind: "edited", fields });
    changed();
    return withWaiting(card);
  }),
  boardMove: vi.fn(
    async (id: string, to: CardStatus, reason: string | null, position: number | null): Promise<Card> => {
      const card = cardOf(id);
      const from = card.status;
      if (from !== to && !COLUMNS.find((c) => c.status === from)?.allowedMoves.includes(to)) {
        invalid(`A card in ${label(from)} cannot go to ${label(to)}.`);
      }
      if (to === "blocked" && from !== "blocked" && !reason?.trim()) invalid("Say why the card is blocked.");
      card.status = to;
      card.blockedReason = to === "blocked" ? (reason ?? card.blockedReason) : null;
      if (position !== null) card.position = position;
      card.updatedAt = tick();
      if (from !== to) log(id, { kind: "user" }, { kind: "moved", from, to, reason });
      changed();
      return withWaiting(card);
    },
  ),
  boardComment: vi.fn(async (id: string, text: string): Promise<Comment> => {
    cardOf(id);
    if (!text.trim()) invalid("A comment needs some text.");
    const comment = seedComment(id, { kind: "user" }, text.trim());
    log(id, { kind: "user" }, { kind: "commented", comment_id: comment.id });
    changed();
    return { ...comment };
  }),
  boardDelete: vi.fn(async (id: string): Promise<null> => {
    cardOf(id);
    board.cards = board.cards.filter((c) => c.id !== id);
    changed();
    return null;
  }),
  boardRunStart: vi.fn(async (id: string, _disableMemory: boolean): Promise<TaskStart> => {
    const card = cardOf(id);
    if (!card.assigneeId) invalid("Assign an agent to run this card.");
    if (card.claimedByRun) throw new ClawbooError("conflict", "A run is already working on this card.");
    const run = seedCardRun({ cardId: id, status: "running", finishedAt: null });
    card.status = "in_progress";
    card.claimedByRun = run.runId;
    log(id, { kind: "clawboo" }, { kind: "claimed", run_id: run.runId });
    changed();
    return { card: withWaiting(card), runId: run.runId, queued: false };
  }),
  boardRunCancel: vi.fn(async (id: string): Promise<null> => {
    const card = cardOf(id);
    const run = board.runs.find((r) => r.runId === card.claimedByRun);
    if (run) run.status = "cancelled";
    card.status = "todo";
    card.claimedByRun = null;
    changed();
    return null;
  }),
  boardRunContext: vi.fn(async (runId: string): Promise<TaskRunContext> => {
    const context = board.contexts.get(runId);
    if (!context) throw new ClawbooError("not_found", `No context for run ${runId}.`);
    return context;
  }),
  boardRunDiff: vi.fn(async (cardId: string): Promise<CardDiff> => {
    const diff = board.diffs.get(cardId);
    if (!diff) throw new ClawbooError("not_found", "This card has not run in a git repository yet.");
    return diff;
  }),
  runnerTraces: vi.fn(async (_limit: number): Promise<TaskTrace[]> => board.traces.map((t) => ({ ...t }))),
  runnerSettings: vi.fn(async (): Promise<RunnerSettings> => ({ ...board.settings })),
  runnerSetSettings: vi.fn(async (settings: RunnerSettings): Promise<RunnerSettings> => {
    if (settings.maxConcurrent < 1 || settings.maxConcurrent > 32) invalid("Runs at once: 1 to 32.");
    board.settings = { ...settings };
    return { ...board.settings };
  }),
} satisfies SomeCommandFakes;
