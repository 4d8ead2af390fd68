import {
  type ContentBlock,
  describe,
  frozenJsonCopy,
  isRecord,
  type JsonValue,
  type Logger,
  parseContent,
} from "@seam/host";
import { SubagentContractError } from "./errors.ts";
import { validateStructuredOutput } from "./output_schema.ts";
import { acceptUsage, type UsageBelow } from "./_usage.ts";
import {
  type OutputSchema,
  SUBAGENT_STOP_REASONS,
  type SubagentFailure,
  type SubagentResult,
  type SubagentStopReason,
  type SubagentUsage,
} from "./types.ts";
import { freeze } from "./_builtins.ts";

/** A failure code: upper-case letters, digits and `_`, starting with a letter; at most 64. */
const FAILURE_CODE = /^[A-Z][A-Z0-9_]{0,63}$/;

/** What normalizing a run's result needs to know. */
export interface ResultContext {
  readonly provider: { readonly name: string };
  readonly outputSchema: OutputSchema | undefined;
  readonly parentScope: { readonly logger: Logger };
}

/** A contract fault of provider `provider`: the error a malformed handle or result becomes. */
export function contractFault(
  provider: string,
  message: string,
  cause?: unknown,
): SubagentContractError {
  return new SubagentContractError(
    provider,
    message,
    cause === undefined ? undefined : { cause },
  );
}

/**
 * Check a provider's terminal data, copy it losslessly and freeze it: one
 * detached value shared by the caller and telemetry. An unknown field of an
 * output block is dropped and logged (it must not cost the whole output);
 * anything else malformed throws a contract fault.
 */
export function normalizeResult(
  value: unknown,
  context: ResultContext,
  id: string,
  t0: number,
  below: UsageBelow,
): SubagentResult {
  const name = context.provider.name;
  if (!isRecord(value)) {
    throw contractFault(name, `run "${id}" result must be an object, got ${describe(value)}`);
  }
  const source = value as Record<string, unknown>;
  const stopReason = source.stopReason;
  const rawOutput = source.output;
  const rawStructured = source.structured;
  const rawError = source.error;
  const rawUsage = source.usage;
  if (!SUBAGENT_STOP_REASONS.includes(stopReason as SubagentStopReason)) {
    throw contractFault(
      name,
      `run "${id}" result.stopReason must be one of ${SUBAGENT_STOP_REASONS.join(", ")}, got ${
        describe(stopReason)
      }`,
    );
  }
  let output: ContentBlock[];
  let structured: JsonValue | undefined;
  let error: SubagentFailure | undefined;
  let usage: SubagentUsage;
  try {
    const copied = frozenJsonCopy(rawOutput, "result.output");
    output = parseContent(copied, "result.output", {
      allowEmpty: true,
      onUnknownField: (block, key) =>
        context.parentScope.logger.warn(
          `Subagent provider "${name}" run "${id}": dropped the unknown field "${key}" of ${block}`,
        ),
    });
    if (!Object.isFrozen(output)) {
      // Over a frozen copy, parseContent makes only the list and some blocks
      // anew, shallowly (their values are the copy's): freezing those freezes
      // all of it, without deepFreeze's key arrays (bench/in_process.ts throughput).
      for (const block of output) freeze(block);
      freeze(output);
    }
    if (rawStructured !== undefined) {
      structured = frozenJsonCopy(rawStructured, "result.structured");
    }
    if (rawError !== undefined) error = acceptFailure(rawError);
    usage = acceptUsage(rawUsage, Date.now() - t0, below);
  } catch (cause) {
    throw contractFault(name, `run "${id}" ${(cause as Error).message}`, cause);
  }
  if (error !== undefined && stopReason === "completed") {
    throw contractFault(
      name,
      `run "${id}" returned result.error (${error.code}) with stopReason "completed"`,
    );
  }
  if (error === undefined && stopReason === "error") {
    error = freeze({
      code: "UNSPECIFIED",
      message: `the provider "${name}" reported an error without saying what went wrong`,
    });
  }
  if (structured !== undefined) {
    if (context.outputSchema === undefined) {
      throw contractFault(name, `run "${id}" returned result.structured but none was requested`);
    }
    if (stopReason !== "completed") {
      throw contractFault(
        name,
        `run "${id}" returned result.structured with stopReason "${stopReason}"`,
      );
    }
  }
  if (context.outputSchema !== undefined && stopReason === "completed") {
    if (structured === undefined) {
      throw contractFault(
        name,
        `run "${id}" completed without result.structured although an outputSchema was requested`,
      );
    }
    const issues = validateStructuredOutput(context.outputSchema, structured);
    if (issues.length > 0) {
      throw contractFault(
        name,
        `run "${id}" result.structured does not match the outputSchema: ${
          issues.map((issue) => `${issue.path} ${issue.message}`).join("; ")
        }`,
      );
    }
  }
  const result: {
    output: ContentBlock[];
    stopReason: SubagentStopReason;
    structured?: JsonValue;
    error?: SubagentFailure;
    usage: SubagentUsage;
  } = { output, stopReason: stopReason as SubagentStopReason, usage };
  if (structured !== undefined) result.structured = structured;
  if (error !== undefined) result.error = error;
  return freeze(result) as SubagentResult;
}

/**
 * A provider's `result.error`, copied and frozen: `code` and `message` are
 * required strings, `data` any JSON; other fields are dropped.
 */
function acceptFailure(value: unknown): SubagentFailure {
  if (!isRecord(value)) {
    throw new TypeError(`result.error must be an object, got ${describe(value)}`);
  }
  const { code, message, data } = value as Record<string, unknown>;
  if (typeof code !== "string" || !FAILURE_CODE.test(code)) {
    throw new TypeError(
      `result.error.code must be 1-64 upper-case letters, digits or "_" starting with a letter, got ${
        describe(code)
      }`,
    );
  }
  if (typeof message !== "string" || message === "") {
    throw new TypeError(
      `result.error.message must be a non-empty string, got ${describe(message)}`,
    );
  }
  const failure: { code: string; message: string; data?: JsonValue } = { code, message };
  if (data !== undefined) failure.data = frozenJsonCopy(data, "result.error.data");
  return freeze(failure);
}
