import { beforeEach, describe, expect, it, vi } from "vitest";
import { act, screen, waitFor, within } from "@testing-library/react";
import { backend, fakeApi, resetBackend, seedAgent, seedTeam } from "../../test/fakeApi";
import {
  emitMemoryChanged,
  memory,
  seedCitation,
  seedEdit,
  seedFact,
  seedNote,
  seedPromotion,
  seedScratch,
} from "../../test/fakeMemory";
import { renderApp } from "../../test/helpers";
import type { Agent, Author, Team } from "../../bindings";

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);

let ava: Agent;
let bo: Agent;
let research: Team;
const byAva = (): Author => ({ kind: "agent", agent_id: ava.id, handle: "ava", run_id: "run-1" });

beforeEach(() => {
  resetBackend();
  ava = seedAgent({ name: "Ava", handle: "ava" });
  bo = seedAgent({ name: "Bo", handle: "bo" });
  research = seedTeam({ name: "Research", memberIds: [ava.id, bo.id] });
});

async function openMemory() {
  const { user } = renderApp();
  await user.click(await screen.findByTestId("nav-memory"));
  await screen.findByTestId("memory-page");
  return { user };
}

const rowIds = () =>
  within(screen.getByTestId("memory-fact-list"))
    .getAllByRole("listitem")
    .map((li) => li.getAttribute("data-testid"));

