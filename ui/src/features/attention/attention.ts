// How attention requests read in the Inbox: who asks, where from, when, what happens to an
// answer, and what became of a closed one. Pure functions, so the words are tested once.
import type { Agent, AttentionRequest, AuditAction, Decision, RequestKind, RequestStatus, Team } from "../../bindings";

export const KIND_LABELS: Record<RequestKind, string> = {
  question: "Question",
  permission: "Permission",
  promotion: "Promotion",
  routine_proposal: "New routine",
  routine_paused: "Routine paused",
  memory_save: "Memory save",
  scope_paused: "Paused a loop",
  budget_warning: "Budget at 80%",
  budget_reached: "Budget spent",
};

export const STATUS_LABELS: Record<RequestStatus, string> = {
  open: "Open",
  answered: "Answered",
  cleared: "Cleared",
  expired: "Expired",
  withdrawn: "Withdrawn",
};

export const ACTION_LABELS: Record<AuditAction, string> = {
  raised: "Asked",
  answered: "Answered",
  allowed: "Allowed once",
  allowed_always: "Allowed always",
  allowed_by_grant: "Allowed by a grant",
  denied: "Denied",
  expired: "Expired",
  cleared: "Cleared",
  withdrawn: "Withdrawn",
  grant_revoked: "Grant revoked",
};

/** The engine's bound on an answer (src-tauri/attention/src/types.rs), in characters. */
export const MAX_ANSWER_CHARS = 16_000;

/** Approvals (a permission, a promotion) are answered with a decision; questions with text. */
export const isApproval = (request: Pick<AttentionRequest, "kind">) => request.kind !== "question";

const roomOf = (request: AttentionRequest) => request.roomName ?? "General";
const teamOf = (request: AttentionRequest) => request.teamName ?? "a deleted team";

/** "Research › General", "Card #4 Write the copy", "Chat with Ada". */
export function whereLabel(request: AttentionRequest): string {
  switch (request.origin) {
    case "team":
      return `${request.teamName ?? "A deleted team"} › ${roomOf(request)}`;
    case "card":
      return request.cardNumber === null
        ? "A deleted card"
        : `Card #${request.cardNumber}${request.cardTitle ? ` ${request.cardTitle}` : ""}`;
    case "chat":
      return `Chat with ${request.agentName}`;
  }
}

/** Where a question's answer goes, said before it is sent. */
export function answerDestination(request: AttentionRequest): string {
  switch (request.origin) {
    case "team":
      return `Sent to @${request.agentHandle} in ${teamOf(request)} › ${roomOf(request)} as your message.`;
    case "card":
      return `Sent as a comment on card #${request.cardNumber ?? "?"}, which runs again.`;
    case "chat":
      return `Sent as your message in the chat with ${request.agentName}.`;
  }
}

/** What an "Allow always" grants: "Write", or for a shell tool its command prefix, "Bash: git status …". */
export function grantLabel(tool: string, commandPrefix: string | null): string {
  return commandPrefix ? `${tool}: ${commandPrefix} …` : tool;
}

/** "Allow always for @ada and Write", "Allow always for @ada and Bash: git status …" */
export function allowAlwaysLabel(request: Pick<AttentionRequest, "agentHandle" | "tool" | "commandPrefix">): string {
  const what = request.tool ? ` and ${grantLabel(request.tool, request.commandPrefix)}` : "";
  return `Allow always for @${request.agentHandle}${what}`;
}

/** Whether "Open where it came from" can go anywhere: the team, the agent or the card is still there. */
export function sourceAvailable(request: AttentionRequest, agents: Agent[], teams: Team[]): boolean {
  switch (request.origin) {
    case "team":
      return request.teamId !== null && teams.some((t) => t.id === request.teamId);
    case "chat":
      return agents.some((a) => a.id === request.agentId);
    case "card":
      return request.cardId !== null;
  }
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A span as a person says it: "less than a minute", "12 min", "23 h", "3 days". */
export function spanText(ms: number): string {
  if (ms < MINUTE) return "less than a minute";
  if (ms < HOUR) return `${Math.floor(ms / MINUTE)} min`;
  if (ms < 2 * DAY) return `${Math.floor(ms / HOUR)} h`;
  return `${Math.floor(ms / DAY)} days`;
}

/** "just now", "12 min ago", "3 h ago", "2 days ago". */
export function relativeTime(at: number, now: number): string {
  const ago = Math.max(0, now - at);
  return ago < MINUTE ? "just now" : `${spanText(ago)} ago`;
}

/** A budget's line (at 80%, or spent): it stands until its period ends, and is never denied. */
function isBudgetLine(request: AttentionRequest): boolean {
  return request.kind === "budget_warning" || request.kind === "budget_reached";
}

/** For an open approval: "denied in 23 h if unanswered"; for a budget's line: "stays until
 *  the budget's period ends, in 5 h". */
export function expiryText(request: AttentionRequest, now: number): string | null {
  if (request.status !== "open" || request.expiresAt === null) return null;
  const left = request.expiresAt - now;
  if (isBudgetLine(request)) {
    return left <= 0 ? "clears as its budget period ends" : `stays until its budget period ends, in ${spanText(left)}`;
  }
  return left <= 0 ? "denied any moment now if unanswered" : `denied in ${spanText(left)} if unanswered`;
}

const DECISION_OUTCOMES: Record<Decision, string> = {
  allow_once: "You allowed it once.",
  allow_always: "You allowed it always.",
  deny: "You denied it.",
};

/** What became of a closed request (the answer's own text is shown apart). */
export function outcomeText(request: AttentionRequest): string | null {
  switch (request.status) {
    case "open":
      return null;
    case "answered":
      if (request.decision) return DECISION_OUTCOMES[request.decision];
      return "You answered:";
    case "cleared":
      return "Cleared: you wrote in the team chat it came from.";
    case "expired":
      return isBudgetLine(request) ? "Cleared: its budget period ended." : "Denied: nobody answered in time.";
    case "withdrawn":
      return "Withdrawn: the run that asked ended before an answer.";
  }
}

/** "You", "Clawboo", or the agent's "@handle". */
export function actorLabel(actor: string): string {
  if (actor === "you") return "You";
  if (actor === "clawboo") return "Clawboo";
  return actor;
}
