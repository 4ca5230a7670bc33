// Renders the soak parts' JSON (bench/results/reliability/<part>.json, see scripts/soak for the
// contract) into one Markdown table: written whole to bench/results/reliability.md (with how each
// part measured) and between README's <!-- reliability:start --> / <!-- reliability:end --> markers.
// Exits 1 when a row is not ok or a file does not follow the contract.
// Usage: node scripts/soak-render.mjs RESULTS_DIR REPORT_MD README_MD
import { readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const [dir, reportPath, readmePath] = process.argv.slice(2);
const ORDER = ["crash", "cancel", "fuzz", "concurrent", "secrets"];
const START = "<!-- reliability:start -->";
const END = "<!-- reliability:end -->";

const problems = [];
const parts = readdirSync(dir)
  .filter((name) => name.endsWith(".json"))
  .map((name) => {
    const part = JSON.parse(readFileSync(join(dir, name), "utf8"));
    for (const key of ["part", "title", "rows", "seconds", "measured_at", "commit", "how"]) {
      if (!(key in part)) problems.push(`${name}: no "${key}"`);
    }
    for (const row of part.rows ?? []) {
      for (const key of ["figure", "value", "goal", "ok"]) {
        if (!(key in row)) problems.push(`${name}: a row has no "${key}"`);
      }
    }
    return part;
  })
  .sort((a, b) => rank(a.part) - rank(b.part) || String(a.part).localeCompare(String(b.part)));

function rank(part) {
  const at = ORDER.indexOf(part);
  return at < 0 ? ORDER.length : at;
}

// A row with no goal ("—") is context: no mark.
const mark = (row) => (row.goal === "—" ? "" : row.ok ? "✅" : "❌");
const cell = (text) => String(text).replaceAll("|", "\\|").replaceAll("\n", " ");
const lines = ["| Check | Figure | Measured | Goal | |", "|---|---|---|---|---|"];
for (const part of parts) {
  (part.rows ?? []).forEach((row, i) => {
    const check = i === 0 ? `**${cell(part.title)}** (${Math.round(part.seconds)} s)` : "";
    if (!row.ok) problems.push(`${part.part}: ${row.figure} is ${row.value}, goal ${row.goal}`);
    lines.push(`| ${check} | ${cell(row.figure)} | ${cell(row.value)} | ${cell(row.goal)} | ${mark(row)} |`);
  });
}
const table = lines.join("\n");

const notes = parts.map(
  (p) => `- **${p.part}** — ${p.how} Measured ${p.measured_at} at \`${p.commit}\` in ${p.seconds} s.`,
);
const report = [
  "# Reliability",
  "",
  "Measured by `scripts/soak` (one part: `scripts/soak crash`; fewer rounds: `scripts/soak --quick`).",
  "Generated from `bench/results/reliability/*.json`; do not edit by hand.",
  "",
  table,
  "",
  "How each part measured:",
  "",
  ...notes,
  "",
].join("\n");
writeFileSync(reportPath, report);

const readme = readFileSync(readmePath, "utf8");
const from = readme.indexOf(START);
const to = readme.indexOf(END);
if (from < 0 || to < from) {
  problems.push(`${readmePath} has no ${START} … ${END} markers`);
} else {
  const block = `${START}\n${table}\n\nHow each part measured: [bench/results/reliability.md](bench/results/reliability.md).\n${END}`;
  writeFileSync(readmePath, readme.slice(0, from) + block + readme.slice(to + END.length));
}

for (const problem of problems) console.error(`soak: ${problem}`);
process.exit(problems.length ? 1 : 0);
