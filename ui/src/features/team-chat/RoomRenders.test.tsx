// What a message, a streamed reply and a run's end cost the rows a room already shows: nothing.
// Each row renders its actions bar once per render and each piece of Markdown is parsed once per
// render of react-markdown, so counting both (by the message's text) counts the rows' renders and
// parses; the list itself is counted as it renders.
import { beforeEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor } from "@testing-library/react";
import { backend, emitRunEvent, resetBackend, seedAgent, seedTeam } from "../../test/fakeApi";
import { emitRoomMessage, seedRoomMessage } from "../../test/fakeTeams";
import { emit } from "../../test/fakeEvents";
import { backendDoes, renderApp } from "../../test/helpers";
import type { RunSummary } from "../../bindings";

const counted = vi.hoisted(() => ({ rows: new Map<string, number>(), parses: new Map<string, number>(), lists: 0 }));

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);
vi.mock("../chat/MessageActions", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../chat/MessageActions")>();
  return {
    ...actual,
    MessageActions: (props: Parameters<typeof actual.MessageActions>[0]) => {
      counted.rows.set(props.markdown, (counted.rows.get(props.markdown) ?? 0) + 1);
      return <actual.MessageActions {...props} />;
    },
  };
});
vi.mock("../../components/Timeline", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../components/Timeline")>();
  return {
    ...actual,
    Timeline: (props: Parameters<typeof actual.Timeline>[0]) => {
      if (props.testId === "room-timeline") counted.lists++;
      return <actual.Timeline {...props} />;
    },
  };
});
vi.mock("react-markdown", async (importOriginal) => {
  const actual = await importOriginal<typeof import("react-markdown")>();
  const Parsed = actual.default;
  return {
    ...actual,
    default: (props: Parameters<typeof Parsed>[0]) => {
      if (typeof props.children === "string") {
        counted.parses.set(props.children, (counted.parses.get(props.children) ?? 0) + 1);
      }
      return <Parsed {...props} />;
    },
  };
});

// One page of history (50 messages per page), all of it in view.
const EXCHANGES = 20;

beforeEach(() => {
  resetBackend();
  counted.rows.clear();
  counted.parses.clear();
  counted.lists = 0;
});

describe("Room rendering cost", () => {
  it("a new message, a streamed reply and its end render no row already shown, and parse each reply once", async () => {
    const ava = seedAgent({ name: "Ava", handle: "ava" });
    const team = seedTeam({ name: "Research", memberIds: [ava.id], aboutYou: "Hi." });
    const room = team.rooms[0].id;
    const texts: string[] = [];
    for (let i = 1; i <= EXCHANGES; i++) {
      seedRoomMessage(room, { kind: "user", content: `question ${i}` });
      seedRoomMessage(room, { kind: "reply", content: `**answer** ${i}`, authorId: ava.id });
      texts.push(`question ${i}`, `**answer** ${i}`);
    }
    const counts = () => ({
      rows: texts.map((t) => [t, counted.rows.get(t) ?? 0]),
      parses: texts.filter((t) => t.startsWith("**")).map((t) => [t, counted.parses.get(t) ?? 0]),
    });

    const { user } = renderApp();
    await user.click(await screen.findByTestId("team-item-Research"));
    await screen.findByText(`question ${EXCHANGES}`);
    const opened = counts();
    expect(opened.rows.every(([, n]) => (n as number) >= 1)).toBe(true);
    expect(opened.parses.every(([, n]) => n === 1)).toBe(true);

    // The user's message, then the leader's run starting.
    const asked = seedRoomMessage(room, { kind: "user", content: "one more" });
    const run: RunSummary = {
      id: "run-live", agentId: ava.id, runtime: "native", status: "running", error: null, errorCode: null,
      startedAt: 1, finishedAt: null,
    };
    backend.roomRuns.set(room, [run]);
    await backendDoes(() => {
      emitRoomMessage(team.id, asked);
      emit("roomRunChanged", { teamId: team.id, roomId: room, run });
    });
    await screen.findByTestId("room-live-reply");
    expect(counts()).toEqual(opened);

    // Streamed events: the live reply only, not even the list around it.
    const lists = counted.lists;
    for (let i = 0; i < 20; i++) {
      await backendDoes(() => emitRunEvent(ava.id, run.id, { type: "textDelta", text: `word${i} ` }));
    }
    expect(screen.getByTestId("room-live-reply").textContent).toContain("word19");
    expect(counts()).toEqual(opened);
    expect(counted.lists).toBe(lists);

    // The end: the reply stored and shown, parsed once; the old rows as they were.
    const reply = seedRoomMessage(room, { kind: "reply", content: "The **final** reply", authorId: ava.id, runId: run.id });
    const done = { ...run, status: "succeeded" as const, finishedAt: 2 };
    backend.roomRuns.set(room, [done]);
    await backendDoes(() => {
      emitRoomMessage(team.id, reply);
      emit("roomRunChanged", { teamId: team.id, roomId: room, run: done });
    });
    await waitFor(() => expect(screen.queryByTestId("room-live-reply")).toBeNull());
    await screen.findByText("final");
    expect(counts()).toEqual(opened);
    expect(counted.parses.get("The **final** reply")).toBe(1);
    // Twenty streamed events, each given two frames: slow on a loaded machine.
  }, 30_000);
});
