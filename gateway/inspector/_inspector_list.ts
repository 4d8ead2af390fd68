/**
 * The inspector's list of a principal's tasks, read from the task store, so
 * that behind a load balancer each instance's page shows every task of the
 * principal, not only those it runs: where this instance runs a task, the
 * page has its live detail from the event stream; where another instance
 * does, the list says so (its detail is the task and its history, read
 * through the store); an ended task is shown from the store.
 */
import type { A2ATask } from "../types.ts";
import { SEAM_EXTENSION_URI } from "../types.ts";
import { isTerminalState } from "../task_store.ts";
import type { ListParams } from "../http/_validate.ts";

/** How many tasks one list answer holds at most (the newest changed first). */
export const MAX_LISTED = 100;
/** How many characters of a task's first prompt its title keeps. */
export const MAX_TITLE = 80;

/** One task of the list, as the page shows it. */
export interface ListedTask {
  readonly id: string;
  readonly contextId: string;
  readonly provider: string | undefined;
  readonly state: string;
  /** When it last changed state (ms since the epoch), if the task says. */
  readonly updatedAt: number | undefined;
  /** The first words of its first prompt (at most `MAX_TITLE` characters), if it has one. */
  readonly title: string | undefined;
  /** `here`: this instance runs it (live detail on the stream); `elsewhere`: another does; `ended`. */
  readonly where: "here" | "elsewhere" | "ended";
}

/** A page of the list: its tasks and how many the principal has in all. */
export interface TaskList {
  readonly tasks: ListedTask[];
  readonly total: number;
}

/** What the list reads: the engine's page of tasks (`ListTasks`'s own, `core/_engine.ts`). */
export type ListTasksPage = (
  params: ListParams,
  principal: string | undefined,
) => Promise<Record<string, unknown>>;

/**
 * The principal's tasks as `ListTasks` pages them (from the store: every
 * instance's on a shared one), newest changed first, at most `MAX_LISTED`;
 * `here(id)` says whether this instance runs one.
 */
export async function listTasks(
  list: ListTasksPage,
  principal: string | undefined,
  here: (id: string) => boolean,
): Promise<TaskList> {
  const page = await list({ pageSize: MAX_LISTED, includeArtifacts: false }, principal);
  const tasks = (page.tasks as A2ATask[]).map((task): ListedTask => {
    const state = task.status.state;
    const seam = task.metadata?.[SEAM_EXTENSION_URI] as { provider?: unknown } | undefined;
    const at = task.status.timestamp ? Date.parse(task.status.timestamp) : NaN;
    return {
      id: task.id,
      contextId: task.contextId,
      provider: typeof seam?.provider === "string" ? seam.provider : undefined,
      state,
      updatedAt: Number.isFinite(at) ? at : undefined,
      title: taskTitle(task),
      where: here(task.id) ? "here" : isTerminalState(state) ? "ended" : "elsewhere",
    };
  });
  return { tasks, total: typeof page.totalSize === "number" ? page.totalSize : tasks.length };
}

/**
 * The first words of a task's first prompt (its first user message's text),
 * whitespace folded, cut at a word within `MAX_TITLE` characters with an
 * ellipsis; undefined when it has no text.
 */
export function taskTitle(task: A2ATask): string | undefined {
  const first = task.history?.find((m) => m.role === "ROLE_USER");
  const words = (first?.parts ?? [])
    .map((p) => (typeof p.text === "string" ? p.text : ""))
    .join(" ")
    // Only the head is read: a huge prompt costs no more than its start.
    .slice(0, MAX_TITLE * 4)
    .replace(/\s+/g, " ")
    .trim();
  if (words === "") return undefined;
  if (words.length <= MAX_TITLE) return words;
  const cut = words.slice(0, MAX_TITLE - 1);
  const space = cut.lastIndexOf(" ");
  return (space > MAX_TITLE / 2 ? cut.slice(0, space) : cut) + "…";
}
