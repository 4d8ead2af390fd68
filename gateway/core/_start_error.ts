/**
 * How an error thrown while a task starts its run becomes the A2A error
 * answered (by class), and the provider a task starts on.
 */
import { InactiveScopeError, JsonCopyError } from "@seam/host";
import {
  OutputSchemaError,
  SubagentContractError,
  SubagentDepthError,
  SubagentError,
  type SubagentService,
} from "@seam/subagent";
import { GatewayError, internalError, invalidParams, shuttingDown } from "./_errors.ts";

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
    const kind = error.code === "UNSUPPORTED_CAPABILITY" ? "unsupportedOperation" : "invalidParams";
    return new GatewayError(kind, error.message, { metadata: { seamCode: error.code } });
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
  if (error instanceof InactiveScopeError) return shuttingDown();
  if (error instanceof SubagentContractError) {
    return notStarted({ seamCode: error.code, cause: error.message.slice(0, 200) });
  }
  if (
    error instanceof OutputSchemaError || error instanceof JsonCopyError ||
    error instanceof TypeError || error instanceof RangeError
  ) {
    return new GatewayError("invalidParams", error.message);
  }
  return notStarted({
    cause: error instanceof Error ? error.message.slice(0, 200) : String(error),
  });
}

/** An internal error: the run could not start, for the reason in `metadata`. */
function notStarted(metadata: Record<string, string>): GatewayError {
  return internalError("Internal error: the run could not start", { metadata });
}

/** The provider a task of `tenant` runs on: the one named, else `defaultProvider` (or the first). */
export function providerFor(
  subagents: SubagentService,
  defaultProvider: string | undefined,
  tenant: string | undefined,
): string {
  const none = (problem: string) =>
    invalidParams(problem, { metadata: { seamCode: "NO_PROVIDER" } });
  const registered = () => `(registered: ${subagents.list().join(", ") || "none"})`;
  if (tenant) {
    if (!subagents.getProvider(tenant)) {
      throw none(`no provider named "${tenant.slice(0, 64)}" ${registered()}`);
    }
    return tenant;
  }
  const name = defaultProvider ?? subagents.list()[0];
  if (name === undefined) throw none("no provider is registered");
  if (!subagents.getProvider(name)) {
    throw none(`the default provider "${name}" is not registered ${registered()}`);
  }
  return name;
}
