import { act, fireEvent, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { EditorView } from "codemirror";
import { App } from "../App";
import { preloadChatPages } from "../shell/chatPages";

// The app loads the chat pages' code once its first screen is interactive, long before a user's
// click; the tests click at once, so it is loaded here first (lazyPage.test covers a click before).
await preloadChatPages();

export function renderApp() {
  const user = userEvent.setup();
  render(<App />);
  return { user };
}

type User = ReturnType<typeof userEvent.setup>;

/** Selects the agent; it opens on Chat. Resolves once the conversation has loaded. */
export async function openChat(user: User, handle: string) {
  await user.click(await screen.findByTestId(`agent-item-${handle}`));
  await screen.findByTestId("chat-timeline");
}

const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()));

/**
 * Runs what the backend does (emit events, finish runs) inside act, then lets
 * animation frames pass so batched run events (and the refetches they cause) reach the screen.
 */
export async function backendDoes(fn: () => void) {
  await act(async () => {
    fn();
    await nextFrame();
    await nextFrame();
  });
}

/** Selects the agent and opens Details → Profile (agents open on Chat). */
export async function openAgentProfile(user: User, handle: string) {
  await user.click(await screen.findByTestId(`agent-item-${handle}`));
  await user.click(screen.getByTestId("tab-details"));
  await user.click(screen.getByTestId("subtab-profile"));
}

/** Selects the agent and opens Details → Agent Files; resolves once the editor shows. */
export async function openAgentFiles(user: User, handle: string) {
  await user.click(await screen.findByTestId(`agent-item-${handle}`));
  await user.click(screen.getByTestId("tab-details"));
  await user.click(screen.getByTestId("subtab-files"));
  await screen.findByTestId("file-editor");
}

export function editorView(): EditorView {
  const dom = screen.getByTestId("file-editor").querySelector<HTMLElement>(".cm-editor");
  const view = dom && EditorView.findFromDOM(dom);
  if (!view) throw new Error("No CodeMirror view in file-editor");
  return view;
}

export const editorText = () => editorView().state.doc.toString();

/** jsdom cannot type into contenteditable, so edits go in as transactions, as a keystroke would. */
export function typeInEditor(text: string) {
  const view = editorView();
  act(() => {
    view.dispatch({ changes: { from: view.state.doc.length, insert: text }, userEvent: "input.type" });
  });
}

export function replaceEditorText(text: string) {
  const view = editorView();
  act(() => {
    view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, userEvent: "input.type" });
  });
}

export function pressSaveShortcut() {
  const view = editorView();
  act(() => {
    fireEvent.keyDown(view.contentDOM, { key: "s", code: "KeyS", keyCode: 83, ctrlKey: true });
  });
}
