import { Modal } from "./Modal";
import { GLOBAL_SHORTCUTS, LOCAL_SHORTCUTS } from "../lib/shortcuts";

function Keys({ keys }: { keys: string[] }) {
  return (
    <span>
      {keys.map((k, i) => (
        <span key={k}>
          {i > 0 && " + "}
          <kbd>{k}</kbd>
        </span>
      ))}
    </span>
  );
}

/** Every keyboard shortcut the app has: `?` anywhere outside a text field, or the sidebar's button. */
export function ShortcutsSheet({ onClose }: { onClose: () => void }) {
  return (
    <Modal title="Keyboard shortcuts" onClose={onClose} testId="shortcuts-sheet">
      <div className="shortcuts">
        <section>
          <h3>Anywhere</h3>
          <dl>
            {GLOBAL_SHORTCUTS.map((s) => (
              <div key={s.action} style={{ display: "contents" }}>
                <dt>
                  <Keys keys={s.keys} />
                </dt>
                <dd>{s.label}</dd>
              </div>
            ))}
          </dl>
        </section>
        {LOCAL_SHORTCUTS.map((group) => (
          <section key={group.where}>
            <h3>{group.where}</h3>
            <dl>
              {group.items.map((s) => (
                <div key={s.label} style={{ display: "contents" }}>
                  <dt>
                    <Keys keys={s.keys} />
                  </dt>
                  <dd>{s.label}</dd>
                </div>
              ))}
            </dl>
          </section>
        ))}
        <div className="onboarding__actions">
          <button type="button" className="button" onClick={onClose} data-testid="shortcuts-close">
            Close
          </button>
        </div>
      </div>
    </Modal>
  );
}
