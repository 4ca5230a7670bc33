import { describe, expect, it } from "vitest";
import type { Totals } from "../../bindings";
import { ZERO } from "../../test/fakeSpend";
import { headlineParts } from "./money";

function totals(part: Partial<Totals>): Totals {
  return { ...ZERO, ...part };
}

describe("a spend headline", () => {
  it("leads with money and says what had no price after it", () => {
    expect(headlineParts(totals({ costMicros: 12_340_000, inputTokens: 1000 }))).toEqual({ figure: "$12.34", note: null });
    expect(headlineParts(totals({ costMicros: 12_340_000, inputTokens: 1060, subscriptionTokens: 60 }))).toEqual({
      figure: "$12.34",
      note: "+ 60 tokens on your subscription",
    });
  });

  it("leads with tokens when nothing had a price, in words short enough for a narrow card", () => {
    expect(headlineParts(totals({ inputTokens: 113_205, unpricedTokens: 113_205 }))).toEqual({
      figure: "113k tokens",
      note: "no price known",
    });
    expect(headlineParts(totals({ inputTokens: 5000, subscriptionTokens: 5000 }))).toEqual({
      figure: "5.0k tokens",
      note: "on your subscription",
    });
    expect(headlineParts(totals({ inputTokens: 3000, subscriptionTokens: 1000, unpricedTokens: 2000 }))).toEqual({
      figure: "3.0k tokens",
      note: "1.0k tokens on your subscription + 2.0k tokens with no price known",
    });
  });

  it("says $0.00 for nothing spent", () => {
    expect(headlineParts(totals({}))).toEqual({ figure: "$0.00", note: null });
  });
});
