/**
 * The commands instances on a shared {@linkcode TaskStorage} send one
 * another: one sent to the instance that runs a task and its reply (a
 * refusal rethrown as the owner's error, 503 when it does not answer), one
 * answered for a task this instance runs, and the wait on the stored state
 * of a task another instance runs. Separate from the cluster, which keeps
 * this instance's state: these need only the storage, or the engine.
 */
import type { Logger } from "@seam/host";
import type { Engine } from "../core/_engine.ts";
import {
  type GatewayError,
  ShuttingDownError,
  toGatewayError,
  unsupportedOperation,
} from "../core/_errors.ts";
import type { Found } from "../core/_home.ts";
import { stateWord } from "../core/_task_view.ts";
import { assertFollows, steer } from "../core/_steer.ts";
import type { SendParams } from "../http/_validate.ts";
import type { A2ATask } from "../types.ts";
import type { LiveTask } from "../core/_live_task.ts";
import {
  type ClusterCommand,
  type ClusterReply,
  decodeCommand,
  decodeReply,
  encodeCommand,
  encodeReply,
  isReply,
  unreadable,
} from "./_protocol.ts";
import { unavailable } from "../core/_store_errors.ts";
import type { JsonObject, TaskStorage } from "../task_storage.ts";
import { isTerminalState, type StoredTask } from "../task_store.ts";

/**
 * What the cluster needs of the engine: its view of a record, and the steps
 * a forwarded command is run through here (_forward.ts: `cancelHere`,
 * `steerHereFor`, `continueKept`), each of which acts here, never forwards.
 */
export type ClusterEngine = Pick<
  Engine,
  | "view"
  | "find"
  | "cancelFound"
  | "accept"
  | "admit"
  | "home"
  | "providerOf"
  | "kept"
  | "start"
  | "steerHost"
>;

/**
 * Send `command` to the instance that runs the task and answer its reply,
 * waiting at most `commandTimeoutMs`.
 *
 * @throws {GatewayError} the owner's refusal; 503 when it does not answer,
 * or answers other than `expected`.
 */
export async function forward<K extends ClusterReply["kind"]>(
  storage: TaskStorage,
  logger: Logger,
  commandTimeoutMs: number,
  record: StoredTask,
  command: ClusterCommand,
  expected: K,
): Promise<Extract<ClusterReply, { kind: K }>> {
  const owner = record.instance;
  if (owner === undefined) {
    throw unavailable(`task "${record.task.id}" has no instance running it right now`);
  }
  let reply: ClusterReply;
  try {
    reply = decodeReply(await storage.send(owner, encodeCommand(command), commandTimeoutMs));
  } catch (error) {
    // The store's message is for the log: a driver's names the database's
    // host and port, its user.
    logger.warn(
      `Sending a command to instance "${owner}" for task "${record.task.id}" failed`,
      error,
    );
    throw unavailable(
      `the instance running task "${record.task.id}" did not answer within ${commandTimeoutMs} ms, or the command could not be sent; if it is gone, the task ends FAILED once its lease lapses (${storage.leaseTtlMs} ms)`,
    );
  }
  if (reply.kind === "refused") throw reply.error;
  if (!isReply(reply, expected)) throw unreadable();
  return reply;
}

/**
 * Settles once task `taskId` is terminal in `storage`, or interrupted
 * (INPUT_REQUIRED, AUTH_REQUIRED) at a generation after `since`.
 */
export function untilSettledOrInterrupted(
  storage: TaskStorage,
  taskId: string,
  since: number,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let checking = false;
    let again = false;
    const check = async (): Promise<void> => {
      if (checking) {
        again = true;
        return;
      }
      checking = true;
      try {
        do {
          again = false;
          const record = await storage.get(taskId);
          const state = record?.task.status.state;
          if (
            !record || isTerminalState(state!) ||
            ((record.generation ?? 0) > since &&
              (state === "TASK_STATE_INPUT_REQUIRED" || state === "TASK_STATE_AUTH_REQUIRED"))
          ) {
            off();
            return resolve();
          }
        } while (again);
      } catch (error) {
        off();
        reject(error);
      } finally {
        checking = false;
      }
    };
    const off = storage.subscribe(taskId, () => void check());
    void check();
  });
}

