import { beforeEach, describe, expect, it, vi } from "vitest";
import { screen, waitFor, within } from "@testing-library/react";
import { backend, fakeApi, resetBackend, seedAgent, seedTeam } from "../../test/fakeApi";
import { seedRoomMessage } from "../../test/fakeTeams";
import { seedCard } from "../../test/fakeBoard";
import { renderApp } from "../../test/helpers";
import { ClawbooError } from "../../errors";
import type { Agent } from "../../bindings";

vi.mock("../../api", async () => (await import("../../test/fakeApi")).fakeApiModule);

let ava: Agent;
let bo: Agent;

beforeEach(() => {
  resetBackend();
  ava = seedAgent({ name: "Ava", handle: "ava" });
  bo = seedAgent({ name: "Bo", handle: "bo" });
});

async function openTeam(name: string) {
  const { user } = renderApp();
  await user.click(await screen.findByTestId(`team-item-${name}`));
  await screen.findByTestId("team-page");
  return { user };
}

describe("New team dialog", () => {
  it("creates a team of the picked agents with the chosen leader and opens it", async () => {
    const { user } = renderApp();
    await user.click(await screen.findByTestId("new-team-button"));
    const dialog = screen.getByTestId("new-team-dialog");
    await user.type(within(dialog).getByTestId("team-name-input"), "Research");
    await user.click(within(dialog).getByTestId("new-team-member-bo"));
    await user.click(within(dialog).getByTestId("new-team-member-ava"));
    // The first picked leads until another is chosen.
    expect((within(dialog).getByTestId("new-team-leader-bo") as HTMLInputElement).checked).toBe(true);
    await user.click(within(dialog).getByTestId("new-team-leader-ava"));
    await user.click(within(dialog).getByTestId("create-team-submit"));

    expect(fakeApi.createTeam).toHaveBeenCalledWith({ name: "Research", memberIds: [bo.id, ava.id], leaderId: ava.id });
    await screen.findByTestId("team-page");
    expect(screen.queryByTestId("new-team-dialog")).toBeNull();
    expect(screen.getByTestId("team-name").textContent).toBe("Research");
    const members = screen.getByTestId("team-member-list");
    expect(members.textContent).toContain("@bo");
    const badge = within(members).getByTestId("leader-badge");
    expect(badge.closest("li")?.textContent).toContain("@ava");
    expect(screen.getByTestId("team-item-Research")).toBeTruthy();
    expect(screen.getByTestId("room-tab-General")).toBeTruthy();
  });

  it("asks for a name and a member before sending anything", async () => {
    const { user } = renderApp();
    await user.click(await screen.findByTestId("new-team-button"));
    await user.click(screen.getByTestId("create-team-submit"));
    expect(screen.getByTestId("error-message").textContent).toBe("Enter a name.");
    await user.type(screen.getByTestId("team-name-input"), "Research");
    await user.click(screen.getByTestId("create-team-submit"));
    expect(screen.getByTestId("error-message").textContent).toBe("Pick at least one member.");
    expect(fakeApi.createTeam).not.toHaveBeenCalled();
  });

  it("shows the engine's error with its message and keeps the form", async () => {
    fakeApi.createTeam.mockRejectedValueOnce(new ClawbooError("not_found", "Agent x was not found."));
    const { user } = renderApp();
    await user.click(await screen.findByTestId("new-team-button"));
    await user.type(screen.getByTestId("team-name-input"), "Research");
    await user.click(screen.getByTestId("new-team-member-ava"));
    await user.click(screen.getByTestId("create-team-submit"));
    expect((await screen.findByTestId("error-message")).textContent).toBe("Agent x was not found.");
    expect((screen.getByTestId("team-name-input") as HTMLInputElement).value).toBe("Research");
  });
});

