import type { JsonValue } from "@seam/host";

/** What the model is told about a subagent tool: derived from the bound provider. */
export interface SubagentToolWording {
  /** The tool's description. */
  readonly description: string;
  /** The description of the `prompt` parameter. */
  readonly prompt: string;
  /** The description of the `description` parameter (the task's short label). */
  readonly label: string;
}

const PARALLEL = "To run independent tasks in parallel, call this tool several times in one step.";

const LABEL = "A short label for the task (3-6 words), shown while the child works.";

const FRESH: SubagentToolWording = Object.freeze({
  description: "Delegate a task to a subagent: a fresh child agent that works on it on its own " +
    "and returns its final answer as this tool's result. The child does not see this " +
    "conversation, only the prompt you give it, so the prompt must be self-contained: state " +
    "the goal, every fact, name and constraint it needs, and what its answer should contain. " +
    PARALLEL,
  prompt: "The complete task for the child. It does not see this conversation, so make the " +
    "prompt self-contained: the goal, all the context it needs, and what to return.",
  label: LABEL,
});

const INHERITING: SubagentToolWording = Object.freeze({
  description: "Delegate a task to a subagent: a child agent that already sees the completed " +
    "turns of this conversation (everything before the current request), works on the task on " +
    "its own and returns its final answer as this tool's result. Because it shares that " +
    "context, the prompt should state only what is new: the task itself and anything from the " +
    "current turn it needs; do not repeat earlier context. " + PARALLEL,
  prompt: "What the child should do now. It already sees the completed turns of this " +
    "conversation, so state only what is new: the task, and anything from the current turn " +
    "it needs.",
  label: LABEL,
});

/**
 * The wording of a subagent tool bound to a provider whose child does
 * (`inheritsParentContext: true`, e.g. `fork`) or does not (`spawn`, `acp`)
 * see the parent's conversation. A fresh child is told the task must be
 * self-contained; an inheriting child that it already sees the completed
 * turns, so the prompt states only what is new.
 *
 * @param inheritsParentContext The bound provider's `inheritsParentContext`.
 * @returns The frozen wording for the tool and both of its parameters.
 *
 * @example
 * ```ts
 * import { subagentToolWording } from "@seam/tool-subagent";
 * import assert from "node:assert/strict";
 *
 * assert.match(subagentToolWording(false).prompt, /does not see this conversation/);
 * assert.match(subagentToolWording(true).prompt, /already sees the completed turns/);
 * ```
 */
export function subagentToolWording(inheritsParentContext: boolean): SubagentToolWording {
  if (typeof inheritsParentContext !== "boolean") {
    throw new TypeError(
      `Cannot word the subagent tool: inheritsParentContext must be a boolean, got ${typeof inheritsParentContext}`,
    );
  }
  return inheritsParentContext ? INHERITING : FRESH;
}

/**
 * The JSON Schema of a subagent tool's arguments: `{description, prompt}`,
 * both required. A `JsonSchema` of `@seam/host`, and mutable, so it passes
 * as any framework's JSON Schema type.
 */
export interface SubagentToolParameters {
  /** Any other keyword a caller adds (an MCP tool's `outputSchema` property goes in `properties`). */
  [keyword: string]: JsonValue;
  /** Always `"object"`. */
  type: "object";
  /** The two arguments, described by the tool's wording. */
  properties: {
    description: { type: "string"; description: string };
    prompt: { type: "string"; description: string };
  };
  /** Both arguments. */
  required: string[];
  /** No other argument. */
  additionalProperties: false;
}

/**
 * The arguments' JSON Schema of a subagent tool worded by `wording`: one
 * schema for the host tool, the MCP tools and the framework adapters' tools,
 * so each framework's model is asked the same thing. A fresh object on each
 * call, for callers that extend it (an MCP tool adds `outputSchema`).
 *
 * @param wording The tool's wording ({@linkcode subagentToolWording}).
 * @returns The schema, its parameter descriptions taken from `wording`.
 *
 * @example
 * ```ts
 * import { subagentToolParameters, subagentToolWording } from "@seam/tool-subagent";
 * import assert from "node:assert/strict";
 *
 * const schema = subagentToolParameters(subagentToolWording(false));
 * assert.deepEqual(schema.required, ["description", "prompt"]);
 * assert.match(schema.properties.prompt.description, /self-contained/);
 * ```
 */
export function subagentToolParameters(wording: SubagentToolWording): SubagentToolParameters {
  return {
    type: "object",
    properties: {
      description: { type: "string", description: wording.label },
      prompt: { type: "string", description: wording.prompt },
    },
    required: ["description", "prompt"],
    additionalProperties: false,
  };
}
