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
import type { BindingContext, V03Bindings } from "./_binding.ts";
import { GatewayError } from "./_errors.ts";
import { handleV03JsonRpc, V03_METHODS } from "./_v03_jsonrpc.ts";
import { handleV03Rest, isV03Route } from "./_v03_rest.ts";

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

/** Whether an agent card request is 0.3's (no `A2A-Version`, or 0.3). */
export function isV03CardRequest(request: Request): boolean {
  const version = request.headers.get("a2a-version")?.trim();
  return !version || V03.test(version);
}

/** The hooks that serve A2A 0.3 through the 1.0 bindings. */
export const V03_BINDINGS: V03Bindings = {
  jsonRpc(context: BindingContext, request, call) {
    const { method } = call;
    if (call.tenant !== undefined) {
      // A provider's own 0.3 address: 0.3 whatever the header says, but a 1.0 claim is refused.
      if (versionClaim(request, undefined) === "1.0") {
        throw new GatewayError(
          "versionNotSupported",
          `Version not supported: ${request.method} ${
            new URL(request.url).pathname.slice(0, 100)
          } is a provider's A2A 0.3 JSON-RPC address; A2A 1.0 JSON-RPC is at the gateway's base with params.tenant`,
          { metadata: { requestedVersion: "1.0", supportedVersions: "0.3" } },
        );
      }
      return handleV03JsonRpc(context, request, call);
    }
    const claim = versionClaim(request, undefined);
    if (claim === "1.0" || (claim === "none" && call.v1)) {
      if (!call.v1 && V03_METHODS.has(method)) {
        throw new GatewayError(
          "methodNotFound",
          `Method not found: "${method}" is an A2A 0.3 method and this request says A2A-Version 1.0 (send it without the header or with A2A-Version: 0.3, or use its 1.0 name)`,
        );
      }
      return undefined;
    }
    if (claim === "none" && !V03_METHODS.has(method)) {
      throw new GatewayError(
        "methodNotFound",
        `Method not found: "${
          method.slice(0, 80)
        }" (A2A 1.0: SendMessage, SendStreamingMessage, GetTask, ListTasks, CancelTask, SubscribeToTask; A2A 0.3: message/send, message/stream, tasks/get, tasks/cancel, tasks/resubscribe)`,
      );
    }
    return handleV03JsonRpc(context, request, call);
  },
  rest(context, request, url, segs, ctx) {
    const claim = versionClaim(request, url);
    if (claim === "1.0") return undefined;
    const route = isV03Route(segs);
    if (!route && claim === "none") return undefined;
    return handleV03Rest(context, request, url, segs, ctx);
  },
};