describe("Team brief & rules", () => {
  it("counts the rules' characters and shows the engine's budget error", async () => {
    // 1,234 characters already, one of them a two-unit emoji counted once.
    const team = seedTeam({ name: "Research", memberIds: [ava.id], aboutYou: "Hi, I'm Sam." });
    backend.teams[0].rules = [{ id: "r1", text: "🙂" + "x".repeat(1_233), createdAt: 1 }];
    const { user } = await openTeam("Research");
    await user.click(screen.getByTestId("team-brief-button"));
    const dialog = screen.getByTestId("team-brief-dialog");
    expect(within(dialog).getByTestId("rules-counter").textContent).toBe("1,234 / 4,000 characters");

    // A rule that would pass the budget: the counter says so, the engine refuses with its message.
    await user.click(within(dialog).getByTestId("rule-input"));
    await user.paste("y".repeat(2_976));
    const counter = within(dialog).getByTestId("rules-counter");
    expect(counter.textContent).toBe("4,210 / 4,000 characters");
    expect(counter.className).toContain("is-over");
    await user.click(within(dialog).getByTestId("rule-add"));
    expect((await within(dialog).findByTestId("error-message")).textContent).toBe(
      "Team rules have at most 4,000 characters in all; with this one they would have 4,210. Shorten or remove a rule.",
    );
    expect(backend.teams[0].rules).toHaveLength(1);

    // A rule that fits is added, listed and counted; the hint mentions /rule.
    await user.clear(within(dialog).getByTestId("rule-input"));
    await user.type(within(dialog).getByTestId("rule-input"), "Cite sources.");
    await user.click(within(dialog).getByTestId("rule-add"));
    await waitFor(() => expect(within(dialog).getByTestId("rule-list").textContent).toContain("Cite sources."));
    expect(within(dialog).getByTestId("rules-counter").textContent).toBe("1,247 / 4,000 characters");
    expect(within(dialog).queryByTestId("error-message")).toBeNull();
    expect(dialog.textContent).toContain("/rule <text>");

    // And removed.
    await user.click(within(dialog).getAllByTestId("remove-rule")[0]);
    await waitFor(() => expect(within(dialog).getAllByTestId("remove-rule")).toHaveLength(1));
    expect(fakeApi.removeTeamRule).toHaveBeenCalledWith(team.id, "r1");
  });

  it("saves the brief and About you", async () => {
    const team = seedTeam({ name: "Research", memberIds: [ava.id], aboutYou: "Hi." });
    const { user } = await openTeam("Research");
    await user.click(screen.getByTestId("team-brief-button"));
    await user.type(screen.getByTestId("team-brief-input"), "Find out what users need.");
    await user.click(screen.getByTestId("team-brief-save"));
    await waitFor(() => expect(backend.teams[0].brief).toBe("Find out what users need."));
    await user.type(screen.getByTestId("team-about-you-input"), " I bake.");
    await user.click(screen.getByTestId("team-about-you-save"));
    await waitFor(() => expect(fakeApi.setAboutYou).toHaveBeenCalledWith(team.id, "Hi. I bake."));
  });

  it("sets the folder the team's cards work in, refusing a relative path", async () => {
    const team = seedTeam({ name: "Research", memberIds: [ava.id], aboutYou: "Hi." });
    const { user } = await openTeam("Research");
    await user.click(screen.getByTestId("team-brief-button"));
    await user.type(screen.getByTestId("team-folder-input"), "code/shop");
    await user.click(screen.getByTestId("team-folder-save"));
    expect((await screen.findByTestId("error-message")).textContent).toContain("full path");
    await user.clear(screen.getByTestId("team-folder-input"));
    await user.type(screen.getByTestId("team-folder-input"), "/home/me/code/shop");
    await user.click(screen.getByTestId("team-folder-save"));
    await waitFor(() => expect(backend.teams[0].projectFolder).toBe("/home/me/code/shop"));
    expect(fakeApi.setTeamProjectFolder).toHaveBeenLastCalledWith(team.id, "/home/me/code/shop");
  });
});

