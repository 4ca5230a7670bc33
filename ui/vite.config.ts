import { defineConfig } from "vitest/config";
import react from "@vitejs/plugin-react";

// The config runs under Node; declared locally so the UI tsconfig needs no @types/node.
declare const process: { env: Record<string, string | undefined> };

const host = process.env.TAURI_DEV_HOST;

export default defineConfig({
  plugins: [react()],
  // Tauri expects a fixed port and its own log output to stay visible.
  clearScreen: false,
  server: {
    port: 1420,
    strictPort: true,
    host: host || false,
    hmr: host ? { protocol: "ws", host, port: 1421 } : undefined,
    watch: { ignored: ["**/src-tauri/**", "**/target/**"] },
  },
  envPrefix: ["VITE_", "TAURI_"],
  build: {
    // WebKit on macOS/Linux, WebView2 (Chromium) on Windows.
    target: ["es2021", "safari15", "chrome105"],
    minify: !process.env.TAURI_ENV_DEBUG,
    sourcemap: !!process.env.TAURI_ENV_DEBUG,
    // Loaded from disk by the desktop shell, so one bundle with CodeMirror is fine.
    chunkSizeWarningLimit: 1500,
  },
  test: {
    environment: "jsdom",
    setupFiles: ["./src/test/setup.ts"],
    include: ["src/**/*.test.{ts,tsx}"],
    // A test that waits 5 s for a lazy page (setup.ts) needs room above vitest's 5 s default.
    testTimeout: 20_000,
    // Vitest's default leaves a core free (workers = cores - 1): on CI's 2 cores that ran the
    // files one at a time, 80 s of wall for 80 s of work; both cores take it to ~50 s.
    maxWorkers: "100%",
  },
});
