/** The errors the gateway answers with, and their wire forms in both bindings (A2A §5.4). */

/** An A2A error kind: its JSON-RPC code, HTTP status, gRPC status name and ErrorInfo reason. */
interface Kind {
  readonly code: number;
  readonly http: number;
  readonly status: string;
  /** The `google.rpc.ErrorInfo` reason (A2A-specific errors and invalid params). */
  readonly reason?: string;
}

const KINDS = {
  parse: { code: -32700, http: 400, status: "INVALID_ARGUMENT" },
  invalidRequest: { code: -32600, http: 400, status: "INVALID_ARGUMENT" },
  methodNotFound: { code: -32601, http: 404, status: "NOT_FOUND" },
  invalidParams: { code: -32602, http: 400, status: "INVALID_ARGUMENT", reason: "INVALID_PARAMS" },
  internal: { code: -32603, http: 500, status: "INTERNAL" },
  taskNotFound: { code: -32001, http: 404, status: "NOT_FOUND", reason: "TASK_NOT_FOUND" },
  taskNotCancelable: {
    code: -32002,
    http: 409,
    status: "FAILED_PRECONDITION",
    reason: "TASK_NOT_CANCELABLE",
  },
  pushNotSupported: {
    code: -32003,
    http: 400,
    status: "UNIMPLEMENTED",
    reason: "PUSH_NOTIFICATION_NOT_SUPPORTED",
  },
  unsupportedOperation: {
    code: -32004,
    http: 400,
    status: "UNIMPLEMENTED",
    reason: "UNSUPPORTED_OPERATION",
  },
  contentType: {
    code: -32005,
    http: 415,
    status: "INVALID_ARGUMENT",
    reason: "CONTENT_TYPE_NOT_SUPPORTED",
  },
  invalidAgentResponse: {
    code: -32006,
    http: 502,
    status: "INTERNAL",
    reason: "INVALID_AGENT_RESPONSE",
  },
  extendedCardNotConfigured: {
    code: -32007,
    http: 400,
    status: "FAILED_PRECONDITION",
    reason: "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
  },
  extensionRequired: {
    code: -32008,
    http: 400,
    status: "FAILED_PRECONDITION",
    reason: "EXTENSION_SUPPORT_REQUIRED",
  },
  versionNotSupported: {
    code: -32009,
    http: 400,
    status: "UNIMPLEMENTED",
    reason: "VERSION_NOT_SUPPORTED",
  },
} as const satisfies Record<string, Kind>;

/** The name of an error kind the gateway answers with. */
export type ErrorKind = keyof typeof KINDS;

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
    options: { metadata?: Record<string, string>; httpStatus?: number } = {},
  ) {
    this.kind = kind;
    this.message = message;
    this.metadata = options.metadata;
    this.httpStatus = options.httpStatus;
  }
}

/** A -32602 refusal: `message` after the "Invalid params: " every such refusal starts with. */
export function invalidParams(
  message: string,
  options?: { metadata?: Record<string, string>; httpStatus?: number },
): GatewayError {
  return new GatewayError("invalidParams", `Invalid params: ${message}`, options);
}

const ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";
const DOMAIN = "a2a-protocol.org";

function errorInfo(error: GatewayError): Record<string, unknown>[] {
  const kind: Kind = KINDS[error.kind];
  // A2A's own reason, else one the error names (TOO_MANY_TASKS, SLOW_CONSUMER, …).
  const reason = kind.reason ?? error.metadata?.reason;
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
  return error.httpStatus ?? KINDS[error.kind].http;
}

/** The JSON-RPC `error` member for `error`. */
export function jsonRpcError(error: GatewayError): Record<string, unknown> {
  const out: Record<string, unknown> = { code: KINDS[error.kind].code, message: error.message };
  const data = errorInfo(error);
  if (data.length) out.data = data;
  return out;
}

/** The `google.rpc.Status` body (`{error: {code, status, message, details}}`) for `error`. */
export function restErrorBody(error: GatewayError): Record<string, unknown> {
  const status = httpStatusOf(error);
  let name: string = KINDS[error.kind].status;
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
  return new GatewayError("internal", "Internal error");
}
