// The attention part of the fake API: questions and approvals with their audit, "Allow always"
// grants and the expiry setting, with the engine's rules and messages where the view's tests
// look at them (src-tauri/attention/src).
import { vi } from "vitest";
import type { SomeCommandFakes } from "./commandFakes";
import { emit } from "./fakeEvents";
import { ClawbooError } from "../errors";
import type {
  Agent,
  AttentionRequest,
  AttentionSettings,
  AuditAction,
  AuditEntry,
  Decision,
  Grant,
  TrayState,
  UserAnswer,
  Viewing,
} from "../bindings";

/** A stored request (`runtimeRequestId` is the run's own id for a permission question). */
type StoredRequest = AttentionRequest;

const HOUR = 3_600_000;

function initialAttention() {
  const now = Date.now();
  return {
    requests: [] as StoredRequest[],
    audit: [] as AuditEntry[],
    grants: [] as Grant[],
    settings: { approvalExpiryHours: 24 } as AttentionSettings,
    nextId: 0xa0,
    nextSeq: 1,
    /** Seeded requests are an hour old and a minute apart, oldest first. */
    clock: now - HOUR,
  };
}

export const attention = initialAttention();

export function resetAttention() {
  Object.assign(attention, initialAttention());
}

const isApproval = (r: AttentionRequest) => r.kind !== "question";
const copy = (request: StoredRequest): AttentionRequest => ({ ...request });
const newestFirst = (a: AttentionRequest, b: AttentionRequest) => b.createdAt - a.createdAt;

function addAudit(requestId: string | null, actor: string, action: AuditAction, detail: string) {
  attention.audit.push({ seq: attention.nextSeq++, at: Date.now(), requestId: requestId, actor, action, detail });
}

/** A request as an agent raised it (open unless `status` says otherwise), audited like the engine. */
export function seedRequest(
  agent: Agent,
  partial: Partial<AttentionRequest> = {},
): AttentionRequest {
  attention.clock += 60_000;
  const kind = partial.kind ?? "question";
  const created = partial.createdAt ?? attention.clock;
  const stored: StoredRequest = {
    id: `r-${(attention.nextId++).toString(16).padStart(10, "0")}`,
    kind,
    status: "open",
    origin: "chat",
    agentId: agent.id,
    agentName: agent.name,
    agentHandle: agent.handle,
    teamId: null,
    teamName: null,
    roomId: null,
    roomName: null,
    runId: null,
    cardId: null,
    cardNumber: null,
    cardTitle: null,
    messageId: null,
    text: kind === "question" ? "Which region do we deploy to?" : "Write file notes.md",
    tool: kind === "question" ? null : "Write",
    input: null,
    promotionId: null,
    createdAt: created,
    expiresAt: kind === "question" ? null : created + attention.settings.approvalExpiryHours * HOUR,
    decision: null,
    answer: null,
    answeredAt: null,
    runtimeRequestId: null,
    commandPrefix: null,
    // Offered for a permission and a promotion (the engine: a shell command's only with a prefix; set it then).
    allowAlways: kind === "permission" || kind === "promotion",
    ...partial,
  };
  attention.requests.push(stored);
  addAudit(stored.id, `@${agent.handle}`, "raised", `Asked: ${stored.text}`);
  return copy(stored);
}

export function emitAttentionChanged(raised: string | null = null) {
  emit("attentionChanged", { raised });
}

/** The user picked a request in the tray menu (or its notification). */
export function emitOpenAttention(requestId: string | null) {
  emit("openAttention", { requestId });
}

export function emitKeptInTray(first: boolean) {
  emit("keptInTray", { first });
}

function requestOf(id: string): StoredRequest {
  const request = attention.requests.find((r) => r.id === id);
  if (!request) throw new ClawbooError("not_found", `Request ${id} not found`);
  return request;
}

const invalid = (message: string): never => {
  throw new ClawbooError("invalid_input", message);
};

