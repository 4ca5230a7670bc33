import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { Agent, ChatMessage } from "../../bindings";
import {
  useCancelRun,
  useChatActions,
  useChatPages,
  useChats,
  useRefreshChat,
  useReplaceChatMessage,
  useSendChatMessage,
} from "./chatQueries";
import { ChatList } from "./ChatList";
import { chatTitle, lastOpenChat, rememberOpenChat } from "./lastChat";
import { useTeams } from "../team-chat/teamQueries";
import { useBooZeroId } from "../boo-zero/booZeroQueries";
import { errorCode, errorMessage, hasErrorCode } from "../../errors";
import { currentRun, lastExchange, type TimelineEntry } from "./chat";
import { nextChatView, type ChatViewState } from "./chatView";
import { ErrorMessage } from "../../components/ErrorMessage";
import { ChatTimeline, type ReplaceActions } from "./ChatTimeline";
import { useMarkRead } from "./unread";
import { moveDraft, type DraftKey } from "../../lib/drafts";
import { useDraft } from "../../lib/useDraft";
import { ChatComposer } from "./ChatComposer";
import { CantRunNotice } from "../agents/CantRun";
import { AskedHere } from "../attention/AskedHere";
import { ActivityCard } from "../activity/ActivityCard";
import { ChatRunContextViewer } from "./ChatRunContextViewer";
import { SandboxLink } from "../activity/ActivityCard";
import { RunErrorCard, type GuardRefusal } from "../activity/RunErrorCard";

type Props = {
  agent: Agent;
  /** Opens the agent's Sandbox settings (its profile). */
  onOpenSandbox?: () => void;
  /** The chat to open (a search result, a notification); otherwise the one last open. */
  chatId?: string | null;
  /** Tells the app which chat shows (its route). */
  onChat?: (chatId: string) => void;
};

const NO_ENTRIES: TimelineEntry[] = [];

/** Whether the chat list sits beside the conversation by default (a wide window) or waits in a
 *  drawer until asked for. */
const isWide = () => window.matchMedia?.("(min-width: 1101px)").matches ?? true;

/** One-to-one chats with an agent: the list of them, the open one, and what the agent is doing
 *  alongside. */
