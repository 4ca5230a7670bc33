// The memory part of the fake API: facts with history and citations, saved notes, scratch notes
// and promotions, with the engine's rules where tests look at them (src-tauri/memory/src).
import { vi } from "vitest";
import type { SomeCommandFakes } from "./commandFakes";
import { emit } from "./fakeEvents";
import { ClawbooError } from "../errors";
import type {
  Author,
  Citation,
  Fact,
  FactChange,
  FactDetail,
  FactEdit,
  FactFilter,
  FactInput,
  FactVersion,
  Promotion,
  Saved,
  SavedNote,
  Scope,
  ScratchNote,
  ScratchScope,
  SearchResult,
} from "../bindings";

const MAX_FACT_CHARS = 2_000;
/** The engine's secret check is broader; this is enough for the view's tests. */
const SECRET = /\b(sk-[A-Za-z0-9_-]{16,}|ghp_[A-Za-z0-9]{20,}|AKIA[0-9A-Z]{16})\b|-----BEGIN [A-Z ]*PRIVATE KEY-----/;

function initialMemory() {
  return {
    facts: [] as Fact[],
    versions: new Map<string, FactVersion[]>(),
    citations: new Map<string, Citation[]>(),
    notes: [] as SavedNote[],
    scratch: [] as ScratchNote[],
    promotions: [] as Promotion[],
    nextId: 0x7f3a,
    clock: 10_000,
  };
}

export const memory = initialMemory();

export function resetMemory() {
  Object.assign(memory, initialMemory());
}

const invalid = (message: string): never => {
  throw new ClawbooError("invalid_input", message);
};
const notFound = (message: string): never => {
  throw new ClawbooError("not_found", message);
};
const tick = () => memory.clock++;
const newId = (prefix: string) => `${prefix}-${(memory.nextId++).toString(16)}`;
const copyFact = (f: Fact): Fact => ({ ...f, scope: { ...f.scope }, tags: [...f.tags], author: { ...f.author } });

/** Tells the app memory changed, after the command returns (as the engine publishes on commit). */
export function emitMemoryChanged() {
  emit("memoryChanged", null);
}
const changed = () => void setTimeout(emitMemoryChanged, 0);

function checkText(text: string, max = MAX_FACT_CHARS): string {
  const trimmed = text.trim();
  if (!trimmed) invalid("A fact needs some text.");
  const length = [...trimmed].length;
  if (length > max) invalid(`A fact has at most 2,000 characters; this one has ${length.toLocaleString("en-US")}.`);
  if (SECRET.test(trimmed)) {
    invalid("This looks like a secret (an API key, token or private key); Clawboo does not keep secrets in memory.");
  }
  return trimmed;
}

const sameScope = (a: Scope, b: Scope) => JSON.stringify(a) === JSON.stringify(b);

function factOf(id: string): Fact {
  return memory.facts.find((f) => f.id === id) ?? notFound(`No fact ${id}.`);
}

function record(fact: Fact, change: FactChange, by: Author) {
  const list = memory.versions.get(fact.id) ?? [];
  list.push({ version: fact.version, change, text: fact.text, tags: [...fact.tags], scope: { ...fact.scope }, by, at: fact.updatedAt });
  memory.versions.set(fact.id, list);
}

/** A fact as the engine would have stored it (version 1, "created"; no event). */
export function seedFact(partial: Partial<Fact> & { text: string }): Fact {
  const at = partial.createdAt ?? tick();
  const fact: Fact = {
    id: newId("m"),
    scope: { kind: "global" },
    tags: [],
    author: { kind: "user" },
    createdAt: at,
    updatedAt: at,
    deleted: false,
    version: 1,
    ...partial,
  };
  memory.facts.push(fact);
  record({ ...fact, version: 1, updatedAt: at }, "created", fact.author);
  return copyFact(fact);
}

/** An edit (a new version) by `by`, without an event. */
export function seedEdit(id: string, text: string, by: Author = { kind: "user" }) {
  const fact = factOf(id);
  fact.text = text;
  fact.version += 1;
  fact.updatedAt = tick();
  record(fact, "edited", by);
}