describe("About you gate", () => {
  it("asks the user to introduce themselves before the chat shows", async () => {
    const team = seedTeam({ name: "Research", memberIds: [ava.id, bo.id] });
    const { user } = await openTeam("Research");
    expect(screen.getByTestId("about-you-gate")).toBeTruthy();
    expect(screen.queryByTestId("room-chat")).toBeNull();
    expect(screen.getByTestId("about-you-save").hasAttribute("disabled")).toBe(true);

    await user.click(screen.getByTestId("about-you-input"));
    await user.paste("ü".repeat(4_001));
    expect(screen.getByTestId("about-you-counter").textContent).toBe("4,001 / 4,000 characters");
    expect(screen.getByTestId("about-you-save").hasAttribute("disabled")).toBe(true);

    await user.clear(screen.getByTestId("about-you-input"));
    await user.type(screen.getByTestId("about-you-input"), "I'm Sam; I run a bakery.");
    expect(screen.getByTestId("about-you-counter").textContent).toBe("24 / 4,000 characters");
    await user.click(screen.getByTestId("about-you-save"));

    expect((await screen.findByTestId("room-chat")).getAttribute("aria-label")).toContain("General");
    expect(screen.queryByTestId("about-you-gate")).toBeNull();
    expect(fakeApi.setAboutYou).toHaveBeenCalledWith(team.id, "I'm Sam; I run a bakery.");
  });
});

describe("Room chat", () => {
  it("suggests teammates' handles as @ is typed, and Tab completes one", async () => {
    seedTeam({ name: "Research", memberIds: [ava.id, bo.id], aboutYou: "Hi." });
    const { user } = await openTeam("Research");
    const input = (await screen.findByTestId("chat-input")) as HTMLTextAreaElement;
    await user.type(input, "ask @a");
    const suggestions = screen.getByTestId("teammate-mention-suggestions");
    expect(within(suggestions).getByTestId("teammate-mention-ava").textContent).toBe("@ava");
    expect(within(suggestions).queryByTestId("teammate-mention-bo")).toBeNull();
    await user.keyboard("{Tab}");
    expect(input.value).toBe("ask @ava ");
  });

  it("keeps a reply's lines apart and highlights members' @handles, which open the agent", async () => {
    const team = seedTeam({ name: "Research", memberIds: [ava.id, bo.id], aboutYou: "Hi." });
    seedRoomMessage(team.rooms[0].id, {
      kind: "reply",
      authorId: ava.id,
      content: "@bo collect the prices\n@ava write the copy",
    });
    const { user } = await openTeam("Research");
    const reply = await screen.findByTestId("room-message-reply");
    expect(reply.querySelectorAll(".markdown br")).toHaveLength(1);
    const mentions = [...reply.querySelectorAll(".mention")];
    expect(mentions.map((m) => m.textContent)).toEqual(["@bo", "@ava"]);
    await user.click(mentions[0]);
    expect(await screen.findByRole("heading", { level: 1, name: "Bo" })).toBeTruthy();
  });
});

describe("Room runs", () => {
  it("labels each run with its agent, when it started and its turn, and says when a run did nothing to show", async () => {
    const team = seedTeam({ name: "Research", memberIds: [ava.id, bo.id], aboutYou: "Hi." });
    const at = new Date(2026, 11, 5, 9, 30).getTime();
    const run = (id: string, agentId: string, minutes: number) => ({
      id, agentId, runtime: "native" as const, status: "succeeded" as const, error: null, errorCode: null,
      startedAt: at + minutes * 60_000, finishedAt: at + minutes * 60_000 + 5_000,
    });
    backend.roomRuns.set(team.rooms[0].id, [run("r1", ava.id, 0), run("r2", bo.id, 1), run("r3", ava.id, 2)]);
    await openTeam("Research");
    const picker = await screen.findByTestId("room-runs");
    const labels = [...picker.querySelectorAll("button")].map((b) => b.textContent);
    expect(labels[0]).toMatch(/^@ava.*turn 2Done$/);
    expect(labels[1]).toMatch(/^@bo.*turn 1Done$/);
    expect(labels[2]).toMatch(/^@ava.*turn 1Done$/);
    expect(screen.getByTestId("activity-card").textContent).toContain("This run made no tool calls");
  });
});

