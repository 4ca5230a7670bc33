import { Modal } from "../components/Modal";
import { GLOBAL_SHORTCUTS, LOCAL_SHORTCUTS } from "./shortcuts";

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

type Listed = { keys: string[]; label: string };

function ShortcutGroup({ title, items }: { title: string; items: Listed[] }) {
  return (
    <section>
      <h3>{title}</h3>
      <dl>
        {items.map((s) => (
          <div key={s.label} style={{ display: "contents" }}>
            <dt>
              <Keys keys={s.keys} />
            </dt>
            <dd>{s.label}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}

/** Every keyboard shortcut the app has: `?` anywhere outside a text field, or the sidebar's button. */
export function ShortcutsSheet({ onClose }: { onClose: () => void }) {
  return (
    <Modal title="Keyboard shortcuts" onClose={onClose} testId="shortcuts-sheet">
      <div className="shortcuts">
        <ShortcutGroup title="Anywhere" items={GLOBAL_SHORTCUTS} />
        {LOCAL_SHORTCUTS.map((group) => (
          <ShortcutGroup key={group.where} title={group.where} items={group.items} />
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
