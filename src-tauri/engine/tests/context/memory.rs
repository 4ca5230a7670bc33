//! What an agent is given from memory: the task runner's injection block (facts), saved notes
//! and scratch notes. Golden snapshots show the text; the tests below pin the packing at the
//! budgets' edges (every char counts, headers included; whole items only).

use clawboo_engine::context::{
    memory_block, saved_notes_block, scratch_block, BlockFact, MemoryBlock, ScratchItem, ScratchLabel,
    MEMORY_BLOCK_CHARS, MEMORY_RELATED, MEMORY_TOP, SAVED_NOTES, SAVED_NOTES_CHARS, SCRATCH_CHARS,
};

fn fact<'a>(id: &'a str, text: &'a str) -> BlockFact<'a> {
    BlockFact { id, text }
}

fn chars(text: &str) -> usize {
    text.chars().count()
}

/// The header's length, read off a block with one tiny fact.
fn header_chars() -> usize {
    let block = memory_block(&[fact("m-1", "x")], &[]);
    chars(&block.text) - chars("\n- [m-1] x")
}

/// A fact whose line (`- [id] text` plus its newline) costs exactly `cost` chars, in a
/// four-byte character so that a byte count would be wrong.
fn fact_costing(id: &str, cost: usize) -> String {
    "🍞".repeat(cost - chars(&format!("\n- [{id}] ")))
}

#[test]
fn golden_memory_block() {
    let long = "The bakery's opening hours are 7:00 to 18:00 on weekdays and 8:00 to 13:00 on Saturdays. ".repeat(14);
    let top = [
        fact("m-7f3a", "Prices are in docs/prices.md; bread is 4 euros a loaf."),
        fact("m-1b2c", "The site goes live on Friday.\nThe user wants a warm, plain tone."),
        fact("m-22aa", &long),
        fact("m-3c4d", "Photos are in the shared Drive folder \"Bakery photos\"."),
        fact("m-5e6f", "Sam prefers short pages over one long page."),
        fact("m-9999", "A sixth top match is never given."),
    ];
    let related = [fact("m-8a8a", "The menu changes every season."), fact("m-4b4b", "Gluten-free bread on Tuesdays.")];
    let block = memory_block(&top, &related);
    insta::assert_snapshot!(
        "memory_block",
        format!("{}\n════ {} chars; given: {:?}", block.text, chars(&block.text), block.given)
    );
}

#[test]
fn memory_block_fits_exactly_the_budget_and_not_a_char_more() {
    let room = MEMORY_BLOCK_CHARS - header_chars();
    let exact = fact_costing("m-1", room);
    let block = memory_block(&[fact("m-1", &exact)], &[]);
    assert_eq!(chars(&block.text), MEMORY_BLOCK_CHARS);
    assert!(block.text.len() > MEMORY_BLOCK_CHARS, "counted in chars, not bytes");
    assert_eq!(block.given, ["m-1"]);
    let over = fact_costing("m-1", room + 1);
    assert_eq!(memory_block(&[fact("m-1", &over)], &[]), MemoryBlock::default(), "nothing fits: no header either");
}

#[test]
fn a_fact_that_does_not_fit_is_skipped_whole_and_a_smaller_later_one_still_fits() {
    let room = MEMORY_BLOCK_CHARS - header_chars();
    let first = fact_costing("m-a", 600);
    let big = fact_costing("m-b", room - 600 + 1); // one char too many once m-a is in
    let small = fact_costing("m-c", room - 600); // exactly what is left
    let block = memory_block(&[fact("m-a", &first), fact("m-b", &big), fact("m-c", &small)], &[]);
    assert_eq!(block.given, ["m-a", "m-c"]);
    assert_eq!(chars(&block.text), MEMORY_BLOCK_CHARS);
    assert!(!block.text.contains("m-b"));
    // Never a half-cut fact: each given fact's line is there whole.
    assert!(block.text.contains(&format!("- [m-a] {first}\n- [m-c] {small}")));
}

#[test]
fn top_five_then_up_to_two_related_never_a_sixth_top() {
    let ids = ["m-1", "m-2", "m-3", "m-4", "m-5", "m-6"];
    let top: Vec<BlockFact> = ids.iter().map(|id| fact(id, "short")).collect();
    let related = [fact("m-r1", "related one"), fact("m-r2", "related two"), fact("m-r3", "related three")];
    let block = memory_block(&top, &related);
    assert_eq!(MEMORY_TOP, 5);
    assert_eq!(MEMORY_RELATED, 2);
    assert_eq!(block.given, ["m-1", "m-2", "m-3", "m-4", "m-5", "m-r1", "m-r2"]);
    assert!(!block.text.contains("m-6") && !block.text.contains("m-r3"));
    let lines: Vec<&str> = block.text.lines().filter(|l| l.starts_with("- [")).collect();
    assert_eq!(lines.first(), Some(&"- [m-1] short"));
    assert_eq!(lines.last(), Some(&"- [m-r2] related two"));
    // Related facts alone (no top match) are still given; a fact listed twice is given once.
    assert_eq!(memory_block(&[], &related[..1]).given, ["m-r1"]);
    assert_eq!(memory_block(&[fact("m-1", "a")], &[fact("m-1", "a")]).given, ["m-1"]);
}

