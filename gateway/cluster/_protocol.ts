/**
 * The commands gateway instances on a shared {@linkcode TaskStorage} send one
 * another, and their replies: two discriminated unions, each with its
 * encoder and its decoder, the only code that reads or writes them as JSON
 * (the storage carries them as plain objects: `send()`/`serve()`).
 *
 * **Commands** (to the instance that runs a task, or keeps a context's run):
 * - `cancel`: cancel the task (`Engine.cancelHere`); answered `task`;
 * - `message`: a message to the task (`steerHereFor`); answered `accepted`.
 *   With `answering` (a message that named only its context, sent to the
 *   task found waiting there), taken only as the answer to the input the
 *   task waits for, and refused if it no longer waits;
 * - `continue`: a follow-up in the context (`Engine.continueKept`); answered
 *   `created`, or `notKept` when no run kept there answers it with a task.
 *
 * Any of them may be answered `refused` (the owner's error, as a client would
 * have got it there).
 *
 * **The version rule.** A command or a reply may carry `v`, its protocol
 * version; none means 1. At version 1 the encoders write no `v`, so the wire
 * is what every instance since the first one sends and reads. A field a
 * decoder does not know is ignored, so a new field must be optional to keep
 * the version; anything else is a new version. An instance answers a command
 * in the version it came in; one of a version it does not know it refuses
 * (`unsupportedOperation`), and a reply it cannot read is a 503 to its client,
 * as an owner that did not answer is.
 *
 * The `notKept` reply also carries the 503 refusal a sender that predates
 * `notKept` reads instead (a rolling deploy).
 *
 * @module
 */
import {
  GatewayError,
  internalError,
  invalidRequest,
  isErrorKind,
  unsupportedOperation,
} from "../core/_errors.ts";
import type { SendParams } from "../http/_validate.ts";
import type { JsonObject } from "../task_storage.ts";
import type { A2ATask } from "../types.ts";

/** The protocol version this gateway speaks. */
export const PROTOCOL_VERSION = 1;

/** A command one instance sends another. `principal` is the client's (undefined: auth is off). */
export type ClusterCommand =
  | { readonly kind: "cancel"; readonly taskId: string; readonly principal: string | undefined }
  | {
    readonly kind: "message";
    /** A message to a task (its `message.taskId` set). */
    readonly params: SendParams;
    readonly principal: string | undefined;
    /**
     * Only as the answer to the input the task waits for (optional, so
     * version 1: an instance that predates it steers the task with it).
     */
    readonly answering?: true;
  }
  | {
    readonly kind: "continue";
    /** A follow-up in a context (`message.contextId` set, no `taskId`). */
    readonly params: SendParams;
    readonly principal: string | undefined;
  };

/** The reply to a {@linkcode ClusterCommand}. */
export type ClusterReply =
  | { readonly kind: "task"; readonly task: A2ATask }
  | {
    readonly kind: "accepted";
    /** The generation the task had reached when its run took the message, if known. */
    readonly since: number | undefined;
  }
  | { readonly kind: "created"; readonly taskId: string }
  | { readonly kind: "notKept" }
  | { readonly kind: "refused"; readonly error: GatewayError };

/** The JSON object for `command` (version 1: no `v`). */
export function encodeCommand(command: ClusterCommand): JsonObject {
  return { ...command, principal: command.principal ?? null };
}

/**
 * The command `json` holds.
 *
 * @throws {GatewayError} `unsupportedOperation` for a version this instance
 * does not speak, `invalidRequest` for a command it cannot read.
 */
export function decodeCommand(json: JsonObject): ClusterCommand {
  const { kind, taskId, params } = json;
  const version = json.v ?? PROTOCOL_VERSION;
  if (version !== PROTOCOL_VERSION) {
    throw unsupportedOperation(
      `a forwarded command of protocol version ${version} (this instance speaks ${PROTOCOL_VERSION})`,
    );
  }
  const principal = typeof json.principal === "string" ? json.principal : undefined;
  if (kind === "cancel" && typeof taskId === "string") return { kind, taskId, principal };
  if (kind === "message" && isSendParams(params) && typeof params.message.taskId === "string") {
    return json.answering === true
      ? { kind, params, principal, answering: true }
      : { kind, params, principal };
  }
  if (
    kind === "continue" && isSendParams(params) && params.message.taskId === undefined &&
    typeof params.message.contextId === "string"
  ) return { kind, params, principal };
  throw invalidRequest("an unknown forwarded command");
}

/** The JSON object for `reply`. */
export function encodeReply(reply: ClusterReply): JsonObject {
  switch (reply.kind) {
    case "task":
      return { task: reply.task };
    case "accepted":
      return reply.since === undefined ? { ok: true } : { ok: true, since: reply.since };
    case "created":
      return { taskId: reply.taskId };
    case "notKept":
      return {
        notKept: true,
        ...encodeReply({
          kind: "refused",
          error: internalError(
            "The instance that kept this context's run no longer keeps it; try again",
            { httpStatus: 503 },
          ),
        }),
      };
    case "refused": {
      const { kind, message, httpStatus, metadata } = reply.error;
      return { error: { kind, message, httpStatus, metadata } };
    }
  }
}

/** The reply `json` holds; one it cannot read is `refused` with a 503. */
export function decodeReply(json: JsonObject): ClusterReply {
  const { error, task, taskId, since } = json;
  if (json.notKept === true) return { kind: "notKept" };
  if (isObject(error)) {
    const { kind, message, httpStatus, metadata } = error;
    return {
      kind: "refused",
      error: new GatewayError(
        isErrorKind(kind) ? kind : "internal",
        typeof message === "string" ? message : "The instance running the task refused",
        {
          httpStatus: typeof httpStatus === "number" ? httpStatus : undefined,
          metadata: isStrings(metadata) ? metadata : undefined,
        },
      ),
    };
  }
  if (isTask(task)) return { kind: "task", task };
  if (typeof taskId === "string") return { kind: "created", taskId };
  if (json.ok === true) {
    return { kind: "accepted", since: typeof since === "number" ? since : undefined };
  }
  return { kind: "refused", error: unreadable() };
}

/** Whether `reply` is of the `kind` its command is answered with. */
export function isReply<K extends ClusterReply["kind"]>(
  reply: ClusterReply,
  kind: K,
): reply is Extract<ClusterReply, { kind: K }> {
  return reply.kind === kind;
}

/** The 503 for a reply this instance cannot read (another version's, or none the command takes). */
export function unreadable(): GatewayError {
  return internalError("The instance running the task answered a reply this one cannot read", {
    httpStatus: 503,
  });
}

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isStrings(value: unknown): value is Record<string, string> {
  return isObject(value) && Object.values(value).every((v) => typeof v === "string");
}

/** Whether `value` has the shape of a task (the owner made it). */
function isTask(value: unknown): value is A2ATask {
  return isObject(value) && typeof value.id === "string" && isObject(value.status);
}

/** Whether `value` has the shape of parsed send params (the sender parsed them). */
function isSendParams(value: unknown): value is SendParams {
  if (!isObject(value) || !isObject(value.message)) return false;
  const { messageId, parts } = value.message;
  return typeof messageId === "string" && Array.isArray(parts);
}
