import {
  type ContentBlock,
  describe,
  frozenJsonCopy,
  InactiveScopeError,
  isRecord,
  type Scope,
} from "@seam/host";
import { acceptContent } from "./_content.ts";
import { SubagentError } from "./errors.ts";
import { cannot } from "./_invalid.ts";
import { SUBAGENT_START_FIELDS, unsupportedStartFields } from "./start_fields.ts";
import type { LiveRunCell, RunContext } from "./_run.ts";
import type {
  OutputSchema,
  RegisteredSubagentProvider,
  SubagentAgentOptions,
  SubagentRequest,
  SubagentRunPlace,
  SubagentStartRequest,
} from "./types.ts";
import { delegationContextKey } from "./delegation.ts";
import type { RunNode } from "./_usage.ts";
import { BudgetLedger } from "./_budget.ts";
import { acceptBudget } from "./budget.ts";
import { freeze } from "./_builtins.ts";

const REQUEST_FIELDS = new Set([
  "prompt",
  "parent",
  "signal",
  "agentOptions",
  "outputSchema",
  "maxDepth",
  "toolFilter",
  "persona",
  "budget",
  "label",
]);

/** The longest `label` a request may carry. */
const MAX_LABEL = 200;

/**
 * The accepted request plus what the service keeps for itself: also the
 * run's {@linkcode RunContext} (one object per start for both).
 */
export interface AcceptedRequest extends RunContext {
  /** The frozen snapshot handed to the provider. */
  readonly request: SubagentRequest;
  /** The run's budget account, when a budget applies (checked, not yet committed). */
  readonly budget: BudgetLedger | undefined;
}

/** The refusal of what `provider` cannot honour (its `capability` is false). */
function unsupportedBy(
  provider: RegisteredSubagentProvider,
  what: string,
  capability: string,
): SubagentError {
  return new SubagentError(
    "UNSUPPORTED_CAPABILITY",
    `Cannot start subagent: provider "${provider.name}" does not support ${what} (capabilities.${capability} is false)`,
  );
}

function invalid(message: string): never {
  cannot("start subagent", message);
}

/**
 * Read every caller field once, check capabilities (in the order
 * outputSchema, maxDepth, toolFilter, persona) and then values, and build
 * the frozen snapshot. Nothing of the caller's is frozen or mutated.
 */
export function acceptRequest(
  provider: RegisteredSubagentProvider,
  input: unknown,
  places: Map<string, LiveRunCell>,
  runs: Set<LiveRunCell>,
): AcceptedRequest {
  if (!isRecord(input)) {
    invalid(`request must be an object, got ${describe(input)}`);
  }
  // for-in (own keys first, in Object.keys' order) allocates no key array.
  for (const key in input) {
    if (!REQUEST_FIELDS.has(key) && Object.hasOwn(input, key)) {
      invalid(
        `unknown request field "${key}" (known: ${[...REQUEST_FIELDS].join(", ")})`,
      );
    }
  }
  // Each field read once, in this order; then capabilities, then values.
  const {
    prompt,
    parent,
    signal,
    agentOptions,
    outputSchema,
    maxDepth,
    toolFilter,
    persona,
    budget,
    label,
  } = input as Partial<Record<keyof SubagentStartRequest, unknown>>;
  // Most requests use none of the start-time fields: skip the table for them.
  // (The budget is checked below, with the parent run's.)
  const startFields = outputSchema !== undefined || maxDepth !== undefined ||
      toolFilter !== undefined || persona !== undefined
    ? { outputSchema, maxDepth, toolFilter, persona, budget: undefined }
    : undefined;
  const unsupported = startFields && unsupportedStartFields(provider.capabilities, startFields)[0];
  if (unsupported) {
    throw unsupportedBy(provider, `request.${unsupported.field}`, unsupported.capability);
  }
  const parentId = isRecord(parent) ? parent.id : undefined;
  const above = typeof parentId === "string" ? places.get(parentId)?.node : undefined;
  // A budget applies when the request asks for one or its parent run has one.
  if ((budget !== undefined || above?.budget !== undefined) && !provider.capabilities.budget) {
    throw unsupportedBy(
      provider,
      budget !== undefined
        ? "request.budget"
        : `the budget its parent run "${parentId}" passes down to every child`,
      "budget",
    );
  }

  if (!isRecord(parent)) {
    invalid(`request.parent must be an agent, got ${describe(parent)}`);
  }
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
  if (
    label !== undefined &&
    (typeof label !== "string" || label === "" || label.length > MAX_LABEL)
  ) {
    invalid(
      `request.label must be a non-empty string of at most ${MAX_LABEL} characters, got ${
        typeof label === "string" ? `${label.length} characters` : describe(label)
      }`,
    );
  }

  const request: Record<string, unknown> = {
    prompt: acceptContent(prompt, "request.prompt"),
    parent,
  };
  if (signal !== undefined) request.signal = signal;
  if (label !== undefined) request.label = label;
  if (agentOptions !== undefined) {
    request.agentOptions = acceptAgentOptions(agentOptions);
  }
  if (startFields) {
    for (const spec of SUBAGENT_START_FIELDS) {
      const value = startFields[spec.field];
      if (value !== undefined) request[spec.field] = spec.accept(value, `request.${spec.field}`);
    }
  }
  let ledger: BudgetLedger | undefined;
  if (budget !== undefined || above?.budget !== undefined) {
    ledger = BudgetLedger.plan(
      budget === undefined ? undefined : acceptBudget(budget, "request.budget"),
      above?.budget,
    );
    request.budget = ledger!.limits;
    request.budgetMeter = ledger!.meter;
  }
  const place = placeOf(parentId, parentScope, provider.name, label as string | undefined, above);
  request.place = place;
  return {
    request: freeze(request) as unknown as SubagentRequest,
    provider,
    runs,
    parentId,
    parentScope,
    prompt: request.prompt as readonly ContentBlock[],
    outputSchema: request.outputSchema as OutputSchema | undefined,
    signal: signal as AbortSignal | undefined,
    place,
    places,
    budget: ledger,
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
 * Where a run started by `parentId` sits: under the live run of that id
 * (an in-process child's agent id is its run id), else under what the
 * parent scope's delegation context says, else at the top.
 */
function placeOf(
  parentId: string,
  parentScope: Scope,
  provider: string,
  label: string | undefined,
  node: RunNode | undefined,
): SubagentRunPlace {
  const above = node?.place;
  let parentRunId: string | undefined;
  let depth: number;
  if (above !== undefined) {
    parentRunId = parentId;
    depth = above.depth + 1;
  } else {
    const context = parentScope.inject(delegationContextKey);
    parentRunId = context?.runId;
    depth = (context?.depth ?? 0) + 1;
  }
  const place: { -readonly [K in keyof SubagentRunPlace]: SubagentRunPlace[K] } = {
    provider,
    depth,
  };
  if (parentRunId !== undefined) place.parentRunId = parentRunId;
  if (label !== undefined) place.label = label;
  return freeze(place);
}
