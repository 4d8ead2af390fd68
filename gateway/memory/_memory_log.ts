/**
 * The memory store's half of the {@linkcode TaskStorage} port: each task's
 * event log and generation, its listeners, the instances' leases and the
 * command handlers, for gateways sharing one process.
 */
import {
  type JsonObject,
  type TaskCommandHandler,
  type TaskLogEntry,
  TaskStorageError,
} from "../task_storage.ts";
import { stringify } from "../core/_builtins.ts";

/** One task's log: live entries, or (once the task ended) their JSON text. */
interface TaskLog {
  generation: number;
  instance: string | undefined;
  entries: TaskLogEntry[] | undefined;
  packed: string | undefined;
}

/** Logs, leases and commands of one memory store (see the module doc). */
export class MemoryLog {
  readonly #logs = new Map<string, TaskLog>();
  readonly #listeners = new Map<string, Set<(generation: number) => void>>();
  readonly #leases = new Map<string, number>();
  readonly #handlers = new Map<string, TaskCommandHandler>();
  readonly #ttl: number;
  readonly #now: () => number;

  constructor(ttl: number, now: () => number) {
    this.#ttl = ttl;
    this.#now = now;
  }

  /** The generation of task `id`'s log (0: none). */
  generationOf(id: string): number {
    return this.#logs.get(id)?.generation ?? 0;
  }

  /** Add `events` to task `id`'s log, owned by `instance` from now on; answers the new generation. */
  add(id: string, events: readonly JsonObject[], instance: string | undefined): number {
    let log = this.#logs.get(id);
    if (!log) {
      this.#logs.set(id, log = { generation: 0, instance, entries: [], packed: undefined });
    }
    const entries = log.entries ??= log.packed === undefined ? [] : JSON.parse(log.packed);
    log.packed = undefined;
    for (const event of events) {
      entries.push({ generation: ++log.generation, event: structuredClone(event) });
    }
    log.instance = instance;
    return log.generation;
  }

  /** Keep an ended task's log as JSON text; answers its length (0: no log). */
  seal(id: string): number {
    const log = this.#logs.get(id);
    if (!log) return 0;
    log.instance = undefined;
    if (log.entries) {
      log.packed = stringify(log.entries);
      log.entries = undefined;
    }
    return log.packed?.length ?? 0;
  }

  /** Forget task `id`'s log (it was evicted). */
  drop(id: string): void {
    this.#logs.delete(id);
  }

  /** Wake the listeners of task `id`. */
  notify(id: string, generation: number): void {
    const listeners = this.#listeners.get(id);
    if (!listeners) return;
    for (const listener of [...listeners]) {
      try {
        listener(generation);
      } catch {
        // A listener's fault is its own; the others still hear.
      }
    }
  }

  read(id: string, after: number, limit: number): readonly TaskLogEntry[] {
    const log = this.#logs.get(id);
    if (!log || after >= log.generation) return [];
    const entries: TaskLogEntry[] = log.entries ?? JSON.parse(log.packed!);
    // Generations are consecutive from 1: entry g sits at index g - 1.
    const from = Math.max(0, after);
    return entries.slice(from, from + limit).map((e) => structuredClone(e));
  }

  subscribe(id: string, listener: (generation: number) => void): () => void {
    let set = this.#listeners.get(id);
    if (!set) this.#listeners.set(id, set = new Set());
    const own = set;
    const entry = (generation: number) => listener(generation);
    own.add(entry);
    return () => {
      own.delete(entry);
      if (own.size === 0 && this.#listeners.get(id) === own) this.#listeners.delete(id);
    };
  }

  heartbeat(instance: string): void {
    this.#leases.set(instance, this.#now() + this.#ttl);
  }

  /**
   * The ids of live tasks whose instance's lease lapsed (or which have no
   * instance), but for those of `exclude`: all of them, for the caller to
   * order (there are at most as many as live tasks).
   */
  orphanIds(isLive: (id: string) => boolean, exclude: string | undefined): string[] {
    const now = this.#now();
    const out: string[] = [];
    for (const [id, log] of this.#logs) {
      if (log.entries === undefined || !isLive(id)) continue;
      if (exclude !== undefined && log.instance === exclude) continue;
      const lease = log.instance === undefined ? undefined : this.#leases.get(log.instance);
      if (lease === undefined || lease <= now) out.push(id);
    }
    return out;
  }

  async send(instance: string, command: JsonObject, timeoutMs: number): Promise<JsonObject> {
    const handler = this.#handlers.get(instance);
    if (!handler) {
      throw new TaskStorageError(
        "UNAVAILABLE",
        `Cannot send a command: no instance "${instance}" serves commands here`,
      );
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new TaskStorageError(
              "UNAVAILABLE",
              `Cannot send a command: instance "${instance}" did not answer within ${timeoutMs} ms`,
            ),
          ),
        timeoutMs,
      );
    });
    try {
      const reply = await Promise.race([handler(structuredClone(command)), timeout]);
      return structuredClone(reply);
    } finally {
      clearTimeout(timer);
    }
  }

  serve(instance: string, handler: TaskCommandHandler): () => void {
    if (this.#handlers.has(instance)) {
      throw new TypeError(`Cannot serve commands: instance "${instance}" is served already`);
    }
    this.#handlers.set(instance, handler);
    return () => {
      if (this.#handlers.get(instance) === handler) this.#handlers.delete(instance);
    };
  }
}