export function seedCitation(factId: string, citation: Citation) {
  memory.citations.set(factId, [citation, ...(memory.citations.get(factId) ?? [])]);
}

export function seedNote(agentId: string, text: string): SavedNote {
  const note: SavedNote = { id: newId("n"), agentId, text, author: { kind: "user" }, createdAt: tick() };
  memory.notes.push(note);
  return { ...note };
}

export function seedScratch(scope: ScratchScope, text: string, author: Author = { kind: "user" }): ScratchNote {
  const at = tick();
  const note: ScratchNote = { id: newId("s"), scope, text, author, promotedFrom: null, createdAt: at, updatedAt: at };
  memory.scratch.push(note);
  return { ...note };
}

export function seedPromotion(note: ScratchNote, to: ScratchScope, requestedBy: Author): Promotion {
  const promotion: Promotion = {
    id: newId("p"),
    noteId: note.id,
    text: note.text,
    to,
    requestedBy,
    status: "pending",
    createdAt: tick(),
    decidedAt: null,
    copyId: null,
  };
  memory.promotions.push(promotion);
  return { ...promotion };
}

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** Any word of the query in the fact's text or tags (the engine ranks by bm25; the fake by hits). */
function hits(fact: Fact, query: string): number {
  const have = new Set([...words(fact.text), ...fact.tags.flatMap(words)]);
  return words(query).filter((w) => have.has(w)).length;
}

function authorKey(author: Author): string {
  return author.kind === "user" ? "user" : author.agent_id;
}

const newestFirst = <T extends { createdAt: number }>(a: T, b: T) => b.createdAt - a.createdAt;

function change(id: string, by: Author, kind: FactChange, edit: (fact: Fact) => void): Fact {
  const fact = factOf(id);
  edit(fact);
  fact.version += 1;
  fact.updatedAt = tick();
  record(fact, kind, by);
  changed();
  return copyFact(fact);
}

function scratchOf(id: string): ScratchNote {
  return memory.scratch.find((n) => n.id === id) ?? notFound(`No scratch note ${id}.`);
}

