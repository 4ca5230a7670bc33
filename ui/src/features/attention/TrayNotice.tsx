/** Said once, the first time the window hides to the tray while agents work: it stays until the
 *  user dismisses it, so it is there when the window shows again. */
export function TrayNotice({ onDismiss }: { onDismiss: () => void }) {
  return (
    <div className="tray-notice" role="status" data-testid="kept-in-tray-notice">
      <span className="tray-notice__icon" aria-hidden="true">
        ◆
      </span>
      <p>Clawboo keeps running in the tray while your agents work. Quit from the tray menu.</p>
      <button type="button" className="button button--small" onClick={onDismiss} data-testid="kept-in-tray-dismiss">
        Got it
      </button>
    </div>
  );
}