describe("Memory view: facts", () => {
  it("lists facts with id, text, tags, scope and author, and searches as you type", async () => {
    const deploy = seedFact({ text: "Deploys go out on Mondays.", tags: ["release"], author: byAva() });
    const api = seedFact({ text: "The staging API is at staging.example.com.", scope: { kind: "team", team_id: research.id } });
    const { user } = await openMemory();

    const row = await screen.findByTestId(`memory-fact-${deploy.id}`);
    expect(screen.getByTestId("nav-memory").getAttribute("aria-current")).toBe("page");
    expect(deploy.id).toMatch(/^m-[0-9a-f]{4}$/);
    expect(row.querySelector("code")?.textContent).toBe(deploy.id);
    expect(row.textContent).toContain("Deploys go out on Mondays.");
    expect(row.textContent).toContain("release");
    expect(row.textContent).toContain("Global");
    expect(screen.getByTestId(`memory-fact-author-${deploy.id}`).textContent).toBe("@ava");
    expect(screen.getByTestId(`memory-fact-author-${api.id}`).textContent).toBe("You");
    expect(screen.getByTestId(`memory-fact-${api.id}`).textContent).toContain("#Research");
    // Newest first without a query.
    expect(rowIds()).toEqual([`memory-fact-${api.id}`, `memory-fact-${deploy.id}`]);

    await user.type(screen.getByTestId("memory-search"), "staging");
    await waitFor(() => expect(rowIds()).toEqual([`memory-fact-${api.id}`]));
    // One search for the settled text, not one per keystroke.
    const queries = fakeApi.memoryList.mock.calls.map(([f]) => f.query);
    expect(queries).toContain("staging");
    expect(queries).not.toContain("s");
    expect(queries).not.toContain("stag");

    await user.clear(screen.getByTestId("memory-search"));
    await user.type(screen.getByTestId("memory-search"), "nothing like it");
    expect((await screen.findByTestId("memory-facts-empty")).textContent).toBe("No fact matches.");
  });

  it("shows facts related by tags below the matches", async () => {
    const top = seedFact({ text: "Release notes live in docs/releases.", tags: ["release"] });
    const related = seedFact({ text: "Tag builds with the version number.", tags: ["release", "ci"] });
    const { user } = await openMemory();
    await user.type(await screen.findByTestId("memory-search"), "notes");
    await waitFor(() => expect(rowIds()).toEqual([`memory-fact-${top.id}`]));
    const section = await screen.findByTestId("memory-related");
    expect(within(section).getByTestId(`memory-related-${related.id}`).textContent).toContain("Tag builds");
  });

  it("filters by scope and by author, and shows deleted facts only when asked", async () => {
    const global = seedFact({ text: "Use UTC everywhere." });
    const team = seedFact({ text: "Research cites sources.", scope: { kind: "team", team_id: research.id }, author: byAva() });
    const own = seedFact({ text: "Bo prefers short answers.", scope: { kind: "agent", agent_id: bo.id } });
    const gone = seedFact({ text: "Old office address.", deleted: true, version: 2 });
    const { user } = await openMemory();
    await screen.findByTestId(`memory-fact-${global.id}`);
    expect(screen.queryByTestId(`memory-fact-${gone.id}`)).toBeNull();

    await user.selectOptions(screen.getByTestId("memory-filter-scope"), `team:${research.id}`);
    await waitFor(() => expect(rowIds()).toEqual([`memory-fact-${team.id}`]));
    await user.selectOptions(screen.getByTestId("memory-filter-scope"), `agent:${bo.id}`);
    await waitFor(() => expect(rowIds()).toEqual([`memory-fact-${own.id}`]));
    expect(screen.getByTestId(`memory-fact-${own.id}`).textContent).toContain("@bo only");

    await user.selectOptions(screen.getByTestId("memory-filter-scope"), "all");
    await user.selectOptions(screen.getByTestId("memory-filter-author"), ava.id);
    await waitFor(() => expect(rowIds()).toEqual([`memory-fact-${team.id}`]));
    await user.selectOptions(screen.getByTestId("memory-filter-author"), "user");
    await waitFor(() => expect(rowIds()).toEqual([`memory-fact-${own.id}`, `memory-fact-${global.id}`]));
    expect(fakeApi.memoryList).toHaveBeenLastCalledWith(
      expect.objectContaining({ author: "user", scope: null, includeDeleted: false }),
    );

    await user.click(screen.getByTestId("memory-show-deleted"));
    const deleted = await screen.findByTestId(`memory-fact-${gone.id}`);
    expect(deleted.textContent).toContain("deleted");
  });

  it("creates a fact, showing the engine's refusal inline and keeping the text", async () => {
    const { user } = await openMemory();
    await user.click(await screen.findByTestId("memory-new-fact"));
    const form = screen.getByTestId("memory-new-form");
    const secret = "The key is sk-abcdefghijklmnopqrstuvwxyz0123";
    await user.type(within(form).getByTestId("memory-new-text"), secret);
    await user.selectOptions(within(form).getByTestId("memory-new-scope"), `team:${research.id}`);
    await user.type(within(form).getByTestId("memory-new-tags"), "keys, ops");
    await user.click(within(form).getByTestId("memory-new-save"));

    expect((await within(form).findByTestId("error-message")).textContent).toContain("looks like a secret");
    expect((within(form).getByTestId("memory-new-text") as HTMLTextAreaElement).value).toBe(secret);
    expect(memory.facts).toHaveLength(0);

    await user.clear(within(form).getByTestId("memory-new-text"));
    await user.type(within(form).getByTestId("memory-new-text"), "Keys live in the team vault.");
    await user.click(within(form).getByTestId("memory-new-save"));

    await waitFor(() => expect(screen.queryByTestId("memory-new-form")).toBeNull());
    expect(fakeApi.memorySave).toHaveBeenLastCalledWith({
      text: "Keys live in the team vault.",
      scope: { kind: "team", team_id: research.id },
      tags: ["keys", "ops"],
    });
    const id = memory.facts[0].id;
    expect((await screen.findByTestId(`memory-fact-${id}`)).textContent).toContain("Keys live in the team vault.");
    expect(screen.getByTestId(`memory-fact-author-${id}`).textContent).toBe("You");
    // The new fact opens beside the list.
    expect(within(await screen.findByTestId("memory-detail")).getByTestId("memory-detail-text").textContent).toBe(
      "Keys live in the team vault.",
    );
  });

  it("says when the exact text was already saved in that scope, and opens that fact", async () => {
    const fact = seedFact({ text: "Use UTC everywhere." });
    const { user } = await openMemory();
    await user.click(await screen.findByTestId("memory-new-fact"));
    await user.type(screen.getByTestId("memory-new-text"), "Use UTC everywhere.");
    await user.click(screen.getByTestId("memory-new-save"));
    expect((await screen.findByTestId("memory-notice")).textContent).toContain(`already saved in that scope as ${fact.id}`);
    expect(memory.facts).toHaveLength(1);
    expect(within(screen.getByTestId("memory-detail")).getByText(fact.id)).toBeTruthy();
  });
});

