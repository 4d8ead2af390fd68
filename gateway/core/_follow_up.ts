/**
 * Where a follow-up on a task goes: steered here (_steer.ts), or sent to
 * the instance that runs it. A message naming only its context (as ADK's
 * client answers an input request) goes to the one task of its principal
 * waiting for input there: on a shared storage, the storage says which wait
 * on other instances, read before the live tasks here are (`waitingIn`), so
 * that nothing is awaited between their phases read and the answer taken.
 *
 * @module
 */
import type { Found, Sent, TaskHome } from "./_home.ts";
import type { AcceptedExtension } from "./_extension.ts";
import type { LiveTask } from "./_live_task.ts";
import type { PreparedPush } from "../_features.ts";
import { MAX_WAITING_NAMED, steer, type SteerHost } from "./_steer.ts";
import type { SendParams } from "../http/_validate.ts";
import type { StoredTask } from "../task_store.ts";

/**
 * The tasks waiting for input in the context a message names without a
 * task, as a shared storage holds them (one more than a refusal names);
 * undefined without a context, or on one gateway alone.
 */
export function storedWaiting(
  home: TaskHome,
  params: SendParams,
  principal: string | undefined,
): Promise<readonly StoredTask[]> | undefined {
  const contextId = params.message.contextId;
  if (contextId === undefined) return undefined;
  return home.waiting?.(principal, params.tenant, contextId, MAX_WAITING_NAMED + 1);
}

/**
 * A follow-up on `found`: steered here, or sent to the instance that runs
 * it (`answering`: as the answer to the input it waits for, refused there if
 * it no longer waits).
 */
export function follow(
  host: SteerHost,
  found: Found,
  params: SendParams,
  principal: string | undefined,
  accepted: { readonly ext: AcceptedExtension; readonly push: PreparedPush | undefined },
  onLive: ((live: LiveTask) => void) | undefined,
  answering: boolean,
): Promise<Sent> {
  const { ext, push } = accepted;
  const there = found.live ? undefined : host.home.locate?.(found.record);
  if (!there) return steer(host, found, params, ext, onLive, push);
  const message = { ...params.message, taskId: found.record.task.id };
  return there.message({ ...params, message }, principal, ext.used, answering);
}
