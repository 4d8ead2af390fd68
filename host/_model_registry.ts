import type { ModelAdapter, ModelRegistry } from "./model.ts";
import type { Scope } from "./scope.ts";
import { cannot } from "./_invalid.ts";
import { keepInLevel } from "./_levels.ts";

/** The host's model registry: adapters per model id, per scope. */
export class ModelRegistryImpl implements ModelRegistry {
  #levels = new WeakMap<Scope, Map<string, ModelAdapter>>();

  register(scope: Scope, model: string, adapter: ModelAdapter): () => Promise<void> {
    if (typeof model !== "string" || model === "") {
      cannot("register a model", "the model id must be a non-empty string");
    }
    if (
      adapter === null || typeof adapter !== "object" ||
      typeof adapter.stream !== "function" || typeof adapter.name !== "string"
    ) {
      cannot(
        `register model "${model}"`,
        "the adapter must have a string name and a stream() method",
      );
    }
    if (this.#levels.get(scope)?.has(model)) {
      cannot(
        `register model "${model}"`,
        `an adapter is already registered for it in scope "${scope.label}"`,
      );
    }
    return keepInLevel(this.#levels, scope, model, adapter);
  }

  resolve(scope: Scope, model: string): ModelAdapter {
    let wildcard: ModelAdapter | undefined;
    for (let s: Scope | undefined = scope; s; s = s.parent) {
      const level = this.#levels.get(s);
      if (!level) continue;
      const adapter = level.get(model);
      if (adapter) return adapter;
      wildcard ??= level.get("*");
    }
    if (wildcard) return wildcard;
    const known = this.list(scope);
    cannot(
      `resolve model "${model}"`,
      `no adapter is registered for it in scope "${scope.label}" or its ancestors (registered: ${
        known.length ? known.map((id) => `"${id}"`).join(", ") : "none"
      })`,
      true,
    );
  }

  list(scope: Scope): string[] {
    const ids = new Set<string>();
    for (let s: Scope | undefined = scope; s; s = s.parent) {
      const level = this.#levels.get(s);
      if (level) { for (const id of level.keys()) ids.add(id); }
    }
    return [...ids];
  }
}
