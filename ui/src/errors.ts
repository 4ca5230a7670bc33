import type { ErrorCode } from "./bindings";

/** Every backend failure surfaces as this error: a stable `code` plus a human `message`. */
export class ClawbooError extends Error {
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = "ClawbooError";
    this.code = code;
  }
}

export function isClawbooError(value: unknown): value is ClawbooError {
  return value instanceof ClawbooError;
}

export function hasErrorCode(value: unknown, code: ErrorCode): boolean {
  return isClawbooError(value) && value.code === code;
}

/** The text to show the user for any thrown value. */
export function errorMessage(value: unknown): string {
  if (value instanceof Error) return value.message || "Something went wrong.";
  if (typeof value === "string" && value) return value;
  return "Something went wrong.";
}

/** Turns whatever a command rejected with into a ClawbooError. */
export function toClawbooError(value: unknown): ClawbooError {
  if (value instanceof ClawbooError) return value;
  if (value && typeof value === "object" && "code" in value && "message" in value) {
    const { code, message } = value as { code: unknown; message: unknown };
    if (typeof code === "string" && typeof message === "string") {
      return new ClawbooError(code as ErrorCode, message);
    }
  }
  if (value instanceof Error) {
    return new ClawbooError("internal", `Could not reach the Clawboo backend: ${value.message}`);
  }
  return new ClawbooError("internal", typeof value === "string" ? value : "Unexpected backend error.");
}

/** The stable code of a backend failure, or null for anything else. */
export function errorCode(value: unknown): ErrorCode | null {
  return isClawbooError(value) ? value.code : null;
}
