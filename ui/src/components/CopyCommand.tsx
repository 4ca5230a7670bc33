import { useState } from "react";
import { copyText } from "../lib/clipboard";

/** A command to run in a terminal, with a button that copies it. */
export function CopyCommand({ command }: { command: string }) {
  const [state, setState] = useState<"idle" | "copied" | "failed">("idle");
  return (
    <span className="copy-command">
      <code>{command}</code>
      <button
        type="button"
        className="link-button copy-command__button"
        onClick={() => copyText(command).then(() => setState("copied"), () => setState("failed"))}
        aria-label={`Copy: ${command}`}
        data-testid="copy-command"
      >
        {state === "copied" ? "Copied" : state === "failed" ? "Select and copy it" : "Copy"}
      </button>
    </span>
  );
}

/** Whether a fix reads as a command to type (an install or a sign-in), not a sentence. */
export function isCommand(text: string): boolean {
  return /^(npm|npx|pipx|pip|brew|curl|codex|claude|hermes|openclaw|sudo|apt)\s/.test(text.trim());
}
