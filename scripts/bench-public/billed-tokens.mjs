#!/usr/bin/env node
// What a team chat's model requests bill, cache-weighted, as Anthropic's prompt caching would
// bill them: the input read from the cache at 0.1×, the input written to it at 1.25×, the rest
// at 1×. Reads request logs (JSON lines, each `{"exchange": N, "body": {…}}`, an Anthropic
// Messages body) of ours and of the public Clawboo, and prints both side by side.
//
//   node scripts/bench-public/billed-tokens.mjs --ours OURS.jsonl --public PUBLIC.jsonl [--json]
//
// OURS.jsonl: `BENCH_REQUEST_LOG=… cargo bench -p clawboo-engine --bench team_chat` (its first
// round); PUBLIC.jsonl: `measure.mjs --requests-out …` (its first round). A side may be left
// out. Every request of an exchange counts (a router's request too).
//
// The fake model server bills no cache, so the cache is simulated from the bodies, the way the
// Messages API documents it: prefixes in the order tools → system → messages; a `cache_control`
// block writes the prefix up to it (when at least MIN_CACHEABLE_TOKENS long) and a later request
// reads the longest prefix written before that ends at one of its blocks, looking back up to
// LOOKBACK_BLOCKS blocks from each of its breakpoints. Tokens are estimated as UTF-8 bytes / 4
// of each block's content (text, or a tool's JSON): the same estimate on both sides, so the
// ratio holds even where the absolute count is off by a tokenizer's difference. Output tokens
// are left out: both sides get the same replies from the same fake model.
// Node 20, no dependencies.

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";

export const READ_WEIGHT = 0.1;
export const WRITE_WEIGHT = 1.25;
export const MIN_CACHEABLE_TOKENS = 1024;
export const LOOKBACK_BLOCKS = 20;
const BYTES_PER_TOKEN = 4;

function fail(reason) {
  process.stderr.write(`billed-tokens.mjs: ${reason}\n`);
  process.exit(1);
}

const tokensOf = (text) => Math.ceil(Buffer.byteLength(text, "utf8") / BYTES_PER_TOKEN);

/** A block without its cache marker: what identifies it in a prefix. */
function content(block) {
  if (typeof block === "string") return block;
  const { cache_control: _marker, ...rest } = block;
  return rest.type === "text" && typeof rest.text === "string" ? rest.text : JSON.stringify(rest);
}

/** The body's blocks in cache order: tools, system, then each message's content blocks. */
export function blocks(body) {
  if (!Array.isArray(body?.messages)) throw new Error("not an Anthropic Messages body (no messages array)");
  const out = [];
  const push = (block, role) =>
    out.push({ key: `${role}:${content(block)}`, tokens: tokensOf(content(block)), breakpoint: Boolean(block?.cache_control) });
  for (const tool of body.tools ?? []) push(tool, "tool");
  const system = typeof body.system === "string" ? (body.system ? [body.system] : []) : body.system ?? [];
  for (const block of system) push(block, "system");
  for (const message of body.messages) {
    const parts = typeof message.content === "string" ? [message.content] : message.content ?? [];
    for (const part of parts) push(part, message.role);
  }
  return out;
}

/** Bills `requests` (bodies, in the order sent) against one cache; returns per request and in all. */
export function bill(requests) {
  const cache = new Set();
  const billed = requests.map((body) => {
    const list = blocks(body);
    let hash = createHash("sha256");
    const prefixes = [];
    let total = 0;
    for (const block of list) {
      hash.update(block.key);
      hash.update("\u0000");
      total += block.tokens;
      prefixes.push({ id: hash.copy().digest("hex"), tokens: total, breakpoint: block.breakpoint });
    }
    const breakpoints = prefixes.flatMap((p, i) => (p.breakpoint ? [i] : []));
    // The longest prefix already cached that ends within the look-back of one of the breakpoints.
    let read = 0;
    for (const at of breakpoints) {
      for (let i = at; i >= Math.max(0, at - LOOKBACK_BLOCKS); i--) {
        if (cache.has(prefixes[i].id)) {
          read = Math.max(read, prefixes[i].tokens);
          break;
        }
      }
    }
    // Written: from what was read to the last breakpoint long enough to be cached.
    const cacheable = breakpoints.filter((i) => prefixes[i].tokens >= MIN_CACHEABLE_TOKENS);
    const end = cacheable.length ? prefixes[cacheable.at(-1)].tokens : 0;
    const written = Math.max(0, end - read);
    for (const i of cacheable) cache.add(prefixes[i].id);
    const plain = total - read - written;
    return { input: total, read, written, plain, weighted: plain + READ_WEIGHT * read + WRITE_WEIGHT * written };
  });
  const sum = (key) => billed.reduce((n, b) => n + b[key], 0);
  return {
    requests: billed,
    total: { requests: billed.length, input: sum("input"), read: sum("read"), written: sum("written"), plain: sum("plain"), weighted: sum("weighted") },
  };
}

/** The bodies of a request log, in order (`{"exchange", "body"}` lines, or a model log's `body`/`raw_body`). */
export function readLog(path) {
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.trim())
    .map((line) => {
      const entry = JSON.parse(line);
      return { exchange: entry.exchange ?? null, body: entry.body ?? JSON.parse(entry.raw_body) };
    });
}

function parseArgs(argv) {
  const opts = { json: false };
  for (let i = 0; i < argv.length; i++) {
    const value = () => argv[++i] ?? fail(`${argv[i - 1]} needs a value`);
    switch (argv[i]) {
      case "--ours": opts.ours = value(); break;
      case "--public": opts.public = value(); break;
      case "--json": opts.json = true; break;
      default: fail(`unknown argument ${argv[i]} (see the usage at the top of this file)`);
    }
  }
  if (!opts.ours && !opts.public) fail("give --ours FILE, --public FILE or both");
  return opts;
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  const sides = Object.fromEntries(
    [["ours", opts.ours], ["public", opts.public]]
      .filter(([, path]) => path)
      .map(([name, path]) => {
        const log = readLog(path);
        const exchanges = new Set(log.map((e) => e.exchange)).size;
        return [name, { exchanges, ...bill(log.map((e) => e.body)).total }];
      }),
  );
  if (opts.json) {
    process.stdout.write(`${JSON.stringify(sides)}\n`);
    return;
  }
  const names = Object.keys(sides);
  const row = (label, key, digits = 0) =>
    `| ${label} | ${names.map((n) => sides[n][key].toLocaleString("en-US", { maximumFractionDigits: digits })).join(" | ")} |` +
    (names.length === 2 ? ` ${(sides.public[key] / sides.ours[key]).toFixed(2)}× |` : "");
  const lines = [
    `| input tokens (estimated: bytes / ${BYTES_PER_TOKEN}) | ${names.join(" | ")} |${names.length === 2 ? " public / ours |" : ""}`,
    `|---|${names.map(() => "---:").join("|")}|${names.length === 2 ? "---:|" : ""}`,
    row("exchanges", "exchanges"),
    row("model requests", "requests"),
    row("input sent, in all", "input"),
    row("read from the cache (0.1×)", "read"),
    row("written to the cache (1.25×)", "written"),
    row("not cached (1×)", "plain"),
    row("**billed, cache-weighted**", "weighted"),
  ];
  process.stdout.write(`${lines.join("\n")}\n`);
}

if (import.meta.url === `file://${process.argv[1]}`) main();
