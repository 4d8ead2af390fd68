/**
 * {@linkcode TaskStorage.waiting} from `list`, once per state that waits for
 * input: the memory store's own, and the gateway's for a storage that has
 * no `waiting` (a bounded read either way: `limit` per state).
 *
 * @module
 */
import type { StoredTaskAt, TaskStorage, TaskWaitingQuery } from "../task_storage.ts";
import type { TaskListPage, TaskStore } from "../task_store.ts";

/** The states of a task that waits for input. */
const WAITING_STATES = ["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"] as const;

/**
 * At most `query.limit` tasks waiting for input that `query` selects, newest
 * first (ties: `id` descending), read with `store.list`; synchronous when
 * `store.list` is.
 */
export function waitingFromList(
  store: TaskStore,
  query: TaskWaitingQuery,
): readonly StoredTaskAt[] | Promise<readonly StoredTaskAt[]> {
  const pages = WAITING_STATES.map((state) => store.list({ ...query, state }));
  const merged = (pages: readonly TaskListPage[]): readonly StoredTaskAt[] =>
    pages.flatMap((page) => page.tasks).sort((a, b) =>
      b.updatedAt - a.updatedAt || (a.task.id < b.task.id ? 1 : a.task.id > b.task.id ? -1 : 0)
    ).slice(0, query.limit) as StoredTaskAt[];
  return pages.some((page) => page instanceof Promise)
    ? Promise.all(pages).then(merged)
    : merged(pages as TaskListPage[]);
}

/** The tasks `query` selects waiting for input in `storage`: its own read, else `list`'s. */
export function readWaiting(
  storage: TaskStorage,
  query: TaskWaitingQuery,
): readonly StoredTaskAt[] | Promise<readonly StoredTaskAt[]> {
  return storage.waiting ? storage.waiting(query) : waitingFromList(storage, query);
}