export const fakeMemoryApi = {
  memoryList: vi.fn(async (filter: FactFilter): Promise<Fact[]> => {
    const query = filter.query?.trim() ?? "";
    let facts = memory.facts.filter(
      (f) =>
        (filter.includeDeleted || !f.deleted) &&
        (!filter.scope || sameScope(f.scope, filter.scope)) &&
        (!filter.author || authorKey(f.author) === filter.author),
    );
    if (query) {
      facts = facts.filter((f) => hits(f, query) > 0).sort((a, b) => hits(b, query) - hits(a, query));
    } else {
      facts = facts.sort((a, b) => b.updatedAt - a.updatedAt);
    }
    return facts.slice(0, filter.limit ?? 100).map(copyFact);
  }),
  memorySearch: vi.fn(async (query: string): Promise<SearchResult> => {
    const live = memory.facts.filter((f) => !f.deleted && hits(f, query) > 0);
    const top = live.sort((a, b) => hits(b, query) - hits(a, query)).slice(0, 10);
    const tags = new Set(top.flatMap((f) => f.tags));
    const related = memory.facts
      .filter((f) => !f.deleted && !top.includes(f) && f.tags.some((t) => tags.has(t)))
      .slice(0, 2);
    return {
      top: top.map((f) => ({ fact: copyFact(f), score: -hits(f, query) })),
      related: related.map((f) => ({ fact: copyFact(f), score: f.tags.filter((t) => tags.has(t)).length })),
    };
  }),
  memoryDetail: vi.fn(async (id: string): Promise<FactDetail> => {
    const fact = factOf(id);
    return {
      fact: copyFact(fact),
      versions: (memory.versions.get(id) ?? []).map((v) => ({ ...v, tags: [...v.tags] })),
      citations: [...(memory.citations.get(id) ?? [])],
    };
  }),
  memorySave: vi.fn(async (input: FactInput): Promise<Saved> => {
    const text = checkText(input.text);
    const existing = memory.facts.find((f) => f.text === text && sameScope(f.scope, input.scope));
    if (existing) return { fact: copyFact(existing), existing: true };
    const fact = seedFact({ text, scope: input.scope, tags: input.tags });
    changed();
    return { fact, existing: false };
  }),
  memoryEdit: vi.fn(async (id: string, edit: FactEdit): Promise<Fact> => {
    const text = edit.text === null ? null : checkText(edit.text);
    return change(id, { kind: "user" }, "edited", (f) => {
      if (text !== null) f.text = text;
      if (edit.tags !== null) f.tags = [...edit.tags];
    });
  }),
  memoryDelete: vi.fn(async (id: string): Promise<Fact> => {
    if (factOf(id).deleted) invalid(`${id} is already deleted.`);
    return change(id, { kind: "user" }, "deleted", (f) => void (f.deleted = true));
  }),
  memoryRestore: vi.fn(async (id: string): Promise<Fact> => {
    if (!factOf(id).deleted) invalid(`${id} is not deleted.`);
    return change(id, { kind: "user" }, "restored", (f) => void (f.deleted = false));
  }),
  memoryNotes: vi.fn(async (agentId: string): Promise<SavedNote[]> =>
    memory.notes.filter((n) => n.agentId === agentId).sort(newestFirst).slice(0, 50).map((n) => ({ ...n })),
  ),
  memoryDeleteNote: vi.fn(async (id: string): Promise<null> => {
    if (!memory.notes.some((n) => n.id === id)) notFound(`No saved note ${id}.`);
    memory.notes = memory.notes.filter((n) => n.id !== id);
    changed();
    return null;
  }),
  scratchList: vi.fn(async (scope: ScratchScope): Promise<ScratchNote[]> =>
    memory.scratch.filter((n) => sameScope(n.scope as Scope, scope as Scope)).sort(newestFirst).map((n) => ({ ...n })),
  ),
  scratchAll: vi.fn(async (): Promise<ScratchNote[]> =>
    [...memory.scratch].sort(newestFirst).slice(0, 500).map((n) => ({ ...n })),
  ),
  scratchAdd: vi.fn(async (scope: ScratchScope, text: string): Promise<ScratchNote> => {
    if (scope.kind === "session") invalid("Session notes are the agents' own; add a team or global note.");
    const note = seedScratch(scope, checkText(text));
    changed();
    return note;
  }),
  scratchEdit: vi.fn(async (id: string, text: string): Promise<ScratchNote> => {
    const note = scratchOf(id);
    if (note.scope.kind === "session") invalid("Session notes are the agents' own.");
    note.text = checkText(text);
    note.updatedAt = tick();
    changed();
    return { ...note };
  }),
  scratchDelete: vi.fn(async (id: string): Promise<null> => {
    scratchOf(id);
    memory.scratch = memory.scratch.filter((n) => n.id !== id);
    changed();
    return null;
  }),
  promotions: vi.fn(async (): Promise<Promotion[]> => {
    const pending = memory.promotions.filter((p) => p.status === "pending").sort(newestFirst);
    const decided = memory.promotions
      .filter((p) => p.status !== "pending")
      .sort((a, b) => (b.decidedAt ?? 0) - (a.decidedAt ?? 0));
    return [...pending, ...decided].slice(0, 100).map((p) => ({ ...p }));
  }),
  decidePromotion: vi.fn(async (id: string, approve: boolean): Promise<Promotion> => {
    const promotion = memory.promotions.find((p) => p.id === id) ?? notFound(`No promotion ${id}.`);
    if (promotion.status !== "pending") invalid("This promotion was already decided.");
    promotion.status = approve ? "approved" : "rejected";
    promotion.decidedAt = tick();
    if (approve) {
      const copy = seedScratch(promotion.to, promotion.text, promotion.requestedBy);
      scratchOf(copy.id).promotedFrom = promotion.noteId;
      promotion.copyId = copy.id;
    }
    changed();
    return { ...promotion };
  }),
} satisfies SomeCommandFakes;
