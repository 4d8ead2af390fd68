/**
 * The commands instances on a shared {@linkcode TaskStorage} send one
 * another: one sent to the instance that runs a task and its reply (a
 * refusal rethrown as the owner's error, 503 when it does not answer), one
 * answered for a task this instance runs, and the wait on the stored state
 * of a task another instance runs. Separate from the cluster, which keeps
 * this instance's state: these need only the storage, or the engine.
 */
import type { Logger } from "@seam/host";
import type { ClusterEngine } from "./_cluster.ts";
import {
  GatewayError,
  internalError,
  invalidRequest,
  shuttingDown,
  toGatewayError,
} from "../core/_errors.ts";
import type { LiveTask } from "../core/_live_task.ts";
import type { SendParams } from "../http/_validate.ts";
import { unavailable } from "../core/_store_errors.ts";
import type { JsonObject, TaskStorage } from "../task_storage.ts";
import { isTerminalState, type StoredTask } from "../task_store.ts";

/**
 * Send `command` to the instance that runs the task and answer its reply,
 * waiting at most `commandTimeoutMs`.
 *
 * @throws {GatewayError} the owner's refusal, or 503 when it does not answer.
 */
export async function forward(
  storage: TaskStorage,
  logger: Logger,
  commandTimeoutMs: number,
  record: StoredTask,
  command: JsonObject,
): Promise<JsonObject> {
  const owner = record.instance;
  if (owner === undefined) {
    throw unavailable(`task "${record.task.id}" has no instance running it right now`);
  }
  let reply: JsonObject;
  try {
    reply = await storage.send(owner, command, commandTimeoutMs);
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
  const refusal = refusalOf(reply);
  if (refusal) throw refusal;
  return reply;
}

/** The owner's refusal in a command's reply, as the error it answered; undefined for none. */
export function refusalOf(reply: JsonObject): GatewayError | undefined {
  const refusal = reply.error as Record<string, unknown> | undefined;
  if (!refusal) return undefined;
  return new GatewayError(
    (refusal.kind as GatewayError["kind"]) ?? "internal",
    String(refusal.message ?? "The instance running the task refused"),
    {
      httpStatus: refusal.httpStatus as number | undefined,
      metadata: refusal.metadata as Record<string, string> | undefined,
    },
  );
}

/**
 * A `continue` command this instance refuses: it keeps no run for the
 * context that answers with a task (Cluster.continueElsewhere). Its reply
 * says `notKept`, for a fresh run on the sender.
 */
export class NotKept extends Error {
  constructor() {
    super("No run is kept here for this follow-up's context");
    this.name = "NotKept";
  }
}

/** Whether `error` is the refusal of an instance shutting down (its kept runs gone). */
function isShuttingDown(error: unknown): boolean {
  return error instanceof GatewayError && error.message === shuttingDown().message;
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
 * `continue`, a follow-up in a context whose run `engine` keeps). A
 * message's reply says the generation the task had reached when its run
 * took it (`emitted`: the task's journal), so that its sender waits for what
 * the message led to, not for an input request it answered that was not
 * stored yet when the sender looked.
 */
export async function answer(
  engine: ClusterEngine,
  logger: Logger,
  command: JsonObject,
  emitted: (taskId: string) => number | undefined,
): Promise<JsonObject> {
  const principal = typeof command.principal === "string" ? command.principal : undefined;
  try {
    if (command.kind === "cancel") {
      return { task: await engine.cancel(String(command.taskId), principal, undefined, true) };
    }
    if (command.kind === "message") {
      let since: number | undefined;
      const taken = (live: LiveTask) => since = emitted(live.record.task.id);
      await engine.send(command.params as unknown as SendParams, principal, taken, true);
      return since === undefined ? { ok: true } : { ok: true, since };
    }
    if (command.kind === "continue") {
      // A follow-up in a context whose run this instance keeps (Cluster.continueElsewhere):
      // sent as here, the run taken by the same key (principal, provider, contextId). The
      // task's creation is committed when send answers: the sender reads it from the store.
      // Not kept here (NotKept), or shutting down: see the catch.
      const sent = await engine.send(
        command.params as unknown as SendParams,
        principal,
        undefined,
        true,
      );
      return { taskId: sent.taskId };
    }
    throw invalidRequest("an unknown forwarded command");
  } catch (error) {
    // A follow-up this instance cannot continue: it keeps no run for it (pushed out by
    // maxResumableRuns, or its kept runs cleared as it shuts down), or keeps one that
    // answers with a direct message, which makes no task the sender could read. Its
    // sender starts a fresh run itself, as for any run no longer kept; a 503 would
    // only have its client retry into the same wait.
    if (command.kind === "continue" && (error instanceof NotKept || isShuttingDown(error))) {
      // With a 503 for a sender that predates `notKept` (a rolling deploy), which would
      // otherwise read a task id from the reply that names none.
      return {
        notKept: true,
        ...refusal(
          internalError("The instance that kept this context's run no longer keeps it; try again", {
            httpStatus: 503,
          }),
        ),
      };
    }
    return refusal(toGatewayError(error, logger));
  }
}

/** A command's reply refusing it with `e` (read back by {@linkcode refusalOf}). */
function refusal(e: GatewayError): JsonObject {
  return {
    error: { kind: e.kind, message: e.message, httpStatus: e.httpStatus, metadata: e.metadata },
  } as JsonObject;
}
