// Tests billed-tokens.mjs's cache simulation on small bodies. `node --test scripts/bench-public/`.

import { test } from "node:test";
import assert from "node:assert/strict";

import { bill, blocks, MIN_CACHEABLE_TOKENS } from "./billed-tokens.mjs";

/** A text `tokens` tokens long under the script's estimate (4 bytes a token). */
const text = (tokens) => "x".repeat(tokens * 4);
const marked = (t) => ({ type: "text", text: t, cache_control: { type: "ephemeral" } });

test("nothing marked: every request is billed whole", () => {
  const body = { system: text(2000), messages: [{ role: "user", content: "hi" }] };
  const { total } = bill([body, body]);
  assert.equal(total.read, 0);
  assert.equal(total.written, 0);
  assert.equal(total.weighted, total.input);
});

test("a marked prefix is written once at 1.25x, then read at 0.1x", () => {
  const system = [marked(text(2000))];
  const first = { system, messages: [{ role: "user", content: "q1" }] };
  const second = { system, messages: [{ role: "user", content: "q1" }, { role: "assistant", content: "a1" }, { role: "user", content: "q2" }] };
  const [one, two] = bill([first, second]).requests;
  assert.equal(one.written, 2000);
  assert.equal(one.read, 0);
  assert.equal(two.read, 2000);
  assert.equal(two.written, 0);
  assert.equal(two.weighted, two.plain + 0.1 * 2000);
});

test("a prefix shorter than the minimum is never cached", () => {
  const system = [marked(text(MIN_CACHEABLE_TOKENS - 10))];
  const body = { system, messages: [{ role: "user", content: "q" }] };
  const { total } = bill([body, body]);
  assert.equal(total.read + total.written, 0);
});

test("the tools come first in the cached prefix; a changed tool misses the cache", () => {
  const tool = (description) => ({ name: "t", description, input_schema: { type: "object" } });
  const system = [marked(text(2000))];
  const a = { tools: [tool("a")], system, messages: [{ role: "user", content: "q" }] };
  const b = { tools: [tool("b")], system, messages: [{ role: "user", content: "q" }] };
  assert.equal(blocks(a)[0].key.startsWith("tool:"), true);
  const [, second] = bill([a, b]).requests;
  assert.equal(second.read, 0);
  assert.ok(second.written > 0);
});
