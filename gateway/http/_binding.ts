/** What both bindings share: the operations, who is calling, and how bodies are read. */
import type { Logger } from "@seam/host";
import type { BearerAuth } from "./_auth.ts";
import type { BodyLimits } from "./_body.ts";
import { GatewayError, internalError, pushNotSupported } from "../core/_errors.ts";
import type { Operations } from "./_operations.ts";
import type { PushService } from "../_features.ts";
import type { V03CardShape } from "./_card.ts";
import { linkSendTrace } from "./_trace.ts";
import { parseSendParams, type SendParams } from "./_validate.ts";
import { SEAM_EXTENSION_URI } from "../types.ts";

/** The parts of the gateway a binding answers from. */
export interface BindingContext {
  readonly operations: Operations;
  /** Push notifications, when configured. */
  readonly push: PushService | undefined;
  readonly auth: BearerAuth | undefined;
  readonly body: BodyLimits;
  readonly logger: Logger;
  /** Whether the gateway is closing (every request then answers 503). */
  readonly closed: () => boolean;
  /** The extended card for an authenticated request (throws -32004 when none is configured). */
  readonly extendedCard: (request: Request, v03?: V03CardShape) => unknown;
  /** The URIs of the extensions every message must activate. */
  readonly requiredExtensions: readonly string[];
  /** The A2A 0.3 bindings, when the gateway serves 0.3 clients (`a2a03`). */
  readonly v03?: V03Bindings;
  /** An A2A 0.3 method's 1.0 successor, for "method not found" (with the `a2a03` feature). */
  readonly v1MethodOf?: (method: string) => string | undefined;
  /** The push config methods of the 1.0 bindings, with `push` (`_push_bindings.ts`). */
  readonly pushBindings?: PushBindings;
}

/** Which push config method of JSON-RPC (Create and Set are one). */
export type PushMethodName = "create" | "list" | "get" | "delete";

/** The push config methods of the 1.0 bindings, part of the push feature. */
export interface PushBindings {
  /** `/tasks/{id}/pushNotificationConfigs[/{configId}]` over HTTP+JSON. */
  readonly rest: (context: BindingContext, call: RestCall) => Promise<Response>;
  /** The JSON-RPC methods. */
  readonly jsonRpc: Readonly<Record<PushMethodName, JsonRpcMethod>>;
}

/** One JSON-RPC method (as `_jsonrpc.ts` calls it). */
export type JsonRpcMethod = (
  context: BindingContext,
  call: {
    readonly params: Record<string, unknown>;
    readonly principal: string | undefined;
    readonly id: string | number | null;
    readonly ctx: unknown;
    readonly request: Request;
  },
) => Promise<Response>;

/**
 * The hooks through which the 1.0 bindings hand a request to A2A 0.3
 * (`_v03.ts`): each answers the requests that are 0.3 and `undefined` for
 * the rest, which stay 1.0.
 */
export interface V03Bindings {
  /**
   * A JSON-RPC request at the base (or, with `tenant`, at a provider's own
   * 0.3 address); `v1` tells whether `method` is a 1.0 method.
   */
  jsonRpc(
    context: BindingContext,
    request: Request,
    call: {
      readonly method: string;
      readonly params: unknown;
      readonly id: string | number | null;
      readonly v1: boolean;
      readonly ctx: unknown;
      readonly tenant?: string;
    },
  ): Promise<Response> | undefined;
  /** A request outside the JSON-RPC base; `segs` are its path segments after the base path. */
  rest(
    context: BindingContext,
    request: Request,
    url: URL,
    segs: readonly string[],
    ctx: unknown,
  ): Promise<Response> | undefined;
}

/** Refuse requests once the gateway is closing. */
export function assertOpen(context: BindingContext): void {
  if (context.closed()) {
    throw internalError("The gateway is closed", { httpStatus: 503 });
  }
}

/**
 * The caller's principal (`undefined` when auth is off). Without auth it is
 * `undefined` at once: callers skip the `await`, which still costs a promise
 * and a turn per request (bench/gateway_bench.ts "gateway.fetch SendMessage").
 */
export function principalOf(
  context: BindingContext,
  request: Request,
): Promise<string | undefined> | undefined {
  return context.auth?.principalOf(request);
}

/**
 * The push service, or the error a gateway without push answers
 * (`PushNotificationNotSupportedError`).
 */
export function pushOf(context: BindingContext): PushService {
  if (context.push) return context.push;
  throw pushNotSupported();
}

/**
 * Refuse a message that does not activate every required extension (by the
 * `A2A-Extensions` header or `message.extensions`).
 *
 * @throws {GatewayError} -32008 naming the first one missing.
 */
export function assertRequiredExtensions(
  context: BindingContext,
  request: Request,
  params: { readonly message: { readonly extensions?: readonly string[] } },
): void {
  if (context.requiredExtensions.length === 0) return;
  const header = request.headers.get("a2a-extensions") ?? "";
  const active = new Set(header.split(",").map((uri) => uri.trim()).filter(Boolean));
  for (const uri of params.message.extensions ?? []) active.add(uri);
  for (const uri of context.requiredExtensions) {
    if (!active.has(uri)) {
      throw new GatewayError(
        "extensionRequired",
        `Extension support required: this gateway requires the extension "${uri}"; activate it with the A2A-Extensions header (or message.extensions)`,
        { metadata: { extension: uri.slice(0, 200) } },
      );
    }
  }
}

/** Whether `request` activates the seam extension (its `A2A-Extensions` header names it). */
export function activatesSeam(request: Request): boolean {
  const header = request.headers.get("a2a-extensions");
  return header !== null && header.split(",").some((uri) => uri.trim() === SEAM_EXTENSION_URI);
}

/**
 * The params of a `SendMessage` (or `SendStreamingMessage`) of either 1.0
 * binding, checked: their shape, the extensions the gateway requires; and
 * the request's trace linked to them.
 *
 * @throws {GatewayError} -32602 for a bad shape, -32008 for a missing extension.
 */
export function acceptSend(context: BindingContext, request: Request, params: unknown): SendParams {
  const send = parseSendParams(params);
  assertRequiredExtensions(context, request, send);
  linkSendTrace(request, send);
  return send;
}

/** One matched HTTP+JSON request (either version). */
export interface RestCall {
  readonly request: Request;
  readonly url: URL;
  readonly tenant: string | undefined;
  /** The task id in the path, for task routes. */
  readonly id: string;
  /** The push config id in the path (`/tasks/{id}/pushNotificationConfigs/{configId}`). */
  readonly configId?: string;
  readonly principal: string | undefined;
  readonly ctx: unknown;
}
