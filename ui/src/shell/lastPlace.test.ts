import { describe, expect, it } from "vitest";
import type { Agent, Team } from "../bindings";
import { placeOf, routeOf } from "./lastPlace";

const ada = { id: "a1" } as Agent;
const shop = { id: "t1" } as Team;

describe("the place the window reopens", () => {
  it("keeps chats, rooms and pages, and reopens them while they exist", () => {
    for (const route of [
      { page: "agent", agentId: "a1", tab: "details" },
      { page: "team", teamId: "t1", roomId: "r9" },
      { page: "board", cardId: null },
      { page: "memory" },
      { page: "routines" },
      { page: "settings" },
      { page: "inbox", focus: null },
    ] as const) {
      expect(routeOf(placeOf(route), [ada], [shop])).toEqual(route);
    }
  });

  it("does not keep Home, first run, an open card or the Inbox's focus", () => {
    expect(placeOf({ page: "home" })).toBeNull();
    expect(placeOf({ page: "onboarding" })).toBeNull();
    expect(JSON.parse(placeOf({ page: "board", cardId: "c1" })!)).toEqual({ page: "board", cardId: null });
    expect(JSON.parse(placeOf({ page: "inbox", focus: { id: "q1", at: 5 } })!)).toEqual({ page: "inbox" });
  });

  it("opens Home for a place that is gone or unreadable", () => {
    expect(routeOf(placeOf({ page: "agent", agentId: "gone", tab: "chat" }), [ada], [shop])).toBeNull();
    expect(routeOf(placeOf({ page: "team", teamId: "gone", roomId: null }), [ada], [shop])).toBeNull();
    for (const bad of [null, "", "{", "[]", "3", '{"page":"nowhere"}', '{"page":"agent"}']) {
      expect(routeOf(bad, [ada], [shop])).toBeNull();
    }
  });

  it("opens an unknown tab of a kept agent on its chat", () => {
    expect(routeOf('{"page":"agent","agentId":"a1","tab":"old"}', [ada], [shop])).toEqual({
      page: "agent",
      agentId: "a1",
      tab: "chat",
    });
  });
});
