import { describe, expect, it } from "vitest";
import type { AttentionRequest } from "../../bindings";
import {
  allowAlwaysLabel,
  answerDestination,
  expiryText,
  grantLabel,
  outcomeText,
  relativeTime,
  spanText,
  whereLabel,
} from "./attention";

const MIN = 60_000;
const HOUR = 60 * MIN;

const request = (partial: Partial<AttentionRequest>): AttentionRequest => ({
  id: "r-0000000001",
  kind: "question",
  status: "open",
  origin: "chat",
  agentId: "a1",
  agentName: "Ada",
  agentHandle: "ada",
  teamId: null,
  teamName: null,
  roomId: null,
  roomName: null,
  runId: null,
  cardId: null,
  cardNumber: null,
  cardTitle: null,
  messageId: null,
  text: "Which region?",
  tool: null,
  input: null,
  runtimeRequestId: null,
  commandPrefix: null,
  allowAlways: false,
  promotionId: null,
  createdAt: 0,
  expiresAt: null,
  decision: null,
  answer: null,
  answeredAt: null,
  ...partial,
});

describe("attention labels", () => {
  it("names what Allow always grants: the tool, or a shell tool's command prefix", () => {
    expect(grantLabel("Write", null)).toBe("Write");
    expect(grantLabel("Bash", "git status")).toBe("Bash: git status …");
    const permission = request({ kind: "permission", tool: "Bash", commandPrefix: "git status", allowAlways: true });
    expect(allowAlwaysLabel(permission)).toBe("Allow always for @ada and Bash: git status …");
    expect(allowAlwaysLabel({ ...permission, tool: "Write", commandPrefix: null })).toBe("Allow always for @ada and Write");
  });

  it("says spans and times the way a person would", () => {
    expect(spanText(30_000)).toBe("less than a minute");
    expect(spanText(12 * MIN + 59_000)).toBe("12 min");
    expect(spanText(23 * HOUR + 59 * MIN)).toBe("23 h");
    expect(spanText(47 * HOUR)).toBe("47 h");
    expect(spanText(72 * HOUR)).toBe("3 days");
    expect(relativeTime(1_000, 20_000)).toBe("just now");
    expect(relativeTime(0, 3 * HOUR)).toBe("3 h ago");
    // A clock a little behind the engine's reads as now, not "in the future".
    expect(relativeTime(5_000, 0)).toBe("just now");
  });

  it("says when an open approval is denied, and nothing for questions or closed ones", () => {
    const approval = request({ kind: "permission", expiresAt: 24 * HOUR });
    expect(expiryText(approval, 30 * MIN)).toBe("denied in 23 h if unanswered");
    expect(expiryText(approval, 24 * HOUR + 1)).toBe("denied any moment now if unanswered");
    expect(expiryText({ ...approval, status: "answered" }, 0)).toBeNull();
    expect(expiryText(request({}), 0)).toBeNull();
  });

  it("says a budget's line stands until its period ends, never that it is denied", () => {
    const line = request({ kind: "budget_warning", expiresAt: 5 * HOUR });
    expect(expiryText(line, 30 * MIN)).toBe("stays until its budget period ends, in 4 h");
    expect(expiryText({ ...line, kind: "budget_reached" }, 5 * HOUR)).toBe("clears as its budget period ends");
    expect(outcomeText({ ...line, status: "expired" })).toBe("Cleared: its budget period ended.");
    expect(outcomeText({ ...request({ kind: "permission" }), status: "expired" })).toBe("Denied: nobody answered in time.");
  });

  it("names where a request came from and where its answer goes", () => {
    const team = request({ origin: "team", teamId: "t1", teamName: "Shop", roomId: "r1", roomName: "General" });
    expect(whereLabel(team)).toBe("Shop › General");
    expect(answerDestination(team)).toBe("Sent to @ada in Shop › General as your message.");
    expect(whereLabel({ ...team, teamName: null })).toBe("A deleted team › General");

    const card = request({ origin: "card", cardId: "c1", cardNumber: 4, cardTitle: "Write the copy" });
    expect(whereLabel(card)).toBe("Card #4 Write the copy");
    expect(answerDestination(card)).toBe("Sent as a comment on card #4, which runs again.");

    const chat = request({});
    expect(whereLabel(chat)).toBe("Chat with Ada");
    expect(answerDestination(chat)).toBe("Sent as your message in the chat with Ada.");
  });
});
