/**
 * A follow-up message on a task: it steers the task's run, answers the input
 * request an interrupted task waits on, or goes to the instance that runs
 * the task (on a shared storage). Separate from the engine, which starts
 * tasks and keeps them: a follow-up needs of it only the task as its sender
 * may see it, the cluster, push, and the write of a record.
 */
import { partsToBlocks } from "./_convert.ts";
import type { Found, Sent, TaskHome } from "./_home.ts";
import { type GatewayError, invalidParams, unsupportedOperation } from "./_errors.ts";
import { type AcceptedExtension, hasStartFields } from "./_extension.ts";
import { answerFromMessage, requestAnswered } from "./_input_answer.ts";
import type { LiveTask } from "./_live_task.ts";
import type { PreparedPush, PushService } from "../_features.ts";
import { stateWord, userMessage } from "./_task_view.ts";
import type { SendParams } from "../http/_validate.ts";
import type { StoredTask } from "../task_store.ts";
import { stringify } from "./_builtins.ts";

/** What a follow-up needs of the engine. */
export interface SteerHost {
  /** Where the engine's tasks live. */
  readonly home: TaskHome;
  /** Push notifications, when configured. */
  readonly push: PushService | undefined;
}

/** Refuse a follow-up whose context is not its task's (`found`, as its sender may see it). */
export function assertFollows(found: Found, params: SendParams): void {
  const t = found.record.task;
  if (params.message.contextId !== undefined && params.message.contextId !== t.contextId) {
    throw invalidParams(
      `message.contextId "${
        params.message.contextId.slice(0, 100)
      }" does not match task "${t.id}" (its contextId is "${t.contextId}")`,
    );
  }
}

/**
 * A follow-up on the task `found` (from `find`, checked by {@linkcode assertFollows}): steer its run,
 * which runs here if it runs at all (one another instance runs is the
 * caller's to send there).
 */
export async function steer(
  host: SteerHost,
  found: Found,
  params: SendParams,
  ext: AcceptedExtension,
  onLive: ((live: LiveTask) => void) | undefined,
  push: PreparedPush | undefined,
): Promise<Sent> {
  const t = found.record.task;
  const task = found.live;
  if (!task) {
    throw unsupportedOperation(
      `task "${t.id}" is ${
        stateWord(t)
      } and accepts no more messages; to continue, send one with contextId "${t.contextId}" and no taskId`,
    );
  }
  if (hasStartFields(ext)) {
    throw invalidParams(
      "the seam extension's start-time fields (outputSchema, maxDepth, toolFilter, persona, budget) apply only to a task's first message",
    );
  }
  if (task.phase === "interrupted") return answer(task, params, ext, onLive);
  if (ext.answer !== undefined) {
    throw invalidParams(
      `task "${t.id}" waits on no input; the seam extension's answer is for an INPUT_REQUIRED or AUTH_REQUIRED task`,
    );
  }
  const send = task.run.sendMessage;
  if (!send) {
    throw unsupportedOperation(
      `task "${t.id}" is still running and provider "${task.record.provider}" cannot steer a running child (no sendMessage); wait or cancel`,
    );
  }
  if (push) await host.push!.attach(push, t.id, task);
  const size = stringify(params.message.parts).length;
  task.admitSteering(size);
  const blocks = partsToBlocks(params.message.parts);
  const accepted = userMessage(params, t.id, t.contextId);
  onLive?.(task);
  try {
    task.chain.context.accept(t.id, accepted);
    await send(blocks);
  } catch (error) {
    task.releaseSteering(size);
    throw unsupportedOperation(
      `the running child did not take the message (${
        error instanceof Error ? error.message : String(error)
      })`,
    );
  }
  (t.history ??= []).push(accepted);
  // The run may have ended while the message was on its way: the store may
  // hold the final state already, so it must hear of the message (on a
  // shared storage, in one more append once that state is committed).
  if (task.phase === "ended") await host.home.amend(task);
  return { live: task, taskId: t.id, extension: ext.used };
}

/** A follow-up on an interrupted task: the answer to the request it waits on. */
function answer(
  task: LiveTask,
  params: SendParams,
  ext: AcceptedExtension,
  onLive: ((live: LiveTask) => void) | undefined,
): Sent {
  const t = task.record.task;
  const request = requestAnswered(task.waitingInputs, ext.answer);
  const answer = answerFromMessage(request, params.message.parts, ext.answer);
  task.admitSteering(stringify(params.message.parts).length);
  const accepted = userMessage(params, t.id, t.contextId);
  (t.history ??= []).push(accepted);
  task.chain.context.accept(t.id, accepted);
  // Answered first: a stream of the answer opens on the task working again,
  // not on the request it answered (which some clients take as still asked).
  task.answerInput(request.id, answer);
  onLive?.(task);
  return { live: task, taskId: t.id, extension: ext.used };
}

/** How many waiting tasks a refusal names (and a shared storage is asked for, plus one). */
export const MAX_WAITING_NAMED = 10;

/**
 * The refusal of an answer (the seam extension's `answer`) that names no task
 * and finds none waiting in its context: never a fresh run that drops it.
 */
export function nothingWaits(contextId: string | undefined): GatewayError {
  return invalidParams(
    `no task ${
      contextId === undefined ? "named" : `in context "${contextId}" waits for input`
    }: an answer needs the taskId of the task waiting for it`,
  );
}

/**
 * The one task of `principal` in `contextId` (on `tenant`'s provider, when
 * named) that waits for input: an answer naming only the context (as ADK's
 * client sends one) goes to it. `tasks` are the live tasks here, whose own
 * phase says; `stored` the context's waiting tasks a shared storage holds
 * (read before, none of another principal), of which those live here are
 * left to their phase (the storage lags behind it).
 *
 * @throws {GatewayError} `invalidParams` naming the waiting tasks when there are several.
 */
export function waitingIn(
  tasks: Iterable<LiveTask>,
  principal: string | undefined,
  tenant: string | undefined,
  contextId: string | undefined,
  stored: readonly StoredTask[] = [],
): Found | undefined {
  if (contextId === undefined) return undefined;
  const here = new Set<string>();
  const waiting: Found[] = [];
  for (const task of tasks) {
    const r = task.record;
    if (
      r.task.contextId !== contextId || r.owner !== principal || (tenant && tenant !== r.provider)
    ) {
      continue;
    }
    here.add(r.task.id);
    if (task.phase === "interrupted") waiting.push({ record: r, live: task });
  }
  for (const record of stored) {
    if (!here.has(record.task.id)) waiting.push({ record, live: undefined });
  }
  if (waiting.length > 1) {
    const named = waiting.slice(0, MAX_WAITING_NAMED).map((found) => found.record.task.id);
    throw invalidParams(
      `context "${contextId}" has tasks waiting for input (${named.join(", ")}${
        waiting.length > MAX_WAITING_NAMED ? ", …" : ""
      }); answer one by its taskId`,
    );
  }
  return waiting[0];
}
