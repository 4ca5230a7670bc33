import { CopyErrorDetails } from "./CopyErrorDetails";
import { createContext, useCallback, useContext, useMemo, useRef, useState, type ReactNode } from "react";

type Toast = { id: number; kind: "error" | "info"; message: string; code: string | null };
/** `code`: the backend's error code, when the message came from one. */
type ToastApi = { error: (message: string, code?: string | null) => void; info: (message: string) => void };

const ToastContext = createContext<ToastApi | null>(null);
const TOAST_MS = 6000;

/** A small stack of transient messages for errors that have no form to sit next to. */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Toast[]>([]);
  const nextId = useRef(1);

  const dismiss = useCallback((id: number) => setToasts((list) => list.filter((t) => t.id !== id)), []);

  const push = useCallback(
    (kind: Toast["kind"], message: string, code: string | null = null) => {
      const id = nextId.current++;
      setToasts((list) => [...list.filter((t) => t.message !== message), { id, kind, message, code }]);
      window.setTimeout(() => dismiss(id), TOAST_MS);
    },
    [dismiss],
  );

  const api = useMemo<ToastApi>(
    () => ({ error: (m, code) => push("error", m, code ?? null), info: (m) => push("info", m) }),
    [push],
  );

  return (
    <ToastContext.Provider value={api}>
      {children}
      <div className="toasts" aria-live="polite">
        {toasts.map((t) => (
          <div
            key={t.id}
            className={`toast toast--${t.kind}`}
            role={t.kind === "error" ? "alert" : "status"}
            data-testid={t.kind === "error" ? "error-toast" : "toast"}
          >
            <span data-testid={t.kind === "error" ? "error-message" : undefined}>{t.message}</span>
            {t.kind === "error" && <CopyErrorDetails code={t.code} message={t.message} />}
            <button type="button" className="toast__close" aria-label="Dismiss" onClick={() => dismiss(t.id)}>
              ×
            </button>
          </div>
        ))}
      </div>
    </ToastContext.Provider>
  );
}

export function useToasts(): ToastApi {
  const api = useContext(ToastContext);
  if (!api) throw new Error("ToastProvider is missing");
  return api;
}
