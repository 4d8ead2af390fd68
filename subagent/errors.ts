import { BrandedError, BrandedRangeError, BrandedTypeError } from "@seam/host";

/** The stable codes of {@linkcode SubagentError}. */
export type SubagentErrorCode =
  | "DUPLICATE_PROVIDER"
  | "NO_PROVIDER"
  | "SERVICE_DISPOSED"
  | "UNSUPPORTED_CAPABILITY";

/**
 * An error a caller of the subagent service is expected to catch and branch
 * on by `code`.
 *
 * @example
 * ```ts
 * import { SubagentError } from "@seam/subagent";
 * import assert from "node:assert/strict";
 *
 * const error = new SubagentError("NO_PROVIDER", 'Cannot start subagent: no provider "x"');
 * assert.equal(error.code, "NO_PROVIDER");
 * ```
 */
export class SubagentError extends BrandedError {
  /** Its brand: a SubagentError made by any copy of this package is recognised. */
  static override readonly brand: string = "@seam/subagent/SubagentError";
  /** What went wrong, stable across versions. */
  readonly code: SubagentErrorCode;
  /** Make an error with `code` and a message naming what was wrong. */
  constructor(
    code: SubagentErrorCode,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.code = code;
  }
}

/**
 * Thrown when a requested `outputSchema` is not an object-rooted schema in
 * the supported subset (see `checkOutputSchema`).
 */
export class OutputSchemaError extends BrandedTypeError {
  /** Its brand: a OutputSchemaError made by any copy of this package is recognised. */
  static override readonly brand: string = "@seam/subagent/OutputSchemaError";
  /** Stable code for callers that branch on it. */
  readonly code = "INVALID_OUTPUT_SCHEMA" as const;
  /** Where in the schema the problem sits (`outputSchema.properties.n.type`). */
  readonly path: string;
  /** Make the error for the schema node at `path`. */
  constructor(path: string, message: string, options?: ErrorOptions) {
    super(message, options);
    this.path = path;
  }
}

/**
 * Thrown before a child exists when it would sit deeper than the depth cap
 * allows (`maxDepth`, or a cap inherited from an ancestor).
 */
export class SubagentDepthError extends BrandedRangeError {
  /** Its brand: a SubagentDepthError made by any copy of this package is recognised. */
  static override readonly brand: string = "@seam/subagent/SubagentDepthError";
  /** Stable code for callers that branch on it. */
  readonly code = "MAX_DEPTH_EXCEEDED" as const;
  /** The depth the child would have had. */
  readonly depth: number;
  /** The cap it exceeds. */
  readonly maxDepth: number;
  /** Make the error for a child at `depth` under the cap `maxDepth`. */
  constructor(depth: number, maxDepth: number) {
    super(
      `Cannot start subagent: the child would be at depth ${depth}, above the maximum depth ${maxDepth}`,
    );
    this.depth = depth;
    this.maxDepth = maxDepth;
  }
}

/**
 * Thrown (or rejected with) when a provider breaks the run contract: a
 * malformed handle, a result that is not a result, a structured value nobody
 * asked for. It is the provider's fault, not the caller's, so a caller maps
 * it to an internal error rather than to bad input.
 *
 * @example
 * ```ts
 * import { SubagentContractError } from "@seam/subagent";
 * import assert from "node:assert/strict";
 *
 * const error = new SubagentContractError("echo", "run.id must be a non-empty string");
 * assert.ok(error instanceof TypeError);
 * assert.equal(error.provider, "echo");
 * assert.equal(error.code, "CONTRACT_VIOLATION");
 * ```
 */
export class SubagentContractError extends BrandedTypeError {
  /** Its brand: a SubagentContractError made by any copy of this package is recognised. */
  static override readonly brand: string = "@seam/subagent/SubagentContractError";
  /** Stable code for callers that branch on it. */
  readonly code = "CONTRACT_VIOLATION" as const;
  /** The provider that broke the contract. */
  readonly provider: string;
  /** Make the error for `provider`, saying what it did wrong. */
  constructor(provider: string, message: string, options?: ErrorOptions) {
    super(`Subagent provider "${provider}" broke the run contract: ${message}`, options);
    this.provider = provider;
  }
}
