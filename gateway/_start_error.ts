/** How an error thrown while a task starts its run becomes the A2A error answered: by class. */
import { InactiveScopeError, JsonCopyError } from "@seam/host";
import {
  OutputSchemaError,
  SubagentContractError,
  SubagentDepthError,
  SubagentError,
} from "@seam/subagent";
import { GatewayError } from "./_errors.ts";

/**
 * The A2A error for a start that failed: the service's typed errors by
 * class, a provider's contract fault as an internal error (the provider's
 * bug, not the caller's), any other `TypeError`/`RangeError` as invalid
 * params (a provider refusing the request's values), anything else
 * internal.
 */
export function startError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  if (error instanceof SubagentError) {
    if (error.code === "UNSUPPORTED_CAPABILITY") {
      return new GatewayError("unsupportedOperation", error.message, {
        metadata: { seamCode: "UNSUPPORTED_CAPABILITY" },
      });
    }
    return new GatewayError("invalidParams", error.message, { metadata: { seamCode: error.code } });
  }
  if (error instanceof SubagentDepthError) {
    return new GatewayError("invalidParams", error.message, {
      metadata: {
        seamCode: error.code,
        depth: String(error.depth),
        maxDepth: String(error.maxDepth),
      },
    });
  }
  if (error instanceof InactiveScopeError) {
    return new GatewayError("internal", "The gateway is shutting down", { httpStatus: 503 });
  }
  if (error instanceof SubagentContractError) {
    return new GatewayError("internal", "Internal error: the run could not start", {
      metadata: { seamCode: error.code, cause: error.message.slice(0, 200) },
    });
  }
  if (
    error instanceof OutputSchemaError || error instanceof JsonCopyError ||
    error instanceof TypeError || error instanceof RangeError
  ) {
    return new GatewayError("invalidParams", error.message);
  }
  return new GatewayError("internal", "Internal error: the run could not start", {
    metadata: { cause: error instanceof Error ? error.message.slice(0, 200) : String(error) },
  });
}
