import { describe, expect, it } from "vitest";
import { newSession, reconcileWithDisk } from "./fileSessions";

describe("reconcileWithDisk", () => {
  it("does nothing when the disk matches the baseline", () => {
    const s = { ...newSession("a"), draft: "a+" };
    expect(reconcileWithDisk(s, "a")).toBe(s);
  });

  it("follows the disk when there are no unsaved changes", () => {
    expect(reconcileWithDisk(newSession("a"), "b")).toEqual(newSession("b"));
  });

  it("flags a conflict when there are unsaved changes", () => {
    const s = { ...newSession("a"), draft: "mine" };
    expect(reconcileWithDisk(s, "theirs")).toEqual({ ...s, conflict: "theirs" });
  });

  it("treats the echo of an in-flight save as saved, not as a conflict", () => {
    const s = { ...newSession("a"), draft: "saved and more", saving: "saved" };
    expect(reconcileWithDisk(s, "saved")).toEqual({ ...s, baseline: "saved" });
  });

  it("clears a pending conflict when the disk goes back to the baseline", () => {
    const s = { ...newSession("a"), draft: "mine", conflict: "theirs" };
    expect(reconcileWithDisk(s, "a").conflict).toBeNull();
  });
});
