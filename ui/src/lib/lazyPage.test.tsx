import { describe, expect, it } from "vitest";
import { Suspense } from "react";
import { render, screen } from "@testing-library/react";
import { lazyPage } from "./lazyPage";

function Greeting({ name }: { name: string }) {
  return <p>Hello {name}</p>;
}

/** A module load the test lets finish (or fail) when it chooses, counting the loads begun. */
function controlledLoad() {
  const control = { loads: 0, finish: () => {}, fail: (_e: Error) => {} };
  const load = () => {
    control.loads += 1;
    return new Promise<{ Greeting: typeof Greeting }>((resolve, reject) => {
      control.finish = () => resolve({ Greeting });
      control.fail = reject;
    });
  };
  return { control, load };
}

const shown = (Page: React.ComponentType<{ name: string }>) =>
  render(
    <Suspense fallback={<p>Loading</p>}>
      <Page name="Ada" />
    </Suspense>,
  );

describe("lazyPage", () => {
  it("shows the fallback, then the page, when shown before its code is loaded", async () => {
    const { control, load } = controlledLoad();
    const Page = lazyPage(load, (m) => m.Greeting);
    shown(Page);
    expect(screen.getByText("Loading")).toBeTruthy();
    control.finish();
    expect(await screen.findByText("Hello Ada")).toBeTruthy();
    expect(control.loads).toBe(1);
  });

  it("renders at once, without a fallback, once preloaded", async () => {
    const { control, load } = controlledLoad();
    const Page = lazyPage(load, (m) => m.Greeting);
    const preloaded = Page.preload();
    control.finish();
    await preloaded;
    shown(Page);
    // Synchronously: a plain React.lazy over a loaded module still shows the fallback first.
    expect(screen.getByText("Hello Ada")).toBeTruthy();
    expect(screen.queryByText("Loading")).toBeNull();
    expect(control.loads).toBe(1);
  });

  it("loads once however often it is preloaded and shown", async () => {
    const { control, load } = controlledLoad();
    const Page = lazyPage(load, (m) => m.Greeting);
    const first = Page.preload();
    const second = Page.preload();
    shown(Page);
    control.finish();
    await Promise.all([first, second]);
    expect(await screen.findByText("Hello Ada")).toBeTruthy();
    expect(control.loads).toBe(1);
  });

  it("tries the load again after it failed", async () => {
    const { control, load } = controlledLoad();
    const Page = lazyPage(load, (m) => m.Greeting);
    const failed = Page.preload();
    control.fail(new Error("chunk missing"));
    await expect(failed).rejects.toThrow("chunk missing");
    const again = Page.preload();
    control.finish();
    await again;
    expect(control.loads).toBe(2);
    shown(Page);
    expect(screen.getByText("Hello Ada")).toBeTruthy();
  });
});
