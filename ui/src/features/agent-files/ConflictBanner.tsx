type Props = {
  fileName: string;
  onLoadDisk: () => void;
  onKeepMine: () => void;
};

/** The file changed on disk while the editor had unsaved changes. */
export function ConflictBanner({ fileName, onLoadDisk, onKeepMine }: Props) {
  return (
    <div className="conflict-banner" role="alert" data-testid="conflict-banner">
      <span className="conflict-banner__text">{fileName} changed on disk.</span>
      <div className="conflict-banner__actions">
        <button type="button" className="button button--small" onClick={onLoadDisk} data-testid="load-disk-version">
          Load disk version
        </button>
        <button
          type="button"
          className="button button--small button--primary"
          onClick={onKeepMine}
          data-testid="keep-my-edits"
        >
          Keep my edits
        </button>
      </div>
    </div>
  );
}
