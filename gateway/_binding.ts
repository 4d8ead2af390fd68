/** What both bindings share: the operations, who is calling, and how bodies are read. */
import type { Logger } from "@seam/host";
import type { BearerAuth } from "./_auth.ts";
import type { BodyLimits } from "./_body.ts";
import { GatewayError } from "./_errors.ts";
import type { Operations } from "./_operations.ts";

/** The parts of the gateway a binding answers from. */
export interface BindingContext {
  readonly operations: Operations;
  readonly auth: BearerAuth | undefined;
  readonly body: BodyLimits;
  readonly logger: Logger;
  /** Whether the gateway is closing (every request then answers 503). */
  readonly closed: () => boolean;
}

/** Refuse requests once the gateway is closing. */
export function assertOpen(context: BindingContext): void {
  if (context.closed()) {
    throw new GatewayError("internal", "The gateway is closed", { httpStatus: 503 });
  }
}

/** The caller's principal (`undefined` when auth is off). */
export function principalOf(
  context: BindingContext,
  request: Request,
): Promise<string | undefined> | undefined {
  return context.auth?.principalOf(request);
}
