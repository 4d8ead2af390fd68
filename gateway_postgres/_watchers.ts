/**
 * Which tasks a PostgreSQL store listens to: per task, its listeners, and
 * this store's row in the `watchers` table, which has an append to the task
 * (on any instance) NOTIFY this store. Separate from the store, which wakes
 * the listeners (`wake`) on a notice or its own commit.
 */
import type postgres from "postgres";

/** What the watchers need from their store. */
export interface WatchersContext {
  readonly sql: postgres.Sql;
  /** Whether the store is still open (a closed one writes no more rows). */
  isOpen(): boolean;
  /** The store's timers, which its close clears. */
  readonly timers: Set<ReturnType<typeof setTimeout>>;
}

/** The listeners of one task, the newest generation they heard, and their next wake or retry (`#watch`). */
interface Listeners {
  readonly set: Set<(generation: number) => void>;
  last: number;
  rewake?: ReturnType<typeof setTimeout>;
}

/** The waits between the wakes of a task's listeners after its watchers row is written (`#watch`). */
const REWAKE_MS = [1_000, 1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 64_000] as const;

/** The tasks a store listens to (see the module doc). */
export class Watchers {
  /** This store's name in the watchers table. */
  readonly id: string = crypto.randomUUID();
  readonly #listeners = new Map<string, Listeners>();
  /**
   * Per task, the last write of its watchers row, settled: each waits for the
   * one before, so a subscribe's INSERT never lands before the DELETE of the
   * listener that left just before it (on another pool connection), which
   * would leave the task unwatched and its appends unannounced here.
   */
  readonly #writes = new Map<string, Promise<void>>();
  readonly #context: WatchersContext;

  constructor(context: WatchersContext) {
    this.#context = context;
  }

  /** Listen to task `id`'s appends; answers the unsubscribe. */
  subscribe(id: string, listener: (generation: number) => void): () => void {
    let entry = this.#listeners.get(id);
    if (!entry) {
      this.#listeners.set(id, entry = { set: new Set(), last: 0 });
      this.#watch(id, entry);
    }
    const own = entry;
    const wrapped = (generation: number) => listener(generation);
    own.set.add(wrapped);
    return () => {
      own.set.delete(wrapped);
      if (own.set.size === 0 && this.#listeners.get(id) === own) {
        this.#listeners.delete(id);
        if (own.rewake !== undefined) {
          clearTimeout(own.rewake);
          this.#context.timers.delete(own.rewake);
        }
        this.#write(
          id,
          () =>
            this.#context.sql`DELETE FROM watchers WHERE task_id = ${id} AND watcher = ${this.id}`,
        )
          .catch(() => {});
      }
    };
  }

  /**
   * Say in the database that this store listens to task `id`, so appends
   * notify it; then wake its listeners, for what was appended before, and
   * again 1, 2, 4, … 128 s later (`REWAKE_MS`): an append whose statement
   * began before the row was committed read the watchers without it, so it
   * commits unannounced, however long it then takes (a lock wait, a
   * database under load). After about four minutes no such statement is
   * still running; the wakes stop (each costs a listener one read).
   * A write that failed (its connection lost, the database away) is tried
   * again a second later, for as long as the task is listened to: without
   * its row, the task's appends elsewhere are never announced here.
   */
  #watch(id: string, entry: Listeners): void {
    const wake = () => {
      if (this.#listeners.get(id) !== entry) return;
      for (const listener of [...entry.set]) {
        try {
          listener(0);
        } catch {
          // A listener's fault is its own.
        }
      }
    };
    this.#write(id, () =>
      this.#context.sql`
      INSERT INTO watchers (task_id, watcher) VALUES (${id}, ${this.id})
      ON CONFLICT DO NOTHING`)
      .then(() => {
        wake();
        const rewake = (n: number) => {
          if (n === REWAKE_MS.length || this.#listeners.get(id) !== entry) return;
          const timer = entry.rewake = setTimeout(() => {
            this.#context.timers.delete(timer);
            wake();
            rewake(n + 1);
          }, REWAKE_MS[n]);
          this.#context.timers.add(timer);
        };
        rewake(0);
      }, () => {
        wake();
        // A closed store writes no more; the last listener's leaving clears the retry.
        if (!this.#context.isOpen() || this.#listeners.get(id) !== entry) return;
        const timer = entry.rewake = setTimeout(() => {
          this.#context.timers.delete(timer);
          if (this.#context.isOpen() && this.#listeners.get(id) === entry) this.#watch(id, entry);
        }, 1_000);
        this.#context.timers.add(timer);
      });
  }

  /** Run `write` of task `id`'s watchers row once the one before it settled. */
  #write<T>(id: string, write: () => Promise<T>): Promise<T> {
    const before = this.#writes.get(id);
    const result = before ? before.then(write) : write();
    const settled = result.then(() => {}, () => {});
    this.#writes.set(id, settled);
    settled.then(() => {
      if (this.#writes.get(id) === settled) this.#writes.delete(id);
    });
    return result;
  }

  /** Wake the listeners of task `id` for `generation` (0: check, whatever it is). */
  wake(id: string, generation: number): void {
    const entry = this.#listeners.get(id);
    if (!entry) return;
    // A local commit and its own notice both arrive: wake once per generation.
    if (generation !== 0 && generation <= entry.last) return;
    if (generation !== 0) entry.last = generation;
    for (const listener of [...entry.set]) {
      try {
        listener(generation);
      } catch {
        // A listener's fault is its own.
      }
    }
  }

  /** Wake every listener, for what a lost notice may have hidden. */
  catchUp(): void {
    for (const id of [...this.#listeners.keys()]) this.wake(id, 0);
  }

  /** Forget every listener (the store closed). */
  clear(): void {
    this.#listeners.clear();
  }
}
