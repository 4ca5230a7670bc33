import { describe, expect, it } from "vitest";
import { addHosts, groupSuggestedHosts, hostsFromText, mentionsSandbox, parseBlockedHost } from "./sandbox";
import { SUGGESTED_HOSTS } from "../../test/fakeApi";

describe("sandbox helpers", () => {
  it("reads the host and port of a blocked connection", () => {
    expect(parseBlockedHost("Blocked by Clawboo's sandbox: pypi.org:443 (allow it under the agent's Network setting)")).toEqual({
      host: "pypi.org",
      port: "443",
      rest: "(allow it under the agent's Network setting)",
    });
    expect(parseBlockedHost("Blocked by Clawboo's sandbox: [::1]:8080")).toEqual({ host: "[::1]", port: "8080", rest: "" });
    expect(parseBlockedHost("Blocked by Clawboo's sandbox: example.com")).toEqual({ host: "example.com", port: null, rest: "" });
    expect(parseBlockedHost("Context is 90% full.")).toBeNull();
  });

  it("groups the suggested hosts for one-click buttons", () => {
    expect(groupSuggestedHosts(SUGGESTED_HOSTS)).toEqual([
      { label: "npm", hosts: ["registry.npmjs.org"] },
      { label: "PyPI", hosts: ["pypi.org", "files.pythonhosted.org"] },
      { label: "crates.io", hosts: ["crates.io", "static.crates.io", "index.crates.io"] },
      { label: "GitHub", hosts: ["github.com", "codeload.github.com", "objects.githubusercontent.com"] },
      { label: "docs", hosts: ["docs.rs", "developer.mozilla.org"] },
    ]);
    expect(groupSuggestedHosts(["registry.npmjs.org"]).map((g) => g.label)).toEqual(["npm"]);
  });

  it("splits the host list and adds hosts once", () => {
    expect(hostsFromText(" a.org\n\n b.org, c.org \n")).toEqual(["a.org", "b.org", "c.org"]);
    expect(addHosts("PyPI.org\n", ["pypi.org", "files.pythonhosted.org"])).toBe("PyPI.org\nfiles.pythonhosted.org");
  });

  it("tells a run error about the sandbox from others", () => {
    expect(mentionsSandbox("macOS's sandbox-exec is missing from /usr/bin.")).toBe(true);
    expect(mentionsSandbox("bubblewrap could not be started (No such file). Install bubblewrap")).toBe(true);
    expect(mentionsSandbox("Claude Code exited with status 1")).toBe(false);
    expect(mentionsSandbox(null)).toBe(false);
  });
});
