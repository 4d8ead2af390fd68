import { BrandedError } from "./brand.ts";
import { createLogger, type Logger } from "./logger.ts";
import { cannot } from "./_invalid.ts";
import { freeze } from "./_builtins.ts";
import { refuseUnknownOptions } from "./unknown_options.ts";

/** Undo a registration. May be async; a scope awaits it on disposal. */
export type Disposer = () => void | Promise<void>;

/** Where a scope is in its life. Only an `"active"` scope accepts registrations. */
export type ScopeState = "active" | "disposing" | "disposed";

/**
 * A typed event name, made by {@linkcode defineEvent}. The payload type rides
 * along so `on` and `emit` agree at compile time.
 */
export interface EventKey<T> {
  /** The event's name, as it appears in logs (`"subagent/start"`). */
  readonly name: string;
  /** Type-level only: never set at runtime. */
  readonly payloadType?: T;
}

/** A listener: its return value is ignored, a returned promise is never awaited. */
export type Listener<T> = (payload: T) => unknown;

/** A typed service name, made by {@linkcode defineService}. */
export interface ServiceKey<T> {
  /** The service's name, as it appears in errors (`"subagents"`). */
  readonly name: string;
  /** Type-level only: never set at runtime. */
  readonly serviceType?: T;
}

/**
 * Define a typed event. Keys with the same name share listeners.
 *
 * @example
 * ```ts
 * import { createRootScope, defineEvent } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * const greeted = defineEvent<{ who: string }>("demo/greeted");
 * const root = createRootScope();
 * const seen: string[] = [];
 * root.on(greeted, (p) => void seen.push(p.who));
 * root.child().emit(greeted, { who: "ada" });
 * assert.deepEqual(seen, ["ada"]);
 * await root.dispose();
 * ```
 */
export function defineEvent<T>(name: string): EventKey<T> {
  if (typeof name !== "string" || name === "") {
    cannot("define event", "name must be a non-empty string");
  }
  return freeze({ name });
}

/** Define a typed service key for {@linkcode Scope.provide} and {@linkcode Scope.inject}. */
export function defineService<T>(name: string): ServiceKey<T> {
  if (typeof name !== "string" || name === "") {
    cannot("define service", "name must be a non-empty string");
  }
  return freeze({ name });
}

/**
 * Thrown for any registration (effect, listener, service, child scope) on a
 * scope that is disposing or disposed.
 */
export class InactiveScopeError extends BrandedError {
  /** Its brand: a InactiveScopeError made by any copy of this package is recognised. */
  static override readonly brand: string = "@seam/host/InactiveScopeError";
  /** Stable code for callers that branch on it. */
  readonly code = "INACTIVE_SCOPE" as const;
  /** The state the scope was in. */
  readonly state: ScopeState;
  /** Make the error for an `action` refused in `state`. */
  constructor(action: string, label: string, state: ScopeState) {
    super(`Cannot ${action}: scope "${label}" is ${state} (inactive context)`);
    this.state = state;
  }
}

/** Options of {@linkcode createRootScope}. */
export interface ScopeOptions {
  /** Logger shared by the scope tree. Default: console, `warn` and up. */
  logger?: Logger;
  /** A label for errors and logs. Default `"root"`. */
  label?: string;
}

const SCOPE_OPTIONS = ["logger", "label"] satisfies (keyof ScopeOptions)[];

type Entry = Scope | (() => void | Promise<void>);

/**
 * What an owned disposer that finished synchronously answers: one shared
 * settled promise, which disposal then need not await (a promise and a
 * microtask hop per sync disposer were most of a short-lived scope's cost,
 * bench/gateway_bench.ts "gateway.fetch SendMessage").
 */
const DONE: Promise<void> = Promise.resolve();

/**
 * An owner of registrations. Everything registered on a scope (effects,
 * listeners, services, child scopes) is undone when the scope is disposed, in
 * reverse order, children included. Events emitted on a scope reach the
 * listeners of that scope and of its ancestors, nearest first.
 *
 * @example
 * ```ts
 * import { createRootScope } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * const root = createRootScope();
 * const order: string[] = [];
 * root.effect(() => () => void order.push("a"));
 * const child = root.child("child");
 * child.effect(() => () => void order.push("child"));
 * root.effect(() => () => void order.push("b"));
 * await root.dispose();
 * assert.deepEqual(order, ["b", "child", "a"]);
 * assert.equal(child.state, "disposed");
 * ```
 */
