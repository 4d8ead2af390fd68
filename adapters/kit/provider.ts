import { describe, isRecord, refuseUnknownOptions } from "@seam/host";
import type {
  SubagentCapabilities,
  SubagentInputAsk,
  SubagentProvider,
  SubagentRequest,
  SubagentRunHandle,
} from "@seam/subagent";
import { type FrameworkDriver, startFrameworkRun } from "./run.ts";

/** A framework's agent as a seam provider: see {@linkcode createFrameworkProvider}. */
export interface FrameworkProviderSpec {
  /** The provider's name, also its runs' id prefix. */
  readonly name: string;
  /** The framework, for messages (`OpenAI Agents`, `LangGraph`, `Mastra`). */
  readonly framework: string;
  /** What the mapping honours of a request. */
  readonly capabilities: SubagentCapabilities;
  /** Drives one run (see {@linkcode startFrameworkRun}). */
  readonly drive: FrameworkDriver;
}

/**
 * The provider of a framework adapter: each `start` is
 * {@linkcode startFrameworkRun} with `spec.drive`; a framework's agent
 * starts with no parent context (`inheritsParentContext: false`).
 *
 * @example
 * ```ts
 * import { createFrameworkProvider } from "@seam/adapter-kit";
 * import assert from "node:assert/strict";
 *
 * const provider = createFrameworkProvider({
 *   name: "echo",
 *   framework: "Echo",
 *   capabilities: { outputSchema: false, depthLimit: true, toolFilter: false, persona: false },
 *   drive: (run) => Promise.resolve({ output: String(run.request.prompt), stopReason: "completed" }),
 * });
 * assert.equal(provider.inheritsParentContext, false);
 * ```
 */
export function createFrameworkProvider(spec: FrameworkProviderSpec): SubagentProvider {
  refuseUnknownOptions(
    `create the ${spec?.framework} provider`,
    spec,
    [
      "name",
      "framework",
      "capabilities",
      "drive",
    ] satisfies (keyof FrameworkProviderSpec)[],
  );
  const { name, framework, capabilities, drive } = spec;
  return {
    name,
    capabilities,
    inheritsParentContext: false,
    start: (request: SubagentRequest): SubagentRunHandle =>
      startFrameworkRun(request, drive, { framework, idPrefix: name }),
  };
}

/** What {@linkcode checkProviderOptions} found, and how to refuse the rest of the options. */
export interface ProviderOptionsCheck {
  /** `options.name`, or the default name. */
  readonly name: string;
  /**
   * Refuse the options.
   *
   * @throws {TypeError} always: `Cannot create the <framework> provider: <problem>`.
   */
  fail(problem: string): never;
  /**
   * `value`, when it is absent or a positive whole number.
   *
   * @throws {TypeError} naming `options.<key>` otherwise.
   */
  positiveInteger(key: string, value: unknown): number | undefined;
}

/**
 * The checks a framework provider's options start with: an object, only
 * `known` keys, a non-empty `name` (default `defaultName`); the rest is the
 * adapter's, through the returned `fail`.
 *
 * @throws {TypeError} `Cannot create the <framework> provider: …`, naming the option.
 *
 * @example
 * ```ts
 * import { checkProviderOptions } from "@seam/adapter-kit";
 * import assert from "node:assert/strict";
 *
 * const check = checkProviderOptions("Echo", { maxSteps: 3 }, ["name", "maxSteps"], "echo");
 * assert.equal(check.name, "echo");
 * assert.equal(check.positiveInteger("maxSteps", 3), 3);
 * assert.throws(
 *   () => checkProviderOptions("Echo", { steps: 3 }, ["name"], "echo"),
 *   /Cannot create the Echo provider: unknown option steps \(known: name\)/,
 * );
 * ```
 */
export function checkProviderOptions(
  framework: string,
  options: unknown,
  known: readonly string[],
  defaultName: string,
): ProviderOptionsCheck {
  const fail = (problem: string): never => {
    throw new TypeError(`Cannot create the ${framework} provider: ${problem}`);
  };
  if (!isRecord(options)) fail(`options must be an object, got ${describe(options)}`);
  refuseUnknownOptions(`create the ${framework} provider`, options as object, known);
  const { name = defaultName } = options as { name?: unknown };
  if (typeof name !== "string" || name === "") {
    fail(`options.name must be a non-empty string, got ${describe(name)}`);
  }
  return {
    name: name as string,
    fail,
    positiveInteger(key, value) {
      if (value !== undefined && !(Number.isSafeInteger(value) && (value as number) > 0)) {
        fail(`options.${key} must be a positive integer, got ${describe(value)}`);
      }
      return value as number | undefined;
    },
  };
}

/**
 * The seam question for a framework's request for input (an interrupt's or a
 * suspended tool's value): the value if it is a string, else the first of
 * its `keys` holding a string, else `otherwise`; bounded to 4,000
 * characters.
 *
 * @example
 * ```ts
 * import { questionOf } from "@seam/adapter-kit";
 * import assert from "node:assert/strict";
 *
 * const ask = questionOf({ question: "Which city?" }, ["question", "message"], () => "?");
 * assert.deepEqual(ask, { kind: "question", message: "Which city?" });
 * ```
 */
export function questionOf(
  value: unknown,
  keys: readonly string[],
  otherwise: () => string,
): SubagentInputAsk {
  const key = isRecord(value) ? keys.find((key) => typeof value[key] === "string") : undefined;
  const text = typeof value === "string"
    ? value
    : key !== undefined
    ? (value as Record<string, string>)[key]
    : otherwise();
  return { kind: "question", message: text.slice(0, MAX_QUESTION) || "(empty question)" };
}

const MAX_QUESTION = 4_000;
