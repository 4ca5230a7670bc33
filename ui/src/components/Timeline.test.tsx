import { describe, expect, it, vi } from "vitest";
import { render, screen } from "@testing-library/react";
import { Timeline } from "./Timeline";

type Card = { id: string; kind: "handoff" | "batch"; text: string };

const cards = (n: number): Card[] =>
  Array.from({ length: n }, (_, i) => ({ id: `c${i}`, kind: i % 2 ? "batch" : "handoff", text: `card ${i}` }));

describe("Timeline", () => {
  it("puts only the rows near the view in the DOM, the newest at the bottom", () => {
    render(
      <Timeline
        items={cards(5_000)}
        getKey={(c) => c.id}
        renderItem={(c) => <div data-testid={`row-${c.kind}`}>{c.text}</div>}
        hasOlder={false}
        loadingOlder={false}
        onLoadOlder={() => {}}
        ariaLabel="Cards"
        testId="cards"
      />,
    );
    const rows = screen.getAllByText(/^card \d+$/);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.length).toBeLessThan(500);
    expect(screen.getByText("card 4999")).toBeTruthy();
    expect(screen.queryByText("card 0")).toBeNull();
    // Any item type: team rooms render their own cards.
    expect(screen.getAllByTestId("row-handoff").length).toBeGreaterThan(0);
  });

  it("offers older items only when there are some", () => {
    const onLoadOlder = vi.fn();
    const props = {
      items: cards(3),
      getKey: (c: Card) => c.id,
      renderItem: (c: Card) => c.text,
      loadingOlder: false,
      onLoadOlder,
      ariaLabel: "Cards",
    };
    const { rerender } = render(<Timeline {...props} hasOlder />);
    screen.getByTestId("timeline-load-older").click();
    expect(onLoadOlder).toHaveBeenCalledTimes(1);
    rerender(<Timeline {...props} hasOlder={false} />);
    expect(screen.queryByTestId("timeline-load-older")).toBeNull();
  });
});