describe("Memory view: a fact's detail", () => {
  it("shows every version with a word diff, who changed it, and the runs it was cited in", async () => {
    const fact = seedFact({ text: "Deploys go out on Fridays.", tags: ["release"], author: byAva() });
    seedEdit(fact.id, "Deploys go out on Mondays.");
    seedCitation(fact.id, { runId: "run-42", agentId: bo.id, agentHandle: "bo", at: 20_000 });
    backend.runContexts.set("run-42", {
      runId: "run-42",
      roomId: "room-1",
      turnKind: "teammate",
      placement: "system_slot",
      systemText: null,
      preamble: null,
      sections: [
        { kind: "message", stability: "turn", title: "Message", text: "Ship it", chars: 7, budget: null, cutFrom: null },
      ],
      steadyInSession: false,
      deferred: [],
      files: [],
      createdAt: 20_000,
    });
    const { user } = await openMemory();
    await user.click(await screen.findByText("Deploys go out on Mondays."));
    const detail = await screen.findByTestId("memory-detail");

    const versions = await within(detail).findByTestId("memory-versions");
    const items = within(versions).getAllByRole("listitem");
    expect(items).toHaveLength(2);
    expect(within(items[0]).getByTestId("memory-version-change-1").textContent).toBe("Created");
    expect(items[0].textContent).toContain("by @ava");
    expect(items[0].textContent).toContain("Deploys go out on Fridays.");
    expect(within(items[1]).getByTestId("memory-version-change-2").textContent).toBe("Edited");
    expect(items[1].textContent).toContain("by You");
    const diff = within(items[1]).getByTestId("memory-diff-2");
    expect(diff.querySelector("del")?.textContent).toBe("Fridays.");
    expect(diff.querySelector("ins")?.textContent).toBe("Mondays.");

    const citation = within(detail).getByTestId("memory-citation-run-42");
    expect(citation.textContent).toContain("@bo");
    expect(citation.textContent).toContain("run-42");
    await user.click(citation);
    const viewer = await screen.findByTestId("run-context");
    expect(viewer.textContent).toContain("What @bo saw");
    expect(await within(viewer).findByTestId("run-context-section-message")).toBeTruthy();
    expect(fakeApi.runContext).toHaveBeenCalledWith("run-42");
  });

  it("opens a cited run that kept no context with the engine's message and the run id", async () => {
    const fact = seedFact({ text: "Use UTC everywhere." });
    seedCitation(fact.id, { runId: "run-7", agentId: ava.id, agentHandle: "ava", at: 20_000 });
    const { user } = await openMemory();
    await user.click(await screen.findByText(fact.text));
    await user.click(await screen.findByTestId("memory-citation-run-7"));
    const viewer = await screen.findByTestId("run-context");
    expect((await within(viewer).findByTestId("error-message")).textContent).toBe("Run context not found");
    expect(fakeApi.runContext).toHaveBeenCalledWith("run-7");
  });

  it("says when no run was given the fact", async () => {
    const fact = seedFact({ text: "Use UTC everywhere." });
    const { user } = await openMemory();
    await user.click(await screen.findByText(fact.text));
    expect((await screen.findByTestId("memory-citations-none")).textContent).toContain("No run");
  });

  it("edits, deletes and restores, each a new version in the history", async () => {
    const fact = seedFact({ text: "Standup is at 9.", tags: ["team"] });
    const { user } = await openMemory();
    await user.click(await screen.findByText("Standup is at 9."));
    const detail = await screen.findByTestId("memory-detail");

    await user.click(await within(detail).findByTestId("memory-edit"));
    await user.clear(within(detail).getByTestId("memory-edit-text"));
    await user.type(within(detail).getByTestId("memory-edit-text"), "Standup is at 9:30.");
    await user.click(within(detail).getByTestId("memory-edit-save"));
    expect(fakeApi.memoryEdit).toHaveBeenCalledWith(fact.id, { text: "Standup is at 9:30.", tags: null });
    await within(detail).findByTestId("memory-version-2");
    expect((await screen.findByTestId(`memory-fact-${fact.id}`)).textContent).toContain("Standup is at 9:30.");

    await user.click(within(detail).getByTestId("memory-delete"));
    expect(await within(detail).findByTestId("memory-detail-deleted")).toBeTruthy();
    expect(within(detail).getByTestId("memory-version-change-3").textContent).toBe("Deleted");
    // Hidden from the list unless deleted ones are shown.
    await waitFor(() => expect(screen.queryByTestId(`memory-fact-${fact.id}`)).toBeNull());

    await user.click(within(detail).getByTestId("memory-restore"));
    await waitFor(() => expect(within(detail).getByTestId("memory-version-change-4").textContent).toBe("Restored"));
    expect(within(detail).queryByTestId("memory-detail-deleted")).toBeNull();
    expect(await screen.findByTestId(`memory-fact-${fact.id}`)).toBeTruthy();
    expect(memory.facts[0]).toMatchObject({ deleted: false, version: 4, text: "Standup is at 9:30." });
  });

  it("restores a deleted fact straight from the list", async () => {
    const fact = seedFact({ text: "Old office address.", deleted: true, version: 2 });
    const { user } = await openMemory();
    await user.click(await screen.findByTestId("memory-show-deleted"));
    await user.click(await screen.findByTestId(`memory-fact-restore-${fact.id}`));
    expect(fakeApi.memoryRestore).toHaveBeenCalledWith(fact.id);
    await waitFor(() => expect(screen.queryByTestId(`memory-fact-restore-${fact.id}`)).toBeNull());
    expect(screen.getByTestId(`memory-fact-${fact.id}`).textContent).not.toContain("deleted");
  });

  it("refetches when the engine reports a memory change", async () => {
    await openMemory();
    expect(await screen.findByTestId("memory-facts-empty")).toBeTruthy();
    const fact = seedFact({ text: "Saved by an agent just now.", author: byAva() });
    await act(async () => emitMemoryChanged());
    expect(await screen.findByTestId(`memory-fact-${fact.id}`)).toBeTruthy();
    expect(screen.getByTestId(`memory-fact-author-${fact.id}`).textContent).toBe("@ava");
  });
});