export class Scope {
  /** The scope this one is nested in, `undefined` for a root. */
  readonly parent: Scope | undefined;
  /** The logger of this scope tree. */
  readonly logger: Logger;
  /** A label for errors and logs. */
  readonly label: string;
  #state: ScopeState = "active";
  /** What disposal undoes; dropped whole when it starts (no delete per entry). */
  #entries: Set<Entry> | undefined = new Set<Entry>();
  #listeners: Map<string, Listener<unknown>[]> | undefined;
  #services: Map<string, unknown> | undefined;
  #controller: AbortController | undefined;
  #disposal: Promise<void> | undefined;
  #before: Set<() => Promise<void>> | undefined;

  /** Use {@linkcode createRootScope} or {@linkcode Scope.child}. */
  constructor(parent: Scope | undefined, logger: Logger, label: string) {
    this.parent = parent;
    this.logger = logger;
    this.label = label;
  }

  /** `"active"`, `"disposing"` or `"disposed"`. */
  get state(): ScopeState {
    return this.#state;
  }

  /** Whether the scope still accepts registrations. */
  get active(): boolean {
    return this.#state === "active";
  }

  /** Aborted as soon as the scope starts disposing. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#state !== "active") this.#controller.abort(this.#abortReason());
    }
    return this.#controller.signal;
  }

  /**
   * Run `setup` now and own the disposer it returns. Returns a disposer that
   * undoes the effect early (once; later calls are no-ops).
   */
  effect(setup: () => Disposer | void): () => Promise<void> {
    this.#assertActive("register an effect");
    const disposer = setup();
    if (disposer === undefined) return () => Promise.resolve();
    if (typeof disposer !== "function") {
      cannot(
        "register an effect",
        `setup returned ${typeof disposer}, not a disposer or nothing`,
      );
    }
    return this.#own(callDisposer, disposer, undefined);
  }

  /** Own `disposer`: it runs when the scope is disposed, unless called first. */
  onDispose(disposer: Disposer): () => Promise<void> {
    this.#assertDisposer(disposer);
    return this.#own(callDisposer, disposer, undefined);
  }

  /**
   * Run `disposer` as soon as the scope starts disposing, before its children
   * and every other disposer (such hooks run in reverse registration order,
   * each awaited). For an owner that must stop its work while everything
   * registered in the scope is still in place, e.g. an agent ending its turn.
   * Returns a disposer that runs it early (once; later calls are no-ops).
   */
  beforeDispose(disposer: Disposer): () => Promise<void> {
    this.#assertDisposer(disposer);
    let done: Promise<void> | undefined;
    const hook = () => {
      if (done) return done;
      this.#before?.delete(hook);
      try {
        const result = disposer();
        done = result === undefined ? Promise.resolve() : Promise.resolve(result);
      } catch (error) {
        done = Promise.reject(error);
      }
      return done;
    };
    (this.#before ??= new Set()).add(hook);
    return hook;
  }

  /** Create a scope nested in this one; it is disposed with this one. */
  child(label?: string): Scope {
    this.#assertActive("create a child scope");
    const child = new Scope(this, this.logger, label ?? `${this.label}/child`);
    this.#entries!.add(child);
    return child;
  }

  /**
   * Listen to `event` for as long as this scope lives. The listener sees
   * events emitted on this scope and on its descendants.
   */
  on<T>(event: EventKey<T>, listener: Listener<T>): () => Promise<void> {
    if (typeof listener !== "function") {
      cannot(`listen to "${event.name}"`, "listener must be a function");
    }
    this.#assertActive(`listen to "${event.name}"`);
    const listeners = this.#listeners ??= new Map();
    // Copy on write: a dispatch in progress keeps iterating its own array.
    const current = listeners.get(event.name);
    listeners.set(
      event.name,
      current ? [...current, listener as Listener<unknown>] : [listener as Listener<unknown>],
    );
    return this.#own(Scope.#unlisten, event.name, listener as Listener<unknown>);
  }

  static #unlisten(scope: Scope, name: string, listener: Listener<unknown>): void {
    const current = scope.#listeners?.get(name);
    if (!current) return;
    const index = current.indexOf(listener);
    if (index === -1) return;
    const next = current.slice();
    next.splice(index, 1);
    if (next.length === 0) scope.#listeners!.delete(name);
    else scope.#listeners!.set(name, next);
  }

