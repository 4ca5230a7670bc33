import { afterEach } from "vitest";
import { cleanup, configure } from "@testing-library/react";

// Pages are lazy chunks: on a loaded 2-core machine the first import of one can take longer than
// Testing Library's 1 s default wait, and a test then fails for the machine, not the code.
configure({ asyncUtilTimeout: 5000 });

afterEach(() => {
  cleanup();
});

// jsdom has no layout engine. CodeMirror measures text through Range rects,
// which jsdom does not implement; give it empty rects so it stays quiet.
function emptyRect(): DOMRect {
  return {
    x: 0, y: 0, width: 0, height: 0, top: 0, right: 0, bottom: 0, left: 0,
    toJSON() { return this; },
  } as DOMRect;
}

function emptyRectList(): DOMRectList {
  const list = [] as unknown as DOMRectList & { item(i: number): DOMRect | null };
  (list as unknown as { item: (i: number) => null }).item = () => null;
  return list;
}

if (typeof Range !== "undefined") {
  Range.prototype.getBoundingClientRect = emptyRect;
  Range.prototype.getClientRects = emptyRectList;
}
if (typeof document !== "undefined" && !document.elementFromPoint) {
  document.elementFromPoint = () => null;
}

// Nor does it lay out the virtualised timeline: give its scroller a tall viewport and each row
// a height, so a test sees the rows a user would (about 250 of them at once).
if (typeof HTMLElement !== "undefined") {
  const sized = (prop: "clientHeight" | "clientWidth" | "offsetHeight", size: (el: HTMLElement) => number) =>
    Object.defineProperty(HTMLElement.prototype, prop, {
      configurable: true,
      get(this: HTMLElement) {
        return size(this);
      },
    });
  sized("clientHeight", (el) => (el.classList.contains("timeline") ? 10_000 : 0));
  sized("clientWidth", (el) => (el.classList.contains("timeline") ? 800 : 0));
  sized("offsetHeight", (el) => (el.hasAttribute("data-index") ? 30 : 0));
}