describe("Team page", () => {
  it("opens a new room as a tab after General", async () => {
    seedTeam({ name: "Research", memberIds: [ava.id, bo.id], aboutYou: "Hi." });
    const { user } = await openTeam("Research");
    await user.click(screen.getByTestId("new-room-button"));
    const dialog = screen.getByTestId("room-dialog");
    await user.type(within(dialog).getByTestId("room-name-input"), "Design");
    await user.click(within(dialog).getByTestId("room-member-bo"));
    await user.click(within(dialog).getByTestId("room-save"));

    await waitFor(() => expect(screen.getByTestId("room-chat").getAttribute("aria-label")).toContain("Design"));
    const tabs = screen.getAllByRole("tab").map((t) => t.textContent);
    expect(tabs).toEqual(["General", "Design"]);
    expect(screen.getByTestId("room-summary").textContent).toContain("@bo");
  });

  it("shows the room name error from the engine", async () => {
    seedTeam({ name: "Research", memberIds: [ava.id], aboutYou: "Hi." });
    const { user } = await openTeam("Research");
    await user.click(screen.getByTestId("new-room-button"));
    await user.type(screen.getByTestId("room-name-input"), "general");
    await user.click(screen.getByTestId("room-member-ava"));
    await user.click(screen.getByTestId("room-save"));
    expect((await screen.findByTestId("error-message")).textContent).toContain("choose another name");
  });

  it("hides archived teams behind a toggle", async () => {
    seedTeam({ name: "Old", memberIds: [ava.id], archived: true });
    seedTeam({ name: "Current", memberIds: [ava.id] });
    const { user } = renderApp();
    await screen.findByTestId("team-item-Current");
    expect(screen.queryByTestId("team-item-Old")).toBeNull();
    await user.click(screen.getByTestId("show-archived-teams"));
    expect(screen.getByTestId("team-item-Old")).toBeTruthy();
  });

  it("archives and deletes a team from its menu, after confirming", async () => {
    seedTeam({ name: "Research", memberIds: [ava.id], aboutYou: "Hi." });
    const { user } = await openTeam("Research");
    await user.click(screen.getByTestId("team-menu"));
    await user.click(screen.getByTestId("team-archive"));
    await waitFor(() => expect(backend.teams[0].archived).toBe(true));

    await user.click(screen.getByTestId("team-menu"));
    await user.click(screen.getByTestId("team-delete"));
    expect(fakeApi.deleteTeam).not.toHaveBeenCalled();
    await user.click(screen.getByTestId("confirm-delete-team"));
    await waitFor(() => expect(screen.queryByTestId("team-page")).toBeNull());
    expect(backend.teams).toHaveLength(0);
  });

  it("renames the team inline", async () => {
    seedTeam({ name: "Research", memberIds: [ava.id], aboutYou: "Hi." });
    const { user } = await openTeam("Research");
    await user.click(screen.getByTestId("team-menu"));
    await user.click(screen.getByTestId("team-rename"));
    const input = screen.getByTestId("team-name-edit");
    await user.clear(input);
    await user.type(input, "Lab{Enter}");
    await waitFor(() => expect(screen.getByTestId("team-name").textContent).toBe("Lab"));
  });

  it("changes members, leader and roles in the members dialog", async () => {
    const team = seedTeam({ name: "Research", memberIds: [ava.id], aboutYou: "Hi." });
    const { user } = await openTeam("Research");
    await user.click(screen.getByTestId("team-members-button"));
    await user.click(screen.getByTestId("team-member-bo"));
    await user.click(screen.getByTestId("team-leader-bo"));
    await user.type(screen.getByTestId("team-role-bo"), "reviewer");
    await user.click(screen.getByTestId("members-save"));
    await waitFor(() => expect(screen.queryByTestId("team-members-dialog")).toBeNull());
    expect(fakeApi.setTeamMembers).toHaveBeenCalledWith(team.id, [ava.id, bo.id]);
    expect(fakeApi.setTeamLeader).toHaveBeenCalledWith(team.id, bo.id);
    expect(fakeApi.setMemberRole).toHaveBeenCalledWith(team.id, bo.id, "reviewer");
    await waitFor(() =>
      expect(within(screen.getByTestId("team-member-list")).getByTestId("leader-badge").closest("li")?.textContent).toContain("@bo"),
    );
  });
});

