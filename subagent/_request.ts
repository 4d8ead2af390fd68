import {
  type ContentBlock,
  describe,
  frozenJsonCopy,
  InactiveScopeError,
  parseContent,
  type Scope,
} from "@seam/host";
import { SubagentError } from "./errors.ts";
import { assertSubagentMaxDepth } from "./max_depth.ts";
import { checkOutputSchema } from "./output_schema.ts";
import type {
  RegisteredSubagentProvider,
  SubagentAgentOptions,
  SubagentCapabilities,
  SubagentRequest,
  SubagentToolFilter,
} from "./types.ts";

const REQUEST_FIELDS = new Set([
  "prompt",
  "parent",
  "signal",
  "agentOptions",
  "outputSchema",
  "maxDepth",
  "toolFilter",
  "persona",
]);

/** The accepted request plus what the service keeps for itself. */
export interface AcceptedRequest {
  /** The frozen snapshot handed to the provider. */
  readonly request: SubagentRequest;
  /** The parent's id, read once. */
  readonly parentId: string;
  /** The parent's scope, read once. */
  readonly parentScope: Scope;
}

function invalid(message: string): never {
  throw new TypeError(`Cannot start subagent: ${message}`);
}

function unsupported(
  provider: RegisteredSubagentProvider,
  field: keyof SubagentRequest,
  capability: keyof SubagentCapabilities,
): never {
  throw new SubagentError(
    "UNSUPPORTED_CAPABILITY",
    `Cannot start subagent: provider "${provider.name}" does not support request.${field} (capabilities.${capability} is false)`,
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Content given to `sendMessage`/`resume`: copied, checked, frozen. */
export function acceptContent(
  value: unknown,
  path: string,
): readonly ContentBlock[] {
  if (typeof value === "string") {
    // The common case, built frozen: one text block.
    if (value === "") parseContent(value, path);
    return Object.freeze([Object.freeze({ type: "text" as const, text: value })]);
  }
  return parseContent(frozenJsonCopy(value, path), path);
}

/**
 * Read every caller field once, check capabilities (in the order
 * outputSchema, maxDepth, toolFilter, persona) and then values, and build
 * the frozen snapshot. Nothing of the caller's is frozen or mutated.
 */
export function acceptRequest(
  provider: RegisteredSubagentProvider,
  input: unknown,
): AcceptedRequest {
  if (!isRecord(input)) {
    invalid(`request must be an object, got ${describe(input)}`);
  }
  for (const key of Object.keys(input)) {
    if (!REQUEST_FIELDS.has(key)) {
      invalid(
        `unknown request field "${key}" (known: ${[...REQUEST_FIELDS].join(", ")})`,
      );
    }
  }
  // Each field read once, in this order; then capabilities, then values.
  const { prompt, parent, signal, agentOptions, outputSchema, maxDepth, toolFilter, persona } =
    input as Partial<Record<keyof SubagentRequest, unknown>>;
  const capabilities = provider.capabilities;
  if (outputSchema !== undefined && !capabilities.outputSchema) {
    unsupported(provider, "outputSchema", "outputSchema");
  }
  if (maxDepth !== undefined && !capabilities.depthLimit) {
    unsupported(provider, "maxDepth", "depthLimit");
  }
  if (toolFilter !== undefined && !capabilities.toolFilter) {
    unsupported(provider, "toolFilter", "toolFilter");
  }
  if (persona !== undefined && !capabilities.persona) {
    unsupported(provider, "persona", "persona");
  }

  if (!isRecord(parent)) {
    invalid(`request.parent must be an agent, got ${describe(parent)}`);
  }
  const parentId = parent.id;
  if (typeof parentId !== "string" || parentId === "") {
    invalid(
      `request.parent.id must be a non-empty string, got ${describe(parentId)}`,
    );
  }
  const parentScope = parent.scope as Scope;
  if (
    !isRecord(parentScope) || typeof parentScope.emit !== "function" ||
    typeof parentScope.onDispose !== "function"
  ) {
    invalid(
      `request.parent.scope must be a Scope, got ${describe(parentScope)}`,
    );
  }
  if (!parentScope.active) {
    throw new InactiveScopeError(
      "start a subagent",
      parentScope.label,
      parentScope.state,
    );
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    invalid(`request.signal must be an AbortSignal, got ${describe(signal)}`);
  }

  const request: Record<string, unknown> = {
    prompt: acceptContent(prompt, "request.prompt"),
    parent,
  };
  if (signal !== undefined) request.signal = signal;
  if (agentOptions !== undefined) {
    request.agentOptions = acceptAgentOptions(agentOptions);
  }
  if (outputSchema !== undefined) {
    const schema = frozenJsonCopy(outputSchema, "request.outputSchema");
    checkOutputSchema(schema, "request.outputSchema");
    request.outputSchema = schema;
  }
  if (maxDepth !== undefined) {
    assertSubagentMaxDepth(maxDepth, "request.maxDepth");
    request.maxDepth = maxDepth;
  }
  if (toolFilter !== undefined) {
    request.toolFilter = acceptToolFilter(toolFilter, "request.toolFilter");
  }
  if (persona !== undefined) {
    if (typeof persona !== "string" || persona.trim() === "") {
      invalid(
        `request.persona must be a non-empty string, got ${describe(persona)}`,
      );
    }
    request.persona = persona;
  }
  return {
    request: Object.freeze(request) as unknown as SubagentRequest,
    parentId,
    parentScope,
  };
}

function acceptAgentOptions(value: unknown): SubagentAgentOptions {
  const options = frozenJsonCopy(value, "request.agentOptions");
  if (!isRecord(options)) {
    invalid(`request.agentOptions must be an object, got ${describe(value)}`);
  }
  for (const key of Object.keys(options)) {
    if (key !== "model") {
      invalid(`unknown field request.agentOptions.${key} (known: model)`);
    }
  }
  if (
    options.model !== undefined &&
    (typeof options.model !== "string" || options.model === "")
  ) {
    invalid(
      `request.agentOptions.model must be a non-empty string, got ${describe(options.model)}`,
    );
  }
  return options as SubagentAgentOptions;
}

/**
 * Copy and check a tool filter: an object naming `allow`, `deny` or both,
 * each a list of non-empty tool names.
 */
export function acceptToolFilter(
  value: unknown,
  path: string,
): SubagentToolFilter {
  const filter = frozenJsonCopy(value, path);
  if (!isRecord(filter)) {
    invalid(`${path} must be an object, got ${describe(value)}`);
  }
  for (const key of Object.keys(filter)) {
    if (key !== "allow" && key !== "deny") {
      invalid(`unknown field ${path}.${key} (known: allow, deny)`);
    }
  }
  if (filter.allow === undefined && filter.deny === undefined) {
    invalid(`${path} must name an allow list, a deny list or both`);
  }
  for (const list of ["allow", "deny"] as const) {
    const names = filter[list];
    if (names === undefined) continue;
    if (!Array.isArray(names)) {
      invalid(`${path}.${list} must be an array of tool names`);
    }
    names.forEach((name, i) => {
      if (typeof name !== "string" || name === "") {
        invalid(
          `${path}.${list}[${i}] must be a non-empty tool name, got ${describe(name)}`,
        );
      }
    });
  }
  return filter as SubagentToolFilter;
}