  /**
   * Deliver `payload` to the listeners of this scope, then of each ancestor.
   * Each listener is contained: a throw or a rejected returned promise is
   * logged with the event's name and later listeners still run. Returned
   * promises are not awaited.
   */
  emit<T>(event: EventKey<T>, payload: T): void {
    for (let scope = Scope.#self(this); scope; scope = scope.parent) {
      const listeners = scope.#listeners?.get(event.name);
      if (!listeners) continue;
      for (const listener of listeners) {
        callContained(scope.logger, event.name, listener, payload);
      }
    }
  }

  /** Whether an `emit` of `event` here would reach any listener. */
  hasListeners(event: EventKey<unknown>): boolean {
    for (let scope = Scope.#self(this); scope; scope = scope.parent) {
      if (scope.#listeners?.has(event.name)) return true;
    }
    return false;
  }

  /**
   * Make `value` the service `key` for this scope and its descendants (a
   * nearer scope's service shadows an ancestor's).
   */
  provide<T>(key: ServiceKey<T>, value: T): () => Promise<void> {
    this.#assertActive(`provide service "${key.name}"`);
    const services = this.#services ??= new Map();
    if (services.has(key.name)) {
      cannot(`provide service "${key.name}"`, `already provided in scope "${this.label}"`);
    }
    services.set(key.name, value);
    return this.#own(Scope.#unprovide, key.name, value);
  }

  static #unprovide(scope: Scope, name: string, value: unknown): void {
    const services = scope.#services;
    if (services !== undefined && services.get(name) === value) services.delete(name);
  }

  /** The nearest service `key`, or `undefined`. */
  inject<T>(key: ServiceKey<T>): T | undefined {
    for (let scope = Scope.#self(this); scope; scope = scope.parent) {
      const services = scope.#services;
      if (services?.has(key.name)) return services.get(key.name) as T;
    }
    return undefined;
  }

  /**
   * Dispose this scope: children and disposers in reverse registration order,
   * each awaited. A failing disposer is logged and the rest still run.
   * Memoized: every call returns the same promise.
   */
  dispose(): Promise<void> {
    return this.#disposal ??= this.#runDisposal();
  }

  #runDisposal(): Promise<void> {
    // A disposer calling `dispose` again while the disposal's synchronous part
    // runs (before `dispose` has its promise) is answered settled: a disposer
    // returning it must not make the disposal wait on itself.
    if (this.#state !== "active") return DONE;
    this.#state = "disposing";
    return this.#controller || this.#before ? this.#disposeAsync() : this.#undo();
  }