describe("A failed run in a room", () => {
  it("is an error card with its code, the fix, Copy details and a Retry that sends the hand-off again", async () => {
    const team = seedTeam({ name: "Research", memberIds: [ava.id, bo.id], aboutYou: "Hi." });
    const room = team.rooms[0].id;
    const failed = {
      id: "run-f", agentId: bo.id, runtime: "native" as const, status: "failed" as const,
      error: "There is no `Anthropic` API key.", errorCode: "api_key" as const, startedAt: 1, finishedAt: 2,
    };
    backend.roomRuns.set(room, [failed]);
    seedRoomMessage(room, { kind: "user", content: "Find the papers" });
    seedRoomMessage(room, { kind: "handoff", content: "Find three papers on X", authorId: ava.id, targetId: bo.id, runId: "run-f", handoffId: "h1" });
    seedRoomMessage(room, {
      kind: "notice", content: "@bo's run ended without a reply (failed): …", authorId: bo.id, runId: "run-f", handoffId: "h1",
    });
    const { user } = await openTeam("Research");
    const card = await screen.findByTestId("room-run-error");
    expect(card.textContent).toContain("@bo's run failed.");
    expect(card.textContent).not.toContain("`");
    expect(within(card).getByTestId("run-error-code").textContent).toBe("api_key");
    expect(within(card).getByTestId("fix-button").textContent).toBe("Open Settings > API keys");
    expect(within(card).getByTestId("copy-error-details")).toBeTruthy();
    await user.click(within(card).getByTestId("run-retry"));
    await waitFor(() => expect(fakeApi.sendTeamMessage).toHaveBeenCalledWith(room, "@bo Find three papers on X"));
  });
});

describe("A routine's message in a room", () => {
  it("is drawn as the routine's, with who ran it and a link to its card, not as a user bubble", async () => {
    const team = seedTeam({ name: "Research", memberIds: [ava.id, bo.id], aboutYou: "Hi." });
    const room = team.rooms[0].id;
    const card = seedCard({ title: "Morning tally", assigneeId: bo.id, teamId: team.id, status: "done" });
    seedRoomMessage(room, {
      kind: "user",
      content: `Routine "Morning tally": Routine card #${card.number} "Morning tally" by @bo ended done.\nIts report:\n12 crates.`,
      routine: { name: "Morning tally", agentId: bo.id, cardId: card.id },
    });
    seedRoomMessage(room, {
      kind: "user",
      content: 'Routine "Weekly summary": Sum up the week.',
      routine: { name: "Weekly summary", agentId: null, cardId: null },
    });
    seedRoomMessage(room, { kind: "user", content: "Thanks, all." });
    const { user } = await openTeam("Research");
    const [member, own] = await screen.findAllByTestId("room-message-routine");
    expect(member.textContent).toContain("Routine Morning tally");
    expect(member.textContent).toContain("ran by @bo");
    // The name is said once, in the header, not again in front of the text.
    expect(member.textContent).not.toContain('Routine "Morning tally":');
    expect(member.textContent).toContain("12 crates.");
    expect(own.textContent).toContain("Routine Weekly summary");
    expect(own.textContent).toContain("the team's routine, for the leader");
    expect(own.textContent).toContain("Sum up the week.");
    expect(within(own).queryByTestId("routine-card-link")).toBeNull();
    // Only the user's own words are a user bubble.
    const bubbles = screen.getAllByTestId("room-message-user");
    expect(bubbles.map((b) => b.textContent)).toEqual(["Thanks, all."]);
    await user.click(within(member).getByTestId("routine-card-link"));
    await waitFor(() => expect(screen.getByTestId("nav-board").getAttribute("aria-current")).toBe("page"));
    // The Board loads when first opened, then the card.
    const panel = await screen.findByTestId("card-panel", {}, { timeout: 10_000 });
    await waitFor(() => expect(panel.textContent).toContain("Morning tally"));
  }, 20_000);
});