/**
 * Answer a command another instance forwarded to a task `engine` runs (or,
 * `continue`, a follow-up in a context whose run `engine` keeps), through
 * the engine's own steps: `cancelHere`, `steerHereFor`, `continueKept`,
 * which act here and never forward again. A message's reply says the
 * generation the task had reached when its run took it (`emitted`: the
 * task's journal), so that its sender waits for what the message led to,
 * not for an input request it answered that was not stored yet when the
 * sender looked.
 */
export async function answer(
  engine: ClusterEngine,
  logger: Logger,
  json: JsonObject,
  emitted: (taskId: string) => number | undefined,
): Promise<JsonObject> {
  try {
    return encodeReply(await run(engine, decodeCommand(json), emitted));
  } catch (error) {
    return encodeReply({ kind: "refused", error: toGatewayError(error, logger) });
  }
}

async function run(
  engine: ClusterEngine,
  command: ClusterCommand,
  emitted: (taskId: string) => number | undefined,
): Promise<ClusterReply> {
  switch (command.kind) {
    case "cancel":
      return { kind: "task", task: await cancelHere(engine, command.taskId, command.principal) };
    case "message": {
      let since: number | undefined;
      const taken = (live: LiveTask) => since = emitted(live.record.task.id);
      await steerHereFor(engine, command.params, command.principal, taken, command.answering);
      return { kind: "accepted", since };
    }
    case "continue": {
      const taskId = await continueKept(engine, command.params, command.principal);
      return taskId === undefined ? { kind: "notKept" } : { kind: "created", taskId };
    }
  }
}

/** A `cancel` command: the task's run is canceled here, never forwarded again. */
async function cancelHere(
  engine: ClusterEngine,
  taskId: string,
  principal: string | undefined,
): Promise<A2ATask> {
  return engine.cancelFound(await engine.find(taskId, principal, undefined));
}

/**
 * A `message` command: the task's run is steered here, never forwarded
 * again; `answering`, only if it still waits for input (its phase read with
 * nothing awaited before the answer is taken).
 */
async function steerHereFor(
  engine: ClusterEngine,
  params: SendParams,
  principal: string | undefined,
  onLive: (live: LiveTask) => void,
  answering: boolean | undefined,
): Promise<void> {
  const { ext, push } = await engine.accept(params);
  const found = await engine.find(params.message.taskId!, principal, params.tenant);
  assertFollows(found, params);
  if (answering && found.live?.phase !== "interrupted") throw noLongerWaiting(found);
  await steer(engine.steerHost, found, params, ext, onLive, push);
}

/**
 * The refusal of an answer that named only its context when the task found
 * waiting there no longer waits (answered meanwhile, or ended): it is not
 * taken as a steering message, nor as a new turn.
 */
function noLongerWaiting(found: Found): GatewayError {
  const t = found.record.task;
  return unsupportedOperation(
    `task "${t.id}" no longer waits for input (it is now ${
      stateWord(t)
    }): this message, which named only its context "${t.contextId}", was not taken; to reach the task, send it with taskId "${t.id}"`,
  );
}

/**
 * A `continue` command: the follow-up resumes the context's run kept here,
 * sent as here (the run taken by the same key: principal, provider,
 * contextId). Its task's creation is committed when this answers: the
 * sender reads it from the store. Answers the task's id; undefined (not
 * kept) when this instance cannot continue it: it keeps no run for it
 * (pushed out by maxResumableRuns, or its kept runs cleared as it shuts
 * down), or keeps one that answers with a direct message, which makes no
 * task the sender could read. The sender then starts a fresh run itself, as
 * for any run no longer kept; a 503 would only have its client retry into
 * the same wait.
 */
async function continueKept(
  engine: ClusterEngine,
  params: SendParams,
  principal: string | undefined,
): Promise<string | undefined> {
  try {
    const { ext, push } = await engine.accept(params);
    engine.admit(principal);
    await engine.home.admit?.();
    const provider = engine.providerOf(params.tenant);
    const kept = engine.kept.get(principal, provider, params.message.contextId!);
    if (kept?.chain.context.reply !== "task") return undefined;
    return (await engine.start(params, principal, provider, ext, push, undefined)).taskId;
  } catch (error) {
    if (error instanceof ShuttingDownError) return undefined;
    throw error;
  }
}
