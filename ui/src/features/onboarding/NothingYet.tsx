/** Nothing here can run an agent yet: the two ways there are listed above (a runtime in step 1,
 *  with its install command; a key in step 2), so this only says so and looks again. */
export function NothingYet({ onLookAgain }: { onLookAgain: () => void }) {
  return (
    <div className="onboarding__nothing" data-testid="onboarding-nothing">
      <p>
        Nothing here can run an agent yet: install or sign in to a runtime (step 1), or add an API key (step 2), then
        look again. The app works meanwhile: you can write agents&apos; files, plan on the Board, keep memory.
      </p>
      <div className="onboarding__actions">
        <button type="button" className="button" onClick={onLookAgain} data-testid="onboarding-look-again">
          Look again
        </button>
      </div>
    </div>
  );
}