export function AgentChat({ agent, onOpenSandbox, chatId, onChat }: Props) {
  const chats = useChats(agent.id);
  const actions = useChatActions(agent.id);
  const [chosen, setChosen] = useState<string | null>(() => chatId ?? lastOpenChat(agent.id));
  useEffect(() => {
    if (chatId) setChosen(chatId);
  }, [chatId]);
  const [listOpen, setListOpen] = useState(isWide);
  // The chat shown: the one chosen while it is listed, else the first in the list (none yet:
  // the engine's most recently used, made by the first message).
  const list = chats.data;
  const shown = useMemo(() => {
    if (!list) return chosen;
    if (chosen && list.some((c) => c.id === chosen)) return chosen;
    return list.find((c) => c.archivedAt === null)?.id ?? list[0]?.id ?? null;
  }, [list, chosen]);
  const shownChat = list?.find((c) => c.id === shown);
  const select = useCallback(
    (id: string) => {
      setChosen(id);
      rememberOpenChat(agent.id, id);
      if (!isWide()) setListOpen(false);
    },
    [agent.id],
  );
  // The app hears which chat shows (its route, Export), whenever that changes.
  useEffect(() => {
    if (shown) onChat?.(shown);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only a change of chat is news
  }, [shown]);
  const { mutate: createChat } = actions.create;
  const newChat = useCallback(() => createChat(undefined, { onSuccess: (chat) => select(chat.id) }), [createChat, select]);
  // ⌘/Ctrl+Shift+O: a new chat, wherever the focus is on this page.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.metaKey || e.ctrlKey) && e.shiftKey && e.key.toLowerCase() === "o") {
        e.preventDefault();
        newChat();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [newChat]);

  // Read once the list says which chat shows (a failed list: the most recently used one).
  const history = useChatPages(agent.id, shown, list !== undefined || chats.isError);
  const send = useSendChatMessage(agent.id, shown);
  const replace = useReplaceChatMessage(agent.id);
  const cancel = useCancelRun();
  const refresh = useRefreshChat(agent.id);
  // Boo Zero's composer completes `@TeamName`.
  const isBooZero = useBooZeroId() === agent.id;
  const teams = useTeams();
  const teamNames = useMemo(
    () => (isBooZero ? (teams.data ?? []).filter((t) => !t.archived).map((t) => t.name) : undefined),
    [isBooZero, teams.data],
  );
  // The run whose "What this agent saw" is open.
  const [seeing, setSeeing] = useState<string | null>(null);

  // Built from the previous view when an event only appended to the newest page: old entries
  // keep their identity, so their rows are not rendered again.
  const previousView = useRef<ChatViewState | undefined>(undefined);
  const view = useMemo(() => {
    if (!history.data) return undefined;
    return (previousView.current = nextChatView(previousView.current, history.data));
  }, [history.data]);
  const activeRun = view?.activeRun ?? null;
  const timeline = view?.entries ?? NO_ENTRIES;
  const shownRun = currentRun(view);
  const { fetchNextPage, hasNextPage, isFetchingNextPage } = history;
  const loadOlder = useCallback(() => void fetchNextPage(), [fetchNextPage]);
  // Retry: the failed run's own message, sent again as a new message.
  const { mutate: sendAgain } = send;
  const retryable = activeRun === null && !send.isPending;
  // Read at the click, so the callback (and the failed runs' notices given it) stays the same
  // while messages come.
  const messagesNow = useRef<ChatMessage[]>([]);
  messagesNow.current = view?.messages ?? [];
  const retry = useCallback(
    (runId: string) => {
      const asked = messagesNow.current.find((m) => m.runId === runId && m.role === "user");
      if (asked) sendAgain(asked.content);
    },
    [sendAgain],
  );

  // A stop request belongs to the run it stopped.
  const { reset: resetCancel } = cancel;
  useEffect(() => resetCancel(), [activeRun?.id, resetCancel]);

  // The draft is kept per chat (per agent until its first message makes one), and the chat is
  // read while it is open.
  const conversationId = shown ?? view?.conversationId ?? null;
  const agentKey: DraftKey = `agent:${agent.id}`;
  const draftKey: DraftKey = conversationId ? `chat:${conversationId}` : agentKey;
  // Once per chat, before its composer reads the draft: not on every render (a streamed reply
  // renders this page per event, and each move reads storage).
  const movedTo = useRef<DraftKey | null>(null);
  if (conversationId && movedTo.current !== draftKey) {
    moveDraft(agentKey, draftKey);
    movedTo.current = draftKey;
  }
  const draft = useDraft(draftKey);
  useMarkRead("chat", conversationId, view?.messages[view.messages.length - 1]?.seq);

  // Retry the last reply, edit the last message: while no run is going.
  const { mutate: replaceLast } = replace;
  const last = useMemo(() => lastExchange(view?.messages ?? []), [view?.messages]);
  const replaceActions = useMemo<ReplaceActions | undefined>(
    () =>
      activeRun === null && !send.isPending && last.user
        ? {
            lastUserId: last.user.id,
            lastReplyId: last.reply?.id ?? null,
            onRetry: (messageId) => replaceLast({ messageId, text: null }),
            onEdit: (messageId, text) => replaceLast({ messageId, text }),
            sending: replace.isPending,
          }
        : undefined,
    [activeRun, send.isPending, last, replaceLast, replace.isPending],
  );

  const error = send.error ?? cancel.error ?? actions.create.error ?? replace.error;

  return (
    <div className={`chats-layout ${listOpen ? "is-list-open" : ""}`}>
      {list && (
        <ChatList
          open={listOpen}
          agentId={agent.id}
          chats={list}
          selectedId={shown}
          onSelect={select}
          onNewChat={newChat}
          onClose={() => setListOpen(false)}
        />
      )}
    <div className="chat-layout">
      <section className="chat" aria-label={`Chat with ${agent.name}`}>
        <header className="chat-header">
          <button
            type="button"
            className="button button--small"
            aria-expanded={listOpen}
            onClick={() => setListOpen((o) => !o)}
            title="Chats"
            data-testid="chat-list-toggle"
          >
            ☰ Chats{list && list.length > 0 ? ` (${list.filter((c) => c.archivedAt === null).length})` : ""}
          </button>
          <h2 className="chat-header__title" data-testid="chat-title" title={chatTitle(shownChat)}>
            {chatTitle(shownChat)}
          </h2>
          <button
            type="button"
            className="button button--small"
            onClick={newChat}
            disabled={actions.create.isPending}
            title="New chat (⌘/Ctrl+Shift+O)"
            data-testid="chat-new"
          >
            + New chat
          </button>
        </header>
        {history.error ? (
          <ErrorMessage message={errorMessage(history.error)} />
        ) : !view ? (
          <p className="muted chat-loading">Loading conversation…</p>
        ) : (
          <ChatTimeline
            agentName={agent.name}
            tint={agent.tint}
            entries={timeline}
            notedRunIds={view.notedRunIds}
            hasOlder={hasNextPage}
            loadingOlder={isFetchingNextPage}
            onLoadOlder={loadOlder}
            pendingText={send.isPending ? send.variables : null}
            streamingRunId={activeRun?.id ?? null}
            onQuietEnd={refresh}
            onSeeContext={setSeeing}
            seeLabel={`What @${agent.handle} saw`}
            onOpenSandbox={onOpenSandbox}
            onRetry={retryable ? retry : undefined}
            agentId={agent.id}
            replace={replaceActions}
          />
        )}
        {hasErrorCode(error, "budget_exhausted") || hasErrorCode(error, "paused") ? (
          // Refused before it started: the figure or what the breaker saw, and the way to Limits.
          <RunErrorCard
            title="The run did not start."
            code={errorCode(error) as GuardRefusal}
            message={errorMessage(error)}
            testId="run-refused"
          />
        ) : hasErrorCode(error, "sandbox_unavailable") ? (
          // Its message says the fix; the agent's profile is where the sandbox can be turned off.
          <div className="sandbox-unavailable" data-testid="sandbox-unavailable">
            <ErrorMessage message={errorMessage(error)} code={errorCode(error)} />
            {onOpenSandbox && <SandboxLink onOpenSandbox={onOpenSandbox} />}
          </div>
        ) : (
          <ErrorMessage message={error ? errorMessage(error) : null} />
        )}
        <AskedHere agentId={agent.id} />
        <CantRunNotice agent={agent} />
        <ChatComposer
          key={draftKey}
          initialText={draft.initialText}
          onTextChange={draft.onTextChange}
          running={activeRun !== null}
          mentionables={teamNames}
          sending={send.isPending}
          stopping={cancel.isPending || cancel.isSuccess}
          onSend={async (text) => {
            cancel.reset();
            replace.reset();
            const outcome = await send.mutateAsync(text);
            // `/new`, or the first message of an agent with no chat: it went to another chat.
            if (outcome.message.chatId !== shown) select(outcome.message.chatId);
            return outcome;
          }}
          onStop={() => activeRun && cancel.mutate(activeRun.id)}
        />
      </section>
      <ActivityCard run={shownRun} onOpenSandbox={onOpenSandbox} />
      {seeing && (
        <ChatRunContextViewer
          runId={seeing}
          who={`@${agent.handle}`}
          run={view?.runs.find((r) => r.id === seeing) ?? (view?.activeRun?.id === seeing ? view.activeRun : null)}
          onClose={() => setSeeing(null)}
        />
      )}
    </div>
    </div>
  );
}
