export const HANDLE_MAX_LENGTH = 32;
const HANDLE_PATTERN = /^[A-Za-z0-9_-]+$/;

/** Why `handle` is not a valid agent handle, or null when it is. */
export function handleProblem(handle: string): string | null {
  if (handle.length === 0) return "Enter a handle.";
  if (!HANDLE_PATTERN.test(handle)) return "Use only letters, digits, '-' and '_'.";
  if (handle.length > HANDLE_MAX_LENGTH) return `Use at most ${HANDLE_MAX_LENGTH} characters.`;
  return null;
}

/** Handles are stored without the leading '@'; people often type it anyway. */
export function stripAt(input: string): string {
  return input.startsWith("@") ? input.slice(1) : input;
}
