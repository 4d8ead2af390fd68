/**
 * A follow-up in a context (a `contextId`, no `taskId`) whose finished run
 * another instance keeps, on a shared {@linkcode TaskStorage}: a kept run
 * lives in its instance's memory, so the message goes there (a `continue`
 * command, _protocol.ts; answered in _forward.ts), which resumes the run and makes the new
 * task; the sender answers from the store as for any task another instance
 * runs. Needs only the storage: the cluster calls it (its module doc).
 */
import type { Logger } from "@seam/host";
import { type ClusterReply, decodeReply, encodeCommand, unreadable } from "./_protocol.ts";
import { storeFailure } from "../core/_store_errors.ts";
import type { SendParams } from "../http/_validate.ts";
import type { TaskStorage } from "../task_storage.ts";
import { isTerminalState, type StoredTask } from "../task_store.ts";
import { SEAM_EXTENSION_URI } from "../types.ts";

/** What a continuation elsewhere needs of the cluster. */
export interface ElsewhereContext {
  readonly storage: TaskStorage;
  readonly logger: Logger;
  /** This instance's id: a run kept here is never asked for elsewhere. */
  readonly instance: string;
  readonly commandTimeoutMs: number;
}

/**
 * Send the follow-up `params` to the instance that keeps its context's run,
 * if another does: the context's newest task of `principal` on `provider`
 * (the key a kept run is taken by, so no one reaches another's run) ended
 * with its run kept there (`keptOn`, its seam metadata). Answers the new
 * task's id, committed on the store; undefined when no other instance keeps
 * the run, or when the one named did not answer or its lease lapsed (it
 * stopped: its kept runs went with it), or answered that it does not keep
 * the run (`notKept`: pushed out, cleared as it shuts down, or one that
 * answers with a direct message, which makes no stored task to read), for a
 * fresh run here, as for any run no longer kept.
 *
 * @throws {GatewayError} the owner's refusal (a start-time field that
 * cannot change, its caps), or 503 when the store cannot be read.
 */
export async function continueElsewhere(
  context: ElsewhereContext,
  params: SendParams,
  principal: string | undefined,
  provider: string,
): Promise<string | undefined> {
  const { storage, logger } = context;
  const contextId = params.message.contextId!;
  let newest: StoredTask | undefined;
  try {
    newest = (await storage.list({ owner: principal, provider, contextId, limit: 1 })).tasks[0];
  } catch (error) {
    throw storeFailure(error, logger, `Reading context "${contextId.slice(0, 100)}"`);
  }
  const holder = newest && isTerminalState(newest.task.status.state) ? keptOn(newest) : undefined;
  if (holder === undefined || holder === context.instance) return undefined;
  const fresh = (why: string, error?: unknown): undefined => {
    // The conversation cannot be reached: said in the log, and by the new
    // task, which names no `resumedFrom`.
    logger.warn(
      `Instance "${holder}", which kept the run of context "${
        contextId.slice(0, 100)
      }", ${why}; a fresh run starts here, without that conversation`,
      ...(error === undefined ? [] : [error]),
    );
    return undefined;
  };
  let reply: ClusterReply;
  try {
    // Gone (its lease lapsed): not waited for, as a command's timeout would be (7 s by default).
    if (storage.leased && !(await storage.leased(holder))) {
      return fresh("did not take a follow-up in it (its lease lapsed)");
    }
    const command = encodeCommand({ kind: "continue", params, principal });
    reply = decodeReply(await storage.send(holder, command, context.commandTimeoutMs));
  } catch (error) {
    return fresh("did not take a follow-up in it", error); // gone, or too slow to answer
  }
  switch (reply.kind) {
    case "created":
      return reply.taskId;
    case "notKept":
      // It keeps no run for this context that answers with a task, or it is shutting down
      // (its kept runs cleared): a fresh run here, as for any run no longer kept (_forward.ts).
      return fresh(
        "no longer keeps it (pushed out, or it is shutting down) or answers it with a message",
      );
    case "refused":
      throw reply.error;
    default:
      throw unreadable();
  }
}

/** The instance that kept `record`'s run when it ended, if its seam metadata says. */
function keptOn(record: StoredTask): string | undefined {
  const seam = (record.task.metadata as Record<string, Record<string, unknown>> | undefined)?.[
    SEAM_EXTENSION_URI
  ];
  return typeof seam?.keptOn === "string" ? seam.keptOn : undefined;
}
