/**
 * A2A 0.3 beside 1.0: which version a request speaks, and the hooks the 1.0
 * bindings call (`BindingContext.v03`).
 *
 * A request's version is told by its `A2A-Version` header (or query
 * parameter) and by what it asks for:
 * - `A2A-Version: 1.x` is 1.0, whatever it asks (`message/send` under it is
 *   a method 1.0 does not have; `/v1/…` is a 1.0 path with tenant `v1`);
 * - `A2A-Version: 0.3` is 0.3 (a 1.0 method or route under it is refused,
 *   naming its 0.3 counterpart);
 * - no header (or an empty one) is 0.3 as the spec says (§3.6.2) wherever
 *   0.3 and 1.0 differ: a 0.3 method name, a 0.3 route (`/v1/…`), the agent
 *   card. A 1.0 method or route without the header stays 1.0: no 0.3
 *   request has that name, so nothing a 0.3 client sends is read as 1.0;
 * - any other version is `VersionNotSupportedError` naming both.
 */
import { GatewayError } from "../core/_errors.ts";
import type { BindingContext } from "../http/_binding.ts";
import type { V03CardShape } from "../http/_card.ts";

/** What a request says about its version. */
export type VersionClaim = "none" | "0.3" | "1.0";

const V03 = /^0\.3(\.\d+)?$/;
const V10 = /^1\.0(\.\d+)?$/;

/**
 * The version a request claims (`A2A-Version` header, else its query
 * parameter).
 *
 * @throws {GatewayError} `versionNotSupported` for any version but 1.0 and 0.3.
 */
export function versionClaim(request: Request, url: URL | undefined): VersionClaim {
  let version = request.headers.get("a2a-version");
  if (version === null && url && url.search) version = url.searchParams.get("A2A-Version");
  if (version === null) return "none";
  version = version.trim();
  if (version === "") return "none";
  if (V10.test(version)) return "1.0";
  if (V03.test(version)) return "0.3";
  throw new GatewayError(
    "versionNotSupported",
    `Version not supported: A2A-Version "${
      version.slice(0, 20)
    }"; this gateway speaks A2A 1.0 and 0.3`,
    { metadata: { requestedVersion: version.slice(0, 20), supportedVersions: "1.0, 0.3" } },
  );
}

const V1_ROUTES: ReadonlySet<string> = new Set([
  "message:send",
  "message:stream",
  "tasks",
  "extendedAgentCard",
]);

/**
 * Whether a first path segment is a 1.0 HTTP+JSON route (`POST
 * /message:send/` stays 1.0 rather than a provider's 0.3 JSON-RPC address,
 * as 1.0 routes win over tenants).
 */
export function isV1Route(segment: string): boolean {
  return V1_ROUTES.has(segment);
}

/** Which card an agent card request asks for: 0.3 (no `A2A-Version`, or 0.3) or 1.0. */
export function cardShapeOf(request: Request): "0.3" | "1.0" {
  const version = request.headers.get("a2a-version")?.trim();
  return !version || V03.test(version) ? "0.3" : "1.0";
}

/** A2A 0.3 method names and their 1.0 successors, for the hint in "method not found". */
const V1_METHODS: ReadonlyMap<string, string> = new Map([
  ["message/send", "SendMessage"],
  ["message/stream", "SendStreamingMessage"],
  ["tasks/get", "GetTask"],
  ["tasks/cancel", "CancelTask"],
  ["tasks/resubscribe", "SubscribeToTask"],
  ["tasks/pushNotificationConfig/set", "CreateTaskPushNotificationConfig"],
  ["tasks/pushNotificationConfig/get", "GetTaskPushNotificationConfig"],
  ["tasks/pushNotificationConfig/list", "ListTaskPushNotificationConfigs"],
  ["tasks/pushNotificationConfig/delete", "DeleteTaskPushNotificationConfig"],
  ["agent/getAuthenticatedExtendedCard", "GetExtendedAgentCard"],
]);

/** The 1.0 successor of an A2A 0.3 method, if `method` is one. */
export function v1MethodOf(method: string): string | undefined {
  return V1_METHODS.get(method);
}

/**
 * The extended card in a 0.3 `shape`. A gateway whose card declares none
 * answers 0.3's `AuthenticatedExtendedCardNotConfiguredError` (-32007), as
 * 0.3 has no other; 1.0 answers `UnsupportedOperationError` (-32004).
 */
export function extendedCard03(
  context: BindingContext,
  request: Request,
  shape: V03CardShape,
): unknown {
  try {
    return context.extendedCard(request, shape);
  } catch (error) {
    if (!(error instanceof GatewayError) || error.kind !== "unsupportedOperation") throw error;
    throw new GatewayError(
      "extendedCardNotConfigured",
      "Extended agent card not configured: this gateway has none (capabilities.extendedAgentCard is false)",
    );
  }
}
