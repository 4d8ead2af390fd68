/**
 * What the model and prompt registries keep per scope: a map of names,
 * each entry dropped when its scope is disposed.
 *
 * @module
 */
import type { Scope } from "./scope.ts";

/**
 * Keep `value` as `name` in `scope`'s map of `levels`, until the scope is
 * disposed or the returned disposer runs (which drop it only if it is still
 * the value kept).
 */
export function keepInLevel<T>(
  levels: WeakMap<Scope, Map<string, T>>,
  scope: Scope,
  name: string,
  value: T,
): () => Promise<void> {
  const dispose = scope.onDispose(() => {
    const current = levels.get(scope);
    if (current?.get(name) === value) current.delete(name);
  });
  let map = levels.get(scope);
  if (!map) levels.set(scope, map = new Map());
  map.set(name, value);
  return dispose;
}
