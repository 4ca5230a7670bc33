// A small WebDriver client over fetch: just what the end-to-end tests use.
// Spec: https://www.w3.org/TR/webdriver2/

const ELEMENT = "element-6066-11e4-a52e-4f735466cecf";

export class WebDriver {
  constructor(base) {
    this.base = base;
    this.session = null;
  }

  async call(method, path, body) {
    const response = await fetch(`${this.base}${path}`, {
      method,
      headers: { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const json = await response.json().catch(() => ({}));
    if (!response.ok || json.value?.error) {
      const err = json.value ?? {};
      throw new Error(`${method} ${path}: ${err.error ?? response.status} ${err.message ?? ""}`.trim());
    }
    return json.value;
  }

  s(path) {
    return `/session/${this.session}${path}`;
  }

  async start(application) {
    const value = await this.call("POST", "/session", {
      capabilities: { alwaysMatch: { "tauri:options": { application } } },
    });
    this.session = value.sessionId;
  }

  async quit() {
    if (this.session) await this.call("DELETE", this.s("")).catch(() => {});
    this.session = null;
  }

  async find(css) {
    const value = await this.call("POST", this.s("/element"), { using: "css selector", value: css });
    return value[ELEMENT];
  }

  async findAll(css) {
    const value = await this.call("POST", this.s("/elements"), { using: "css selector", value: css });
    return value.map((v) => v[ELEMENT]);
  }

  click(id) {
    return this.call("POST", this.s(`/element/${id}/click`), {});
  }

  type(id, text) {
    return this.call("POST", this.s(`/element/${id}/value`), { text });
  }

  clear(id) {
    return this.call("POST", this.s(`/element/${id}/clear`), {});
  }

  text(id) {
    return this.call("GET", this.s(`/element/${id}/text`));
  }

  execute(script, args = []) {
    return this.call("POST", this.s("/execute/sync"), { script, args });
  }

  /** Runs `script` in the page; it ends by calling its last argument with the result. */
  executeAsync(script, args = []) {
    return this.call("POST", this.s("/execute/async"), { script, args });
  }

  /**
   * WebKitWebDriver takes its shot after the page's next paint. With compositing off (the app's
   * default on Linux) an idle page never paints again, and the call waits out the HTTP timeout
   * (300 s): a 1-pixel, near-transparent dot changing every frame keeps the page painting until
   * the shot is taken.
   */
  async screenshot() {
    await this.execute(KEEP_PAINTING).catch(() => {});
    try {
      return await this.call("GET", this.s("/screenshot"));
    } finally {
      await this.execute("window.__e2eStopPainting?.(); return true;").catch(() => {});
    }
  }

  /**
   * Drags with a real pointer: presses on element `from` (offset `grab` from its centre), moves in
   * steps to the centre of element `to`, and releases there (or, with `hold`, keeps the button
   * down until `drop()`, e.g. to take a screenshot mid-drag). Input goes through the Actions API,
   * as a user's mouse would, never through the page's own handlers.
   */
  async drag(from, to, { grab = { x: 0, y: 0 }, steps = 8, stepMs = 40, hold = false } = {}) {
    const [a, b] = await Promise.all([this.rect(from), this.rect(to)]);
    const start = { x: a.x + a.width / 2 + grab.x, y: a.y + a.height / 2 + grab.y };
    const end = { x: b.x + b.width / 2, y: b.y + Math.min(b.height / 2, 120) };
    // Through the page in even steps, ending on the target (below its head, for a tall one).
    const path = Array.from({ length: steps }, (_, i) => {
      const t = (i + 1) / steps;
      return {
        type: "pointerMove",
        duration: stepMs,
        origin: "viewport",
        x: Math.round(start.x + (end.x - start.x) * t),
        y: Math.round(start.y + (end.y - start.y) * t),
      };
    });
    await this.call("POST", this.s("/actions"), {
      actions: [
        {
          type: "pointer",
          id: "mouse",
          parameters: { pointerType: "mouse" },
          actions: [
            { type: "pointerMove", duration: 0, origin: "viewport", x: Math.round(start.x), y: Math.round(start.y) },
            { type: "pointerDown", button: 0 },
            { type: "pause", duration: 60 },
            ...path,
            { type: "pause", duration: 120 },
            ...(hold ? [] : [{ type: "pointerUp", button: 0 }]),
          ],
        },
      ],
    });
    if (!hold) await this.call("DELETE", this.s("/actions")).catch(() => {});
  }

  /** Ends a drag started with `hold`: the button goes up where the pointer is. */
  async drop() {
    await this.call("POST", this.s("/actions"), {
      actions: [{ type: "pointer", id: "mouse", parameters: { pointerType: "mouse" }, actions: [{ type: "pointerUp", button: 0 }] }],
    });
    await this.call("DELETE", this.s("/actions")).catch(() => {});
  }

  /** An element's place in the viewport (CSS pixels). */
  rect(id) {
    return this.call("GET", this.s(`/element/${id}/rect`));
  }

  /** Presses keys one after another (WebDriver key values, e.g. Keys.ArrowLeft). */
  async keys(...values) {
    const actions = values.flatMap((value) => [
      { type: "keyDown", value },
      { type: "keyUp", value },
      { type: "pause", duration: 80 },
    ]);
    await this.call("POST", this.s("/actions"), { actions: [{ type: "key", id: "keyboard", actions }] });
    await this.call("DELETE", this.s("/actions")).catch(() => {});
  }

  /** Presses a chord such as Control+s through the Actions API. */
  async chord(modifier, key) {
    await this.call("POST", this.s("/actions"), {
      actions: [
        {
          type: "key",
          id: "keyboard",
          actions: [
            { type: "keyDown", value: modifier },
            { type: "keyDown", value: key },
            { type: "keyUp", value: key },
            { type: "keyUp", value: modifier },
          ],
        },
      ],
    });
    await this.call("DELETE", this.s("/actions")).catch(() => {});
  }
}

const KEEP_PAINTING = `
  if (!window.__e2eStopPainting) {
    const dot = document.createElement("div");
    dot.style.cssText = "position:fixed;right:0;bottom:0;width:1px;height:1px;pointer-events:none;z-index:2147483647";
    document.documentElement.appendChild(dot);
    let frame = 0, odd = false;
    const tick = () => {
      odd = !odd;
      dot.style.background = odd ? "rgba(127,127,127,0.02)" : "rgba(127,127,127,0.01)";
      frame = requestAnimationFrame(tick);
    };
    frame = requestAnimationFrame(tick);
    window.__e2eStopPainting = () => { cancelAnimationFrame(frame); dot.remove(); delete window.__e2eStopPainting; };
  }
  return true;`;

export const Keys = { Control: "\uE009", Space: "\uE00D", ArrowLeft: "\uE012", ArrowRight: "\uE014", Escape: "\uE00C" };

/** Polls `probe` until it returns a truthy value; throws naming `what` after `ms`. */
export async function waitFor(what, probe, ms = 15000) {
  const deadline = Date.now() + ms;
  let lastError;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}${lastError ? ` (last error: ${lastError.message})` : ""}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
