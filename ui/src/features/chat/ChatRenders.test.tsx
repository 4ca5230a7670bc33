// What a send, a streamed reply and its end cost the rows already shown: nothing. Each row renders
// its actions bar once per render, a failed run's notice its error card, and each piece of
// Markdown is parsed once per render of react-markdown, so counting those (by their text) counts
// the rows' renders and parses; the list itself is counted as it renders.
import { beforeEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor } from "@testing-library/react";
import {
  backend,
  emitRunEvent,
  finishRun,
  resetBackend,
  seedAgent,
  seedMessage,
  seedRun,
} from "../../test/fakeApi";
import { backendDoes, openChat, renderApp } from "../../test/helpers";

const counted = vi.hoisted(() => ({
  rows: new Map<string, number>(),
  parses: new Map<string, number>(),
  notices: 0,
  lists: 0,
}));
const FAILURE = "The model said no.";

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);
vi.mock("./MessageActions", async (importOriginal) => {
  const actual = await importOriginal<typeof import("./MessageActions")>();
  return {
    ...actual,
    MessageActions: (props: Parameters<typeof actual.MessageActions>[0]) => {
      counted.rows.set(props.markdown, (counted.rows.get(props.markdown) ?? 0) + 1);
      return <actual.MessageActions {...props} />;
    },
  };
});
vi.mock("../activity/RunErrorCard", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../activity/RunErrorCard")>();
  return {
    ...actual,
    RunErrorCard: (props: Parameters<typeof actual.RunErrorCard>[0]) => {
      if (props.message === FAILURE) counted.notices++;
      return <actual.RunErrorCard {...props} />;
    },
  };
});
vi.mock("../../components/Timeline", async (importOriginal) => {
  const actual = await importOriginal<typeof import("../../components/Timeline")>();
  return {
    ...actual,
    Timeline: (props: Parameters<typeof actual.Timeline>[0]) => {
      if (props.testId === "chat-timeline") counted.lists++;
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
let agentId: string;

beforeEach(() => {
  resetBackend();
  counted.rows.clear();
  counted.parses.clear();
  counted.notices = 0;
  counted.lists = 0;
  agentId = seedAgent({ name: "Researcher", handle: "researcher" }).id;
  for (let i = 1; i <= EXCHANGES; i++) {
    if (i === EXCHANGES / 2) {
      // A run that failed, noted in the conversation.
      seedMessage(agentId, "user", "a question that failed");
      seedRun(agentId, "failed", FAILURE);
    }
    seedMessage(agentId, "user", `question ${i}`);
    const run = seedRun(agentId, "succeeded");
    seedMessage(agentId, "assistant", `**answer** ${i}`, run.id);
  }
});

/** The renders so far of every seeded row (their texts), and the parses of every seeded reply. */
function seededCounts() {
  const rows: Record<string, number> = {};
  const parses: Record<string, number> = {};
  for (let i = 1; i <= EXCHANGES; i++) {
    rows[`question ${i}`] = counted.rows.get(`question ${i}`) ?? 0;
    rows[`**answer** ${i}`] = counted.rows.get(`**answer** ${i}`) ?? 0;
    parses[`**answer** ${i}`] = counted.parses.get(`**answer** ${i}`) ?? 0;
  }
  return { rows, parses, notices: counted.notices };
}

describe("Chat rendering cost", () => {
  it("sending, streaming and finishing a reply render no row already shown, and parse each reply once", async () => {
    const { user } = renderApp();
    await openChat(user, "researcher");
    await screen.findByText(`question ${EXCHANGES}`);
    const opened = seededCounts();
    // Every seeded row is shown (the test's viewport holds them all), each reply parsed once.
    expect(Object.values(opened.rows).every((n) => n >= 1)).toBe(true);
    expect(Object.values(opened.parses).every((n) => n === 1)).toBe(true);
    expect(opened.notices).toBeGreaterThanOrEqual(1);
    // The last exchange's rows change when a run starts (no Retry, no Edit while it goes).
    const lastExchange = [`question ${EXCHANGES}`, `**answer** ${EXCHANGES}`];

    await user.type(screen.getByTestId("chat-input"), "one more{Enter}");
    await screen.findByTestId("chat-streaming");
    await waitFor(() => expect(screen.getByTestId("chat-stop")).toBeTruthy());
    const runId = backend.chats.get(agentId)!.activeRun!.id;
    const sent = seededCounts();
    for (const [text, n] of Object.entries(sent.rows)) {
      if (!lastExchange.includes(text)) expect([text, n]).toEqual([text, opened.rows[text]]);
    }
    expect(sent.parses).toEqual(opened.parses);
    // The failed run's notice changes once: no Retry while a run goes.
    expect(sent.notices).toBe(opened.notices + 1);

    // Streamed events: the streaming row only, not even the list around it.
    const lists = counted.lists;
    for (let i = 0; i < 20; i++) {
      await backendDoes(() => emitRunEvent(agentId, runId, { type: "textDelta", text: `word${i} ` }));
    }
    expect(screen.getByTestId("chat-streaming").textContent).toContain("word19");
    expect(seededCounts()).toEqual(sent);
    expect(counted.lists).toBe(lists);

    // The end: the reply is stored and shown, parsed once; the old rows stay as they were.
    await backendDoes(() => finishRun(agentId, "succeeded", "The **final** reply"));
    await waitFor(() => expect(screen.queryByTestId("chat-streaming")).toBeNull());
    await screen.findByText("final");
    const finished = seededCounts();
    for (const [text, n] of Object.entries(finished.rows)) {
      if (!lastExchange.includes(text)) expect([text, n]).toEqual([text, opened.rows[text]]);
    }
    expect(finished.parses).toEqual(opened.parses);
    // And once more when it ended: Retry offered again.
    expect(finished.notices).toBe(sent.notices + 1);
    expect(counted.parses.get("The **final** reply")).toBe(1);
    expect(counted.rows.get("one more")).toBeGreaterThanOrEqual(1);
    // Twenty streamed events, each given two frames: slow on a loaded machine.
  }, 30_000);
});