/** The engine's `answer`: only an open request, text for a question, a decision for an approval. */
function answer(id: string, given: UserAnswer): AttentionRequest {
  const request = requestOf(id);
  if (request.status !== "open") throw new ClawbooError("conflict", "This request was already answered.");
  const now = Date.now();
  if (given.type === "text") {
    if (isApproval(request)) invalid("An approval is answered with Allow once, Allow always or Deny.");
    if (!given.text.trim()) invalid("The answer is empty.");
    Object.assign(request, { status: "answered", answer: given.text.trim(), answeredAt: now });
    addAudit(id, "you", "answered", given.text.trim());
  } else {
    if (!isApproval(request)) invalid("A question is answered with text, not Allow or Deny.");
    const decision: Decision = given.decision;
    if (decision === "allow_always" && !request.allowAlways && request.kind === "permission") {
      invalid("This command cannot be allowed always: it chains commands, or its program runs other commands.");
    }
    Object.assign(request, { status: "answered", decision, answeredAt: now });
    const action: AuditAction = decision === "allow_once" ? "allowed" : decision === "allow_always" ? "allowed_always" : "denied";
    addAudit(id, "you", action, `${action}: ${request.text}`);
    if (decision === "allow_always" && request.allowAlways && request.tool) {
      attention.grants.unshift({
        id: `g-${attention.nextId++}`,
        agentId: request.agentId,
        agentName: request.agentName,
        tool: request.tool,
        commandPrefix: request.commandPrefix,
        requestId: request.id,
        createdAt: now,
      });
    }
  }
  setTimeout(() => emitAttentionChanged(null), 0);
  return copy(request);
}

export const fakeAttentionApi = {
  attentionOpen: vi.fn(async (): Promise<AttentionRequest[]> =>
    attention.requests.filter((r) => r.status === "open").map(copy).sort(newestFirst),
  ),
  attentionHistory: vi.fn(async (before: string | null, limit: number): Promise<AttentionRequest[]> => {
    const all = attention.requests.map(copy).sort(newestFirst);
    const from = before === null ? 0 : all.findIndex((r) => r.id === before) + 1;
    return all.slice(from, from + limit);
  }),
  attentionGet: vi.fn(async (id: string): Promise<AttentionRequest> => copy(requestOf(id))),
  attentionAnswer: vi.fn(async (id: string, given: UserAnswer): Promise<AttentionRequest> => answer(id, given)),
  answerPermission: vi.fn(async (runId: string, requestId: string, decision: Decision): Promise<AttentionRequest> => {
    const request = attention.requests.find((r) => r.runId === runId && r.runtimeRequestId === requestId);
    if (!request) throw new ClawbooError("not_found", `Permission request ${requestId} not found`);
    return answer(request.id, { type: "decision", decision });
  }),
  attentionAudit: vi.fn(async (requestId: string | null, before: number | null, limit: number): Promise<AuditEntry[]> =>
    attention.audit
      .filter((e) => (requestId === null || e.requestId === requestId) && (before === null || e.seq < before))
      .map((e) => ({ ...e }))
      .sort((a, b) => b.seq - a.seq)
      .slice(0, limit),
  ),
  attentionGrants: vi.fn(async (): Promise<Grant[]> => attention.grants.map((g) => ({ ...g }))),
  attentionRevokeGrant: vi.fn(async (id: string): Promise<null> => {
    const grant = attention.grants.find((g) => g.id === id);
    if (!grant) throw new ClawbooError("not_found", `Grant ${id} not found`);
    attention.grants = attention.grants.filter((g) => g.id !== id);
    addAudit(null, "you", "grant_revoked", `${grant.agentName} must ask again before using ${grant.tool}.`);
    setTimeout(() => emitAttentionChanged(null), 0);
    return null;
  }),
  attentionSettings: vi.fn(async (): Promise<AttentionSettings> => ({ ...attention.settings })),
  attentionSetSettings: vi.fn(async (settings: AttentionSettings): Promise<AttentionSettings> => {
    const hours = settings.approvalExpiryHours;
    if (!Number.isInteger(hours) || hours < 1 || hours > 720) invalid("Approvals expire after 1 to 720 hours (30 days).");
    attention.settings = { ...settings };
    return { ...settings };
  }),
  attentionViewing: vi.fn(async (_viewing: Viewing | null): Promise<void> => {}),
  trayState: vi.fn(async (): Promise<TrayState> => {
    const open = attention.requests.filter((r) => r.status === "open").sort(newestFirst);
    const approvals = open.filter(isApproval).length;
    return {
      open: open.length,
      questions: open.length - approvals,
      approvals,
      tooltip: open.length === 0 ? "Clawboo" : `Clawboo: ${open.length} need you`,
      newest: open.slice(0, 5).map((r) => ({ requestId: r.id, label: `${r.agentName} asks: ${r.text}` })),
    };
  }),
} satisfies SomeCommandFakes;
