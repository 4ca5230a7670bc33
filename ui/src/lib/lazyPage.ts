// A page whose code is loaded when first shown (React.lazy) and can be loaded ahead of that
// (`preload`): the start bundle leaves it out, and once it is loaded it renders at once — no
// Suspense fallback for a frame, as a plain `lazy` over an already-loaded module would show.
import { lazy, type ComponentType } from "react";

export type LazyPage<P> = ComponentType<P> & {
  /** Starts loading the page's code (once); resolves when it is loaded. */
  preload: () => Promise<void>;
};

export function lazyPage<M, P>(load: () => Promise<M>, pick: (module: M) => ComponentType<P>): LazyPage<P> {
  let loaded: ComponentType<P> | undefined;
  let loading: Promise<ComponentType<P>> | undefined;
  const start = () =>
    (loading ??= load().then(
      (module) => (loaded = pick(module)),
      (e: unknown) => {
        // A failed load (the app updated under the page) is tried again next time.
        loading = undefined;
        throw e;
      },
    ));
  type Loaded = { default: ComponentType<P> };
  const Page = lazy<ComponentType<P>>(() => {
    const ready = loaded;
    if (!ready) return start().then((component) => ({ default: component }));
    // Already loaded: a thenable that answers synchronously, which React.lazy renders without
    // suspending (a settled Promise would still answer a microtask later).
    const answered: PromiseLike<Loaded> = { then: (onLoaded) => onLoaded?.({ default: ready }) as never };
    return answered as Promise<Loaded>;
  }) as unknown as LazyPage<P>;
  Page.preload = () => start().then(() => undefined);
  return Page;
}
