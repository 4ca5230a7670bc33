import type { FileDelivery, ProjectFileDelivery } from "../../bindings";
import { FILE_STATUS_LABELS, inFileOrder } from "../agent-files/agentFiles";
import { formatCount } from "../../lib/format";

type Props = {
  files: readonly FileDelivery[];
  /** The repository's own instructions, for a run in a project folder or worktree. */
  project?: ProjectFileDelivery | null;
  /** The run ended before any request: files it would have sent were not. */
  unsent?: boolean;
};

/** Where each of the agent's seven files went in a run and whether the run carried it. Every
 *  file is listed, even those not sent, so nothing about the run is hidden. */
export function FileDeliveryList({ files, project = null, unsent = false }: Props) {
  return (
    <section className="file-deliveries" data-testid="file-deliveries">
      <h3>Agent files</h3>
      <p className="muted">
        Files already delivered to this session are left out until they change; files the runtime reads itself are
        checked against their budgets all the same.
      </p>
      {files.length === 0 ? (
        <p className="muted" data-testid="file-deliveries-none">
          Not recorded: this run is from before Clawboo kept which agent files each run carried.
        </p>
      ) : (
        <ul className="file-deliveries__list">
          {inFileOrder(files).map((f) => (
            <FileDeliveryRow key={f.file} delivery={f} unsent={unsent} />
          ))}
        </ul>
      )}
      {project && <ProjectFileRow delivery={project} unsent={unsent} />}
    </section>
  );
}

/** The repository's own instructions (CLAUDE.md or AGENTS.md of the project folder), with how
 *  they reached the agent, and, over their budget, the line saying what happened instead. */
function ProjectFileRow({ delivery, unsent }: { delivery: ProjectFileDelivery; unsent: boolean }) {
  const over = delivery.chars > delivery.budget;
  const neverLeft = unsent && delivery.status === "sent";
  return (
    <>
      <h3>Project instructions</h3>
      <ul className="file-deliveries__list">
        <li className="file-delivery" data-testid="project-file-delivery" data-status={delivery.status}>
          <span className="file-delivery__name" title={delivery.folder}>
            {delivery.name}
          </span>
          <span className={`file-status file-status--${neverLeft ? "not_sent" : delivery.status}`}>
            {neverLeft ? "Not sent: the run failed before any request" : FILE_STATUS_LABELS[delivery.status]}
          </span>
          <span className="file-delivery__route" data-testid="project-file-route">
            {delivery.routeLabel}, from {delivery.folder}
          </span>
          <span className={`file-delivery__size${over ? " is-over" : ""}`}>
            {formatCount(delivery.chars)} / {formatCount(delivery.budget)} characters
          </span>
          {delivery.note && (
            <span className="file-delivery__note" role="note" data-testid="project-file-note">
              {delivery.note}
            </span>
          )}
        </li>
      </ul>
    </>
  );
}

function FileDeliveryRow({ delivery, unsent }: { delivery: FileDelivery; unsent: boolean }) {
  const over = delivery.chars > delivery.budget;
  const neverLeft = unsent && delivery.status === "sent";
  return (
    <li className="file-delivery" data-testid={`file-delivery-${delivery.file}`} data-status={delivery.status}>
      <span className="file-delivery__name">{delivery.file}</span>
      <span
        className={`file-status file-status--${neverLeft ? "not_sent" : delivery.status}`}
        title={delivery.status === "unedited" ? "It still holds the starting text Clawboo wrote: edit it to have it sent." : undefined}
      >
        {neverLeft ? "Not sent: the run failed before any request" : FILE_STATUS_LABELS[delivery.status]}
      </span>
      <span className="file-delivery__route">{delivery.routeLabel}</span>
      <span className={`file-delivery__size${over ? " is-over" : ""}`}>
        {formatCount(delivery.chars)} / {formatCount(delivery.budget)} characters
      </span>
      {delivery.note && (
        <span className="file-delivery__note" role="note" data-testid={`file-note-${delivery.file}`}>
          {delivery.note}
        </span>
      )}
    </li>
  );
}
