// The web process's JavaScript heap, as WebKit's own inspector sees it: a full collection, then a
// heap snapshot, taken through WebKitGTK's remote inspector (the app started with
// WEBKIT_INSPECTOR_HTTP_SERVER=127.0.0.1:<port>, which serves the inspector protocol over a
// WebSocket; headless, no inspector window). Used by bench-app.mjs (its idle figures).

import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

// The WebSocket client, a dev dependency of the UI's packages (Node 20 has none built in).
const require = createRequire(fileURLToPath(new URL("../../ui/package.json", import.meta.url)));
const WebSocket = require("ws");

/** Collects garbage in the page and returns its heap snapshot (WebKit's JSON, as text). */
export async function heapSnapshot(port, { timeoutMs = 30_000 } = {}) {
  const page = await pageSocket(port);
  const ws = new WebSocket(`ws://127.0.0.1:${port}${page}`);
  const replies = new Map();
  let target = null;
  let nextId = 0;
  const targetSeen = new Promise((resolve) => {
    ws.on("message", (data) => {
      const message = JSON.parse(data.toString());
      if (message.method === "Target.targetCreated" && message.params.targetInfo.type === "page") {
        target ??= message.params.targetInfo.targetId;
        resolve();
      } else if (message.method === "Target.dispatchMessageFromTarget") {
        const inner = JSON.parse(message.params.message);
        replies.get(inner.id)?.(inner);
      }
    });
  });
  // A page's commands go to its target, wrapped.
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = ++nextId;
      replies.set(id, (reply) => (reply.error ? reject(new Error(`${method}: ${reply.error.message}`)) : resolve(reply.result)));
      const message = JSON.stringify({ id, method, params });
      ws.send(JSON.stringify({ id, method: "Target.sendMessageToTarget", params: { targetId: target, message } }));
    });
  const timer = setTimeout(() => ws.terminate(), timeoutMs);
  try {
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    await targetSeen;
    await send("Heap.enable");
    await send("Heap.gc");
    const { snapshotData } = await send("Heap.snapshot");
    return snapshotData;
  } finally {
    clearTimeout(timer);
    ws.close();
  }
}

/** The inspectable page's WebSocket path, from the inspector server's target list. */
async function pageSocket(port) {
  const html = await (await fetch(`http://127.0.0.1:${port}/`)).text();
  const path = /ws=' \+ window\.location\.host \+ '([^']+)'/.exec(html)?.[1];
  if (!path) throw new Error(`no inspectable page at 127.0.0.1:${port}`);
  return path;
}

/**
 * The snapshot's cells by class (WebKit's format, version 3: four numbers per cell, of which the
 * second is its size and the third its class name's index): total bytes and the largest classes.
 */
export function summarize(snapshotText, top = 12) {
  const { nodes, nodeClassNames } = JSON.parse(snapshotText);
  const bytes = new Map();
  const cells = new Map();
  for (let i = 0; i < nodes.length; i += 4) {
    const name = nodeClassNames[nodes[i + 2]];
    bytes.set(name, (bytes.get(name) ?? 0) + nodes[i + 1]);
    cells.set(name, (cells.get(name) ?? 0) + 1);
  }
  const total = [...bytes.values()].reduce((a, b) => a + b, 0);
  const classes = [...bytes.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, size]) => ({ name, bytes: size, cells: cells.get(name) }));
  return { total, cells: nodes.length / 4, classes };
}