  /**
   * Undo the entries from index `i` down (all of them, taken whole: deleting
   * entry by entry made the set shrink and reallocate as it emptied,
   * bench/in_process.ts throughput), synchronously while each finishes so:
   * a scope whose disposers are all synchronous is disposed when `dispose`
   * returns and answers the shared settled promise, which its parent need
   * not await (an async disposal per short-lived scope, bench/alloc.ts
   * "gateway `SendMessage`"). An entry still pending makes the rest wait.
   */
  #undo(entries = Array.from(this.#entries!), i = entries.length): Promise<void> {
    this.#entries = undefined;
    while (i-- > 0) {
      const entry = entries[i];
      try {
        const done = entry instanceof Scope ? entry.dispose() : entry();
        if (done !== undefined && done !== DONE && !this.#within(done)) {
          return this.#after(done, entries, i);
        }
      } catch (error) {
        this.#disposerFailed(error);
      }
    }
    this.#listeners = undefined;
    this.#services = undefined;
    this.#state = "disposed";
    if (this.parent) this.parent.#entries?.delete(this);
    return DONE;
  }

  /**
   * Whether `done` is the disposal of this scope or of an ancestor (a
   * disposer returned it): awaiting it here would wait for itself.
   */
  #within(done: Promise<void>): boolean {
    for (let scope = Scope.#self(this); scope; scope = scope.parent) {
      if (scope.#disposal === done) return true;
    }
    return false;
  }

  async #after(pending: Promise<void>, entries: Entry[], i: number): Promise<void> {
    try {
      await pending;
    } catch (error) {
      this.#disposerFailed(error);
    }
    await this.#undo(entries, i);
  }

  async #disposeAsync(): Promise<void> {
    if (this.#controller) {
      this.#controller.abort(this.#abortReason());
      // Work that stops on the signal gets its turn while the scope is still
      // disposing, before its registrations are undone.
      await DONE;
    }
    if (this.#before) {
      for (const hook of Array.from(this.#before).reverse()) {
        try {
          await hook();
        } catch (error) {
          this.#disposerFailed(error);
        }
      }
      this.#before = undefined;
    }
    await this.#undo();
  }

  /**
   * Own `undo(this, a, b)`: the entry is the one closure a registration
   * makes (`undo` is a shared function, its two arguments the entry's
   * own: a closure per registration over a closure per undo was most of
   * `provide`'s and `on`'s cost, bench/alloc.ts "gateway `SendMessage`").
   */
  #own<A, B>(
    undo: (scope: Scope, a: A, b: B) => void | Promise<void>,
    a: A,
    b: B,
  ): () => Promise<void> {
    let done: Promise<void> | undefined;
    const entry = () => {
      if (done) return done;
      this.#entries?.delete(entry);
      try {
        const result = undo(this, a, b);
        done = result === undefined ? DONE : Promise.resolve(result);
      } catch (error) {
        done = Promise.reject(error);
      }
      return done;
    };
    if (this.#state !== "active") {
      // The scope began disposing while setup ran: undo at once.
      entry().catch((error) => this.#disposerFailed(error));
      return entry;
    }
    this.#entries!.add(entry);
    return entry;
  }

  /** Refuse what is not a disposer, or a scope no longer active. */
  #assertDisposer(disposer: Disposer): void {
    if (typeof disposer !== "function") {
      cannot("register a disposer", `expected a function, got ${typeof disposer}`);
    }
    this.#assertActive("register a disposer");
  }

  #disposerFailed(error: unknown): void {
    this.logger.error(`A disposer of scope "${this.label}" failed`, error);
  }

  // Loops up the ancestry start from here; a static keeps `this` unaliased.
  static #self(scope: Scope): Scope | undefined {
    return scope;
  }

  #assertActive(action: string): void {
    if (this.#state !== "active") {
      throw new InactiveScopeError(action, this.label, this.#state);
    }
  }

  #abortReason(): Error {
    return new InactiveScopeError("continue", this.label, "disposing");
  }
}

/** The `undo` of a registration whose disposer is the caller's. */
function callDisposer(_scope: Scope, disposer: Disposer): void | Promise<void> {
  return disposer();
}

function callContained<T>(
  logger: Logger,
  name: string,
  listener: Listener<T>,
  payload: T,
): void {
  try {
    const returned = listener(payload);
    if (returned !== null && typeof returned === "object" || typeof returned === "function") {
      const then = (returned as { then?: unknown }).then;
      if (typeof then === "function") {
        then.call(returned, undefined, (error: unknown) => {
          logger.error(`A listener of "${name}" rejected`, error);
        });
      }
    }
  } catch (error) {
    logger.error(`A listener of "${name}" threw`, error);
  }
}

/**
 * Create the root of a scope tree.
 *
 * @example
 * ```ts
 * import { createRootScope, InactiveScopeError } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * const root = createRootScope({ label: "app" });
 * await root.dispose();
 * assert.throws(() => root.child(), InactiveScopeError);
 * ```
 */
export function createRootScope(options: ScopeOptions = {}): Scope {
  refuseUnknownOptions("create the root scope", options, SCOPE_OPTIONS);
  return new Scope(
    undefined,
    options.logger ?? createLogger(),
    options.label ?? "root",
  );
}