describe("Memory view: saved notes", () => {
  it("lists the picked agent's notes and deletes one after confirming", async () => {
    const avaNote = seedNote(ava.id, "Sam likes tables.");
    const boNote = seedNote(bo.id, "Reply in French.");
    const { user } = await openMemory();
    await user.click(screen.getByTestId("memory-tab-notes"));
    expect((await screen.findByTestId(`memory-note-${avaNote.id}`)).textContent).toContain("Sam likes tables.");
    expect(screen.queryByTestId(`memory-note-${boNote.id}`)).toBeNull();

    await user.selectOptions(screen.getByTestId("memory-notes-agent"), bo.id);
    expect((await screen.findByTestId(`memory-note-${boNote.id}`)).textContent).toContain("Reply in French.");
    expect(screen.queryByTestId(`memory-note-${avaNote.id}`)).toBeNull();

    await user.click(screen.getByTestId(`memory-note-delete-${boNote.id}`));
    await user.click(screen.getByTestId("memory-note-delete-confirm"));
    expect(fakeApi.memoryDeleteNote).toHaveBeenCalledWith(boNote.id);
    await waitFor(() => expect(screen.queryByTestId(`memory-note-${boNote.id}`)).toBeNull());
    expect(await screen.findByTestId("memory-notes-empty")).toBeTruthy();
    expect(memory.notes.map((n) => n.id)).toEqual([avaNote.id]);
  });
});

