/**
 * Writing a task's record to a store that is not shared (a shared storage
 * journals it instead, _cluster.ts): a failure is logged, and a terminal
 * write that failed is retried as a reduced record (state and a note, no
 * content), so the task still ends, is still evicted in time, and never
 * poisons later reads. Separate from the engine, which decides when a
 * record is written: this is what a write does when the store fails.
 */
import type { Logger } from "@seam/host";
import { agentMessage, type TaskRecord } from "./_task_view.ts";
import { isTerminalState, type StoredTask, type TaskStore } from "../task_store.ts";
import { SEAM_EXTENSION_URI } from "../types.ts";

/** Writes records to a store that is not shared (see the module doc). */
export class StoreWriter {
  readonly #store: TaskStore;
  readonly #logger: Logger;

  constructor(store: TaskStore, logger: Logger) {
    this.#store = store;
    this.#logger = logger;
  }

  /** Store a record; a promise when the store answers later (never rejects). */
  persist(record: TaskRecord): Promise<void> | undefined {
    return put(this.#store, record, this.#putFailed);
  }

  readonly #putFailed = (record: StoredTask, error: unknown): Promise<void> | undefined =>
    this.#storeFailed(record, error);

  readonly #reducedFailed = (record: StoredTask, again: unknown): undefined => {
    this.#logger.error(`Storing task "${record.task.id}" reduced failed too`, again);
  };

  #storeFailed(record: StoredTask, error: unknown): Promise<void> | undefined {
    this.#logger.error(`Storing task "${record.task.id}" failed`, error);
    const t = record.task;
    if (!isTerminalState(t.status.state)) return undefined;
    const reduced: StoredTask = {
      owner: record.owner,
      provider: record.provider,
      updatedAt: record.updatedAt,
      task: {
        id: t.id,
        contextId: t.contextId,
        status: {
          state: t.status.state,
          timestamp: t.status.timestamp,
          // Why the store failed is for the log (logged above), not the client.
          message: agentMessage(t, [{
            text: `${
              t.status.message?.parts[0]?.text ?? "Ended."
            } (The task's full record could not be stored; the gateway's log says why.)`,
          }]),
        },
        metadata: { [SEAM_EXTENSION_URI]: { provider: record.provider } },
      },
    };
    return put(this.#store, reduced, this.#reducedFailed);
  }
}

/** `store.put(record)`, with `failed` hearing a failure, thrown or later. */
function put(
  store: TaskStore,
  record: StoredTask,
  failed: (record: StoredTask, error: unknown) => Promise<void> | undefined,
): Promise<void> | undefined {
  try {
    const done = store.put(record);
    if (done && typeof (done as Promise<void>).then === "function") {
      return (done as Promise<void>).catch((error) => failed(record, error));
    }
  } catch (error) {
    return failed(record, error);
  }
  return undefined;
}
