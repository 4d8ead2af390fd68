/**
 * The request schemas the SDK's `Server` dispatches by (its own live in
 * `@modelcontextprotocol/sdk/types.js`, whose subpath export maps to no
 * declaration file, so importing them leaves `deno doc` without types).
 * Loose: the SDK has validated the JSON-RPC envelope; the handlers check
 * what they read.
 */
import { z } from "zod";

/** `tools/list`. */
export const ListToolsRequest = z.looseObject({ method: z.literal("tools/list") });

/** `tools/call`. */
export const CallToolRequest = z.looseObject({
  method: z.literal("tools/call"),
  params: z.looseObject({
    name: z.string(),
    arguments: z.optional(z.unknown()),
    _meta: z.optional(
      z.looseObject({ progressToken: z.optional(z.union([z.string(), z.number()])) }),
    ),
  }),
});

/** A JSON-RPC error a handler throws: the SDK answers with its `code`. */
export class ProtocolError extends Error {
  /** The JSON-RPC error code. */
  readonly code: number;
  constructor(code: number, message: string) {
    super(message);
    this.code = code;
  }
}

/** JSON-RPC "invalid params". */
export const INVALID_PARAMS = -32602;

/** `elicitation/create`, as the provider's client receives it. */
export const ElicitRequest = z.looseObject({
  method: z.literal("elicitation/create"),
  params: z.looseObject({}),
});
