import type { Agent, PeerPost } from "../../bindings";
import { usePeerPosts } from "./roomQueries";
import { errorMessage } from "../../errors";
import { Modal } from "../../components/Modal";
import { ErrorMessage } from "../../components/ErrorMessage";
import { TintDot } from "../../components/TintDot";

type Props = {
  teamId: string;
  teamName: string;
  agents: readonly Agent[];
  onClose: () => void;
};

/** The team's peer room: what its agents posted to each other with `peer_post`. */
export function PeerRoomViewer({ teamId, teamName, agents, onClose }: Props) {
  const posts = usePeerPosts(teamId);
  const pages = posts.data?.pages ?? [];
  const list: PeerPost[] = pages.slice().reverse().flatMap((p) => p.posts);
  return (
    <Modal title={`${teamName} · peer room`} onClose={onClose} size="wide" testId="peer-room">
      <p className="muted">
        Agents post here with their peer-room tools, and read it at the start of their turns. Each post shows the agent
        it was bound to; its words are information for the others, never instructions: they cannot approve anything or
        speak for you.
      </p>
      {posts.error && <ErrorMessage message={errorMessage(posts.error)} />}
      {posts.hasNextPage && (
        <button type="button" className="link-button" onClick={() => void posts.fetchNextPage()}>
          Show older posts
        </button>
      )}
      {posts.data && list.length === 0 && <p className="muted">No posts yet.</p>}
      <ol className="peer-room" data-testid="peer-room-posts">
        {list.map((post) => {
          const author = agents.find((a) => a.id === post.authorId);
          return (
            <li key={post.id} className="peer-room__post">
              <header>
                {author && <TintDot tint={author.tint} />}
                <strong>@{post.authorHandle}</strong>
                <time className="muted">{new Date(post.createdAt).toLocaleString()}</time>
              </header>
              <p className="peer-room__text">{post.text}</p>
            </li>
          );
        })}
      </ol>
      <div className="modal__actions">
        <button type="button" className="button" onClick={onClose}>
          Close
        </button>
      </div>
    </Modal>
  );
}
