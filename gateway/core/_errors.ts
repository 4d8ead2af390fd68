/** The errors the gateway answers with, and their wire forms in both bindings (A2A §5.4). */

/**
 * An A2A error kind: its JSON-RPC code, HTTP status, gRPC status name and,
 * for A2A-specific errors and invalid params, `google.rpc.ErrorInfo` reason.
 */
type Kind = readonly [code: number, http: number, status: string, reason?: string];

const KINDS = {
  parse: [-32700, 400, "INVALID_ARGUMENT"],
  invalidRequest: [-32600, 400, "INVALID_ARGUMENT"],
  methodNotFound: [-32601, 404, "NOT_FOUND"],
  invalidParams: [-32602, 400, "INVALID_ARGUMENT", "INVALID_PARAMS"],
  internal: [-32603, 500, "INTERNAL"],
  taskNotFound: [-32001, 404, "NOT_FOUND", "TASK_NOT_FOUND"],
  taskNotCancelable: [-32002, 409, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE"],
  pushNotSupported: [-32003, 400, "UNIMPLEMENTED", "PUSH_NOTIFICATION_NOT_SUPPORTED"],
  unsupportedOperation: [-32004, 400, "UNIMPLEMENTED", "UNSUPPORTED_OPERATION"],
  contentType: [-32005, 415, "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED"],
  invalidAgentResponse: [-32006, 502, "INTERNAL", "INVALID_AGENT_RESPONSE"],
  extendedCardNotConfigured: [
    -32007,
    400,
    "FAILED_PRECONDITION",
    "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
  ],
  extensionRequired: [-32008, 400, "FAILED_PRECONDITION", "EXTENSION_SUPPORT_REQUIRED"],
  versionNotSupported: [-32009, 400, "UNIMPLEMENTED", "VERSION_NOT_SUPPORTED"],
} as const satisfies Record<string, Kind>;

/** The name of an error kind the gateway answers with. */
export type ErrorKind = keyof typeof KINDS;

/** Whether `kind` names an error kind (read back from another instance's reply). */
export function isErrorKind(kind: unknown): kind is ErrorKind {
  return typeof kind === "string" && Object.hasOwn(KINDS, kind);
}

/** What a {@linkcode GatewayError} may carry besides its kind and message. */
type GatewayErrorOptions = { metadata?: Record<string, string>; httpStatus?: number };

/**
 * An error to answer a request with. `metadata` lands in the ErrorInfo
 * (string values, as `google.rpc.ErrorInfo` requires). Not an `Error`: it is
 * an answer to a client, not a bug, and a stack trace would cost more than
 * the rest of the error response.
 */
export class GatewayError {
  readonly name = "GatewayError";
  readonly kind: ErrorKind;
  readonly message: string;
  readonly metadata: Readonly<Record<string, string>> | undefined;
  /** Override of the HTTP status (401, 405, 408, 413, 429, 503). */
  readonly httpStatus: number | undefined;
  constructor(
    kind: ErrorKind,
    message: string,
    options: GatewayErrorOptions = {},
  ) {
    this.kind = kind;
    this.message = message;
    this.metadata = options.metadata;
    this.httpStatus = options.httpStatus;
  }
}

/**
 * A -32603 internal error (HTTP 500 unless `options.httpStatus` says 503):
 * the gateway's own failure, or it cannot serve now.
 */
export function internalError(message: string, options?: GatewayErrorOptions): GatewayError {
  return new GatewayError("internal", message, options);
}

/** A -32602 refusal: `message` after the "Invalid params: " every such refusal starts with. */
export function invalidParams(message: string, options?: GatewayErrorOptions): GatewayError {
  return new GatewayError("invalidParams", `Invalid params: ${message}`, options);
}

/**
 * Refuse a client's string that a store keeps or compares as text: NUL
 * (U+0000) is no character PostgreSQL's text holds (it failed there as an
 * internal error), and a lone surrogate half reaches it as U+FFFD, so two
 * different context ids would have become one.
 */
export function assertStorableText(value: string | undefined, name: string): void {
  if (value === undefined) return;
  if (value.includes("\0")) throw invalidParams(`${name} must not contain NUL (U+0000)`);
  if (/\p{Cs}/u.test(value)) {
    throw invalidParams(`${name} must be well-formed Unicode (it holds a lone surrogate)`);
  }
}

/** A -32600 refusal of the request itself: `message` after "Invalid request: ". */
export function invalidRequest(message: string): GatewayError {
  return new GatewayError("invalidRequest", `Invalid request: ${message}`);
}

/**
 * A refusal of the request (-32600) answered with HTTP `status` (401, 408,
 * 413, 421, 429), `metadata` in its ErrorInfo.
 */
export function refusedWith(
  status: number,
  message: string,
  metadata?: Record<string, string>,
): GatewayError {
  return new GatewayError("invalidRequest", message, { httpStatus: status, metadata });
}

/** A refusal beyond one of the gateway's caps: HTTP 429, `reason` in its ErrorInfo. */
export function tooMany(message: string, reason: string): GatewayError {
  return refusedWith(429, message, { reason });
}

/** A -32004 refusal: `message` after "Unsupported operation: ". */
export function unsupportedOperation(message: string): GatewayError {
  return new GatewayError("unsupportedOperation", `Unsupported operation: ${message}`);
}

/** The error for a push request to a gateway without push (the bindings' and the engine's). */
export function pushNotSupported(): GatewayError {
  return new GatewayError(
    "pushNotSupported",
    "Push notifications are not supported (capabilities.pushNotifications is false); stream or poll",
  );
}

/** The refusal of a gateway shutting down: its own class, told apart without reading its message. */
export class ShuttingDownError extends GatewayError {}

/** HTTP 503: the gateway is shutting down (or its scope is), so it takes no new work. */
export function shuttingDown(): GatewayError {
  return new ShuttingDownError("internal", "The gateway is shutting down", { httpStatus: 503 });
}

const ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";
const DOMAIN = "a2a-protocol.org";

function errorInfo(error: GatewayError): Record<string, unknown>[] {
  const kind: Kind = KINDS[error.kind];
  // A2A's own reason, else one the error names (TOO_MANY_TASKS, SLOW_CONSUMER, …).
  const reason = kind[3] ?? error.metadata?.reason;
  if (!reason) return [];
  const info: Record<string, unknown> = {
    "@type": ERROR_INFO,
    reason,
    domain: DOMAIN,
  };
  if (error.metadata) info.metadata = error.metadata;
  return [info];
}

/** The HTTP status an error answers with in the HTTP+JSON binding. */
export function httpStatusOf(error: GatewayError): number {
  return error.httpStatus ?? KINDS[error.kind][1];
}

/** The JSON-RPC `error` member for `error`. */
export function jsonRpcError(error: GatewayError): Record<string, unknown> {
  const out: Record<string, unknown> = { code: KINDS[error.kind][0], message: error.message };
  const data = errorInfo(error);
  if (data.length) out.data = data;
  return out;
}

/** The `google.rpc.Status` body (`{error: {code, status, message, details}}`) for `error`. */
export function restErrorBody(error: GatewayError): Record<string, unknown> {
  const status = httpStatusOf(error);
  let name: string = KINDS[error.kind][2];
  if (status === 401) name = "UNAUTHENTICATED";
  else if (status === 413 || status === 429) name = "RESOURCE_EXHAUSTED";
  else if (status === 408) name = "DEADLINE_EXCEEDED";
  else if (status === 503) name = "UNAVAILABLE";
  return {
    error: { code: status, status: name, message: error.message, details: errorInfo(error) },
  };
}

/** The error to answer for anything thrown while handling a request: a bug is logged and hidden. */
export function toGatewayError(
  error: unknown,
  logger: { error(message: string, error?: unknown): void },
): GatewayError {
  if (error instanceof GatewayError) return error;
  logger.error("A request failed unexpectedly", error);
  return internalError("Internal error");
}