describe("Memory view: scratchpad", () => {
  it("approves a pending promotion: the exact text is copied to the target scope", async () => {
    const session = seedScratch({ kind: "session", conversation_id: "conv-1" }, "The build needs Node 22.", byAva());
    const promotion = seedPromotion(session, { kind: "team", team_id: research.id }, byAva());
    const { user } = await openMemory();
    await user.click(screen.getByTestId("memory-tab-scratch"));

    const row = await screen.findByTestId(`promotion-${promotion.id}`);
    expect(row.textContent).toContain("@ava asks to copy to #Research");
    expect(row.querySelector("blockquote")?.textContent).toBe("The build needs Node 22.");
    expect(screen.getByTestId("scratch-group-sessions").textContent).toContain("The build needs Node 22.");

    await user.click(within(row).getByTestId(`promotion-approve-${promotion.id}`));
    expect(fakeApi.decidePromotion).toHaveBeenCalledWith(promotion.id, true);
    const team = screen.getByTestId(`scratch-group-team-${research.id}`);
    await waitFor(() => expect(team.textContent).toContain("The build needs Node 22."));
    expect(team.textContent).toContain(`promoted from ${session.id}`);
    expect(await screen.findByTestId("memory-promotions-none")).toBeTruthy();
    expect(screen.getByTestId(`promotion-status-${promotion.id}`).textContent).toContain("approved");
    // The session note stays where it was: a promotion copies.
    expect(screen.getByTestId(`scratch-note-${session.id}`)).toBeTruthy();
  });

  it("rejects a pending promotion: nothing is copied", async () => {
    const session = seedScratch({ kind: "session", conversation_id: "conv-1" }, "Everyone should use tabs.", byAva());
    const promotion = seedPromotion(session, { kind: "global" }, byAva());
    const { user } = await openMemory();
    await user.click(screen.getByTestId("memory-tab-scratch"));
    const row = await screen.findByTestId(`promotion-${promotion.id}`);
    expect(within(row).getByTestId(`promotion-approve-${promotion.id}`).textContent).toContain("Global");

    await user.click(within(row).getByTestId(`promotion-reject-${promotion.id}`));
    expect(fakeApi.decidePromotion).toHaveBeenCalledWith(promotion.id, false);
    await waitFor(() => expect(screen.getByTestId(`promotion-status-${promotion.id}`).textContent).toContain("rejected"));
    expect(screen.getByTestId("scratch-group-global").textContent).not.toContain("Everyone should use tabs.");
    expect(memory.scratch).toHaveLength(1);
  });

  it("adds, edits and deletes global and team notes; session notes are read-only", async () => {
    const session = seedScratch({ kind: "session", conversation_id: "conv-1" }, "Halfway through the audit.", byAva());
    const { user } = await openMemory();
    await user.click(screen.getByTestId("memory-tab-scratch"));

    await user.type(await screen.findByTestId("scratch-add-input-global"), "Quiet hours after 6pm.");
    await user.click(screen.getByTestId("scratch-add-global"));
    expect(fakeApi.scratchAdd).toHaveBeenCalledWith({ kind: "global" }, "Quiet hours after 6pm.");
    await waitFor(() => expect(screen.getByTestId("scratch-group-global").textContent).toContain("Quiet hours after 6pm."));

    const teamKey = `team-${research.id}`;
    await user.type(screen.getByTestId(`scratch-add-input-${teamKey}`), "Draft due Friday.");
    await user.click(screen.getByTestId(`scratch-add-${teamKey}`));
    await waitFor(() => expect(screen.getByTestId(`scratch-group-${teamKey}`).textContent).toContain("Draft due Friday."));
    const teamNote = memory.scratch.find((n) => n.text === "Draft due Friday.")!;
    expect(teamNote.scope).toEqual({ kind: "team", team_id: research.id });

    await user.click(screen.getByTestId(`scratch-edit-${teamNote.id}`));
    await user.clear(screen.getByTestId(`scratch-edit-text-${teamNote.id}`));
    await user.type(screen.getByTestId(`scratch-edit-text-${teamNote.id}`), "Draft due Monday.");
    await user.click(screen.getByTestId(`scratch-edit-save-${teamNote.id}`));
    await waitFor(() => expect(screen.getByTestId(`scratch-note-${teamNote.id}`).textContent).toContain("Draft due Monday."));

    await user.click(screen.getByTestId(`scratch-delete-${teamNote.id}`));
    await user.click(screen.getByTestId("scratch-delete-confirm"));
    await waitFor(() => expect(screen.queryByTestId(`scratch-note-${teamNote.id}`)).toBeNull());
    expect(fakeApi.scratchDelete).toHaveBeenCalledWith(teamNote.id);

    const sessionRow = screen.getByTestId(`scratch-note-${session.id}`);
    expect(sessionRow.textContent).toContain("@ava");
    expect(within(sessionRow).queryByTestId(`scratch-edit-${session.id}`)).toBeNull();
    expect(within(sessionRow).queryByTestId(`scratch-delete-${session.id}`)).toBeNull();
  });
});
