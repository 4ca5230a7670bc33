import { describe, expect, it } from "vitest";
import { completeMention, mentionQuery, suggestTeams } from "./teamMentions";

describe("@TeamName suggestions", () => {
  it("finds the mention being typed before the cursor, not inside words or across lines", () => {
    expect(mentionQuery("ask @Al", 7)).toEqual({ start: 4, query: "Al" });
    expect(mentionQuery("ask @Alpha Te", 13)).toEqual({ start: 4, query: "Alpha Te" });
    expect(mentionQuery("mail me@home", 12)).toBeNull();
    expect(mentionQuery("@Alpha\nnext", 11)).toBeNull();
    expect(mentionQuery("no mention", 10)).toBeNull();
    expect(mentionQuery("@", 1)).toEqual({ start: 0, query: "" });
  });

  it("suggests names that start with the query, case-insensitively, shortest first", () => {
    const names = ["Alpha Team", "Alpha", "Beta", "alpine"];
    expect(suggestTeams(names, "al")).toEqual(["Alpha", "alpine", "Alpha Team"]);
    expect(suggestTeams(names, "alpha ")).toEqual(["Alpha Team"]);
    expect(suggestTeams(names, "Alpha")).toEqual(["Alpha Team"]);
    expect(suggestTeams(names, "Beta ")).toEqual([]);
    expect(suggestTeams(names, "")).toHaveLength(4);
  });

  it("completes the mention and puts the cursor after it", () => {
    const text = "ask @al about it";
    const mention = mentionQuery(text, 7)!;
    expect(completeMention(text, 7, mention, "Alpha Team")).toEqual({
      text: "ask @Alpha Team  about it",
      cursor: 16,
    });
  });
});
