// Search everything, exports and opening links in the fake API: what the palette finds is seeded
// by a test (`seedSearch`); exports "save" nowhere; opened links and paths are only recorded.
import { vi } from "vitest";
import type { ExportFormat, ExportTarget, Found } from "../bindings";
import type { SomeCommandFakes } from "./commandFakes";

let results: Found[] = [];

/** What `searchEverything` answers for a query containing `match` (case-insensitive); all of
 *  them when no match is given. */
export function seedSearch(found: Found[]) {
  results = found;
}

export function resetSearch() {
  results = [];
}

function text(found: Found): string {
  return found.kind === "message" ? found.snippet.map((p) => p.text).join("") : `${found.name} ${found.detail}`;
}

export const fakeSearchApi = {
  searchEverything: vi.fn(async (query: string): Promise<Found[]> => {
    const q = query.trim().toLowerCase();
    return results.filter((r) => text(r).toLowerCase().includes(q));
  }),
  exportThread: vi.fn(async (_target: ExportTarget, format: ExportFormat): Promise<string | null> => `/tmp/export.${format === "json" ? "json" : "md"}`),
  openLink: vi.fn(async (_url: string): Promise<null> => null),
  openPath: vi.fn(async (_path: string, _agentId: string | null): Promise<null> => null),
} satisfies SomeCommandFakes;
