import { countHidden, revealHidden } from "./hiddenChars";

/** Text with every bidi control and invisible character shown as a marked ⟨U+202E⟩ chip, so it
 *  reads as what it is (the character itself is left out, and cannot reorder what follows). */
export function RevealedText({ text }: { text: string }) {
  return (
    <>
      {revealHidden(text).map((piece, i) =>
        piece.hidden ? (
          <mark
            key={i}
            className="hidden-char"
            title={`Hidden character ${piece.code}${piece.name ? ` ${piece.name}` : ""}`}
            data-testid="hidden-char"
          >
            ⟨{piece.code}⟩
          </mark>
        ) : (
          piece.text
        ),
      )}
    </>
  );
}

type Props = { text: string; testId?: string };

/** An approval's tool input, whole: nothing cut, in a block that scrolls, with hidden characters
 *  shown and counted. The Inbox and the run's Activity card both show an input this way. */
export function ApprovalInput({ text, testId }: Props) {
  const hidden = countHidden(text);
  return (
    <div className="approval-input">
      {hidden > 0 && (
        <p className="approval-input__warning" role="note" data-testid={testId && `${testId}-hidden`}>
          {hidden === 1 ? "1 hidden character" : `${hidden} hidden characters`} (they change how text looks without
          showing) {hidden === 1 ? "is" : "are"} marked ⟨U+…⟩ below. Look closely before you allow it.
        </p>
      )}
      <pre
        className="approval-input__text"
        // Scrolls rather than cuts, so all of what is allowed can be read; focusable to scroll by keyboard.
        style={{ maxHeight: "min(50vh, 420px)", overflow: "auto" }}
        tabIndex={0}
        aria-label="Tool input"
        data-testid={testId}
      >
        <RevealedText text={text} />
      </pre>
    </div>
  );
}
