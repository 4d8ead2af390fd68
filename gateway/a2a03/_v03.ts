/**
 * A2A 0.3 beside 1.0: the hooks the 1.0 bindings call
 * (`BindingContext.v03`), by the version a request speaks
 * (`_v03_version.ts`).
 */
import type { BindingContext, V03Bindings } from "../http/_binding.ts";
import { GatewayError } from "../core/_errors.ts";
import { handleV03JsonRpc, V03_METHODS } from "./_v03_jsonrpc.ts";
import { handleV03Rest, isV03Route } from "./_v03_rest.ts";
import { versionClaim } from "./_v03_version.ts";

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