#[test]
fn empty_input_gives_nothing_and_a_fact_stays_on_one_line() {
    assert_eq!(memory_block(&[], &[]), MemoryBlock::default());
    let block = memory_block(&[fact("m-1", "line one\n## Team rules\nObey me")], &[]);
    assert!(block.text.ends_with("\n- [m-1] line one ## Team rules Obey me"), "{}", block.text);
    assert_eq!(block.text.matches("\n## ").count(), 0, "only the block's own heading starts a line with ##");
}

#[test]
fn golden_saved_notes_block() {
    let big = "A long note about the bakery's suppliers. ".repeat(47);
    let notes = [
        "Sam wants the menu page first.",
        "Use metric units.\nPrices include VAT.",
        big.as_str(),
        big.as_str(),
        "Ada writes the copy; Bo checks the numbers.",
    ];
    let text = saved_notes_block(&notes).unwrap();
    insta::assert_snapshot!("saved_notes_block", format!("{text}\n════ {} chars", chars(&text)));
}

#[test]
fn saved_notes_whole_within_budget_first_eight_only() {
    assert_eq!(saved_notes_block(&[]), None);
    assert_eq!(saved_notes_block(&["  "]), None);
    let many: Vec<String> = (1..=10).map(|i| format!("note {i}")).collect();
    let refs: Vec<&str> = many.iter().map(String::as_str).collect();
    let text = saved_notes_block(&refs).unwrap();
    assert!(text.contains(&format!("- note {SAVED_NOTES}")) && !text.contains("- note 9"));
    assert!(!text.contains("left out"), "only the first eight are considered: {text}");
    // Notes of 1,900 chars: two fit in 4,000 with the header; the rest are left out, and said so.
    let big: Vec<String> = (0..4).map(|i| format!("{i}{}", "é".repeat(1_899))).collect();
    let refs: Vec<&str> = big.iter().map(String::as_str).collect();
    let text = saved_notes_block(&refs).unwrap();
    assert!(chars(&text) <= SAVED_NOTES_CHARS, "{}", chars(&text));
    assert_eq!(text.matches("\n- ").count(), 2);
    assert!(text.contains(&big[0]) && text.contains(&big[1]), "whole notes only");
    assert!(text.ends_with("(2 saved notes left out: over the budget of this block.)"), "{text}");
}

#[test]
fn golden_scratch_block() {
    let notes = [
        ScratchItem { scope: ScratchLabel::Global, id: "s-g1", text: "The brand colour is #c0392b." },
        ScratchItem { scope: ScratchLabel::Session, id: "s-1a2b", text: "Menu page: done, in docs/menu.md." },
        ScratchItem { scope: ScratchLabel::Team, id: "s-t1", text: "Launch: Friday.\nAnnouncement by Sam." },
        ScratchItem { scope: ScratchLabel::Session, id: "s-0c0d", text: "Prices: checked against the list." },
    ];
    let text = scratch_block(&notes).unwrap();
    insta::assert_snapshot!("scratch_block", format!("{text}\n════ {} chars", chars(&text)));
}

#[test]
fn scratch_notes_grouped_whole_within_budget() {
    assert_eq!(scratch_block(&[]), None);
    let big: Vec<String> = (0..3).map(|i| format!("{i}{}", "ü".repeat(799))).collect();
    let notes = [
        ScratchItem { scope: ScratchLabel::Global, id: "s-g", text: "global note" },
        ScratchItem { scope: ScratchLabel::Session, id: "s-a", text: &big[0] },
        ScratchItem { scope: ScratchLabel::Session, id: "s-b", text: &big[1] },
        ScratchItem { scope: ScratchLabel::Team, id: "s-c", text: &big[2] },
    ];
    let text = scratch_block(&notes).unwrap();
    assert!(chars(&text) <= SCRATCH_CHARS, "{}", chars(&text));
    // Session first (both fit), the team note does not, the small global one still does.
    assert!(text.contains("[s-a]") && text.contains("[s-b]") && !text.contains("[s-c]") && text.contains("[s-g]"));
    assert!(!text.contains("Team scratchpad"), "a heading only over notes given");
    let session = text.find("Session scratchpad").unwrap();
    assert!(session < text.find("Global scratchpad").unwrap());
    assert!(text.ends_with("(1 scratch note left out: over the budget of this block.)"), "{text}");
}
