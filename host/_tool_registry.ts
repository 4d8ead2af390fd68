import type { Agent } from "./agent.ts";
import { type ContentBlock, describe, parseContent } from "./content.ts";
import { deepFreeze, jsonCopy } from "./json.ts";
import {
  checkJsonSchema,
  type JsonSchema,
  JsonSchemaError,
  type JsonSchemaIssue,
  toJsonSchema,
  validateJsonSchema,
} from "./json_schema.ts";
import type { ToolSpec } from "./model.ts";
import { defineService, type Scope, type ServiceKey } from "./scope.ts";
import type {
  RegisteredTool,
  Tool,
  ToolApprover,
  ToolCall,
  ToolCallContext,
  ToolErrorCode,
  ToolFilter,
  ToolGuard,
  ToolOutcome,
  ToolRegistry,
} from "./tools.ts";
import { isZod3, isZod4, type ZodSchema, zodValidate } from "./_zod.ts";
import { type ApprovalSpec, readApproval, seekApproval } from "./_tool_approval.ts";
import { isRecord, messageOf } from "./unknown.ts";
import { cannot } from "./_invalid.ts";
import { freeze, isArray } from "./_builtins.ts";

const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Where `approve` keeps a scope's approver. */
const APPROVER_KEY: ServiceKey<ToolApprover> = defineService<ToolApprover>(
  "@seam/host/tool-approver",
);

type Validate = (
  args: unknown,
) => { ok: true; value: unknown } | { ok: false; issues: JsonSchemaIssue[] };

interface Entry {
  readonly registered: RegisteredTool;
  readonly tool: object;
  readonly run: (args: unknown, call: ToolCallContext) => unknown;
  readonly validate: Validate;
  /** Set when some call needs approval. */
  readonly approval: ApprovalSpec | undefined;
}

interface Filter {
  readonly allow: ReadonlySet<string> | undefined;
  readonly deny: ReadonlySet<string> | undefined;
}

interface Level {
  tools: Map<string, Entry> | undefined;
  filters: Filter[] | undefined;
  guards: ToolGuard[] | undefined;
}

function passes(filters: readonly Filter[] | undefined, name: string): boolean {
  if (filters) {
    for (const filter of filters) {
      if (filter.allow && !filter.allow.has(name)) return false;
      if (filter.deny?.has(name)) return false;
    }
  }
  return true;
}

/** The filters from below, then `level`'s (the same array when it adds none). */
function withFilters(filters: Filter[] | undefined, level: Level): Filter[] | undefined {
  if (!level.filters || level.filters.length === 0) return filters;
  return filters ? filters.concat(level.filters) : level.filters;
}

/** The host's tool registry. */
export class ToolRegistryImpl implements ToolRegistry {
  #levels = new WeakMap<Scope, Level>();

  #level(scope: Scope): Level {
    let level = this.#levels.get(scope);
    if (!level) {
      level = { tools: undefined, filters: undefined, guards: undefined };
      this.#levels.set(scope, level);
    }
    return level;
  }

  register<A>(scope: Scope, tool: Tool<A>): () => Promise<void> {
    if (tool === null || typeof tool !== "object") {
      cannot("register a tool", `expected a tool object, got ${describe(tool)}`);
    }
    const name: unknown = tool.name;
    if (typeof name !== "string" || !TOOL_NAME.test(name)) {
      cannot("register a tool", `the name must match ${TOOL_NAME.source}, got ${describe(name)}`);
    }
    const description: unknown = tool.description;
    if (typeof description !== "string") {
      cannot(
        `register tool "${name}"`,
        `the description must be a string, got ${describe(description)}`,
      );
    }
    const execute: unknown = tool.execute;
    if (typeof execute !== "function") {
      cannot(`register tool "${name}"`, "execute must be a function");
    }
    const { parameters, validate } = compileParameters(name, tool.parameters);
    const approval = readApproval(name, tool);
    if (this.#find(scope, name)) {
      cannot(
        `register tool "${name}"`,
        `a tool with that name is already visible in scope "${scope.label}"`,
      );
    }
    const spec: ToolSpec = freeze({ name, description, parameters });
    const entry: Entry = {
      registered: freeze({ name, spec, scope }),
      tool,
      run: execute as Entry["run"],
      validate,
      approval,
    };
    const dispose = scope.onDispose(() => {
      const tools = this.#levels.get(scope)?.tools;
      if (tools?.get(name) === entry) tools.delete(name);
    });
    (this.#level(scope).tools ??= new Map()).set(name, entry);
    return dispose;
  }

  restrict(scope: Scope, filter: ToolFilter): () => Promise<void> {
    if (filter === null || typeof filter !== "object") {
      cannot("restrict tools", `expected a filter object, got ${describe(filter)}`);
    }
    const allow = readList(filter.allow, "allow");
    const deny = readList(filter.deny, "deny");
    if (!allow && !deny) {
      cannot("restrict tools", "the filter is empty (give an allow list, a deny list or both)");
    }
    const known = new Set<string>();
    for (let s: Scope | undefined = scope; s; s = s.parent) {
      const tools = this.#levels.get(s)?.tools;
      if (tools) { for (const name of tools.keys()) known.add(name); }
    }
    const unknown = [...(allow ?? []), ...(deny ?? [])].filter((name) => !known.has(name));
    if (unknown.length > 0) {
      cannot(
        "restrict tools",
        `unknown tool name${unknown.length > 1 ? "s" : ""} ${
          [...new Set(unknown)].map((n) => `"${n}"`).join(", ")
        } (known in scope "${scope.label}": ${
          known.size ? [...known].map((n) => `"${n}"`).join(", ") : "none"
        })`,
        true,
      );
    }
    const entry: Filter = freeze({
      allow: allow && new Set(allow),
      deny: deny && new Set(deny),
    });
    return this.#add(scope, "filters", entry);
  }

  guard(scope: Scope, guard: ToolGuard): () => Promise<void> {
    if (typeof guard !== "function") {
      cannot("add a tool guard", `expected a function, got ${describe(guard)}`);
    }
    return this.#add(scope, "guards", guard);
  }

  /** Add `item` to `scope`'s `list` until the scope is disposed or the returned disposer runs. */
  #add<K extends "filters" | "guards">(
    scope: Scope,
    list: K,
    item: NonNullable<Level[K]>[number],
  ): () => Promise<void> {
    const dispose = scope.onDispose(() => {
      const items: unknown[] | undefined = this.#levels.get(scope)?.[list];
      const index = items?.indexOf(item) ?? -1;
      if (index !== -1) items!.splice(index, 1);
    });
    const items: unknown[] = this.#level(scope)[list] ??= [];
    items.push(item);
    return dispose;
  }

  approve(scope: Scope, approver: ToolApprover): () => Promise<void> {
    if (typeof approver !== "function") {
      cannot("install a tool approver", `expected a function, got ${describe(approver)}`);
    }
    // A service of the scope, not an entry of #levels: the in-process
    // driver installs one per child, and a WeakMap entry per short-lived
    // scope measured slower (bench/README.md, in-process children, issue 15).
    try {
      return scope.provide(APPROVER_KEY, approver);
    } catch (error) {
      // provide() throws a TypeError only when the key is already provided here.
      if (error instanceof TypeError) {
        cannot("install a tool approver", `scope "${scope.label}" already has one`);
      }
      throw error;
    }
  }

  /** The nearest approver up from `scope`. */
  #approverOf(scope: Scope): ToolApprover | undefined {
    return scope.inject(APPROVER_KEY);
  }

  visible(scope: Scope): RegisteredTool[] {
    let groups: RegisteredTool[][] | undefined;
    let filters: Filter[] | undefined;
    for (let s: Scope | undefined = scope; s; s = s.parent) {
      const level = this.#levels.get(s);
      if (!level) continue;
      if (level.tools && level.tools.size > 0) {
        const group: RegisteredTool[] = [];
        for (const entry of level.tools.values()) {
          if (passes(filters, entry.registered.name)) group.push(entry.registered);
        }
        if (group.length > 0) (groups ??= []).push(group);
      }
      filters = withFilters(filters, level);
    }
    if (!groups) return [];
    if (groups.length === 1) return groups[0];
    const out: RegisteredTool[] = [];
    const names = new Set<string>();
    for (let i = groups.length - 1; i >= 0; i--) {
      for (const tool of groups[i]) {
        if (names.has(tool.name)) {
          cannot(
            "list tools",
            `two visible tools are named "${tool.name}" in scope "${scope.label}"`,
          );
        }
        names.add(tool.name);
        out.push(tool);
      }
    }
    return out;
  }

  /** The visible entry named `name`, nearest first. */
  #find(scope: Scope, name: string): Entry | undefined {
    let filters: Filter[] | undefined;
    for (let s: Scope | undefined = scope; s; s = s.parent) {
      const level = this.#levels.get(s);
      if (!level) continue;
      const entry = level.tools?.get(name);
      if (entry && passes(filters, name)) return entry;
      filters = withFilters(filters, level);
    }
    return undefined;
  }

  async execute(agent: Agent, call: ToolCall, signal: AbortSignal): Promise<ToolOutcome> {
    const { id: callId, name } = call;
    const scope = agent.scope;
    const entry = this.#find(scope, name);
    if (!entry) {
      let names: string;
      try {
        names = this.visible(scope).map((tool) => tool.name).join(", ") || "none";
      } catch {
        names = "unavailable";
      }
      return failure(
        callId,
        name,
        "UNKNOWN_TOOL",
        `Unknown tool "${name}". Available tools: ${names}.`,
      );
    }
    const checked = entry.validate(call.args);
    if (!checked.ok) {
      return failure(
        callId,
        name,
        "INVALID_ARGS",
        `Invalid arguments for tool "${name}":\n${
          checked.issues.map((issue) => `- ${issue.path}: ${issue.message}`).join("\n")
        }\nFix the arguments and call the tool again.`,
      );
    }
    const args = checked.value;
    for (let s: Scope | undefined = scope; s; s = s.parent) {
      const guards = this.#levels.get(s)?.guards;
      if (!guards || guards.length === 0) continue;
      for (const guard of guards.slice()) {
        let reason: string | undefined;
        try {
          let decision = guard({ agent, callId, name, args });
          if (decision && typeof (decision as Promise<unknown>).then === "function") {
            decision = await decision;
          }
          if (decision !== undefined && decision !== null) {
            const deny = (decision as { deny?: unknown }).deny;
            reason = typeof deny === "string" ? deny : "denied by a guard";
          }
        } catch (error) {
          reason = `a guard failed: ${messageOf(error)}`;
        }
        if (reason !== undefined) {
          return failure(callId, name, "DENIED", `Tool "${name}" was denied: ${reason}`);
        }
      }
    }
    if (entry.approval) {
      const unapproved = await seekApproval(
        entry.approval,
        entry.tool,
        this.#approverOf(scope),
        { agent, callId, name, args, rawInput: call.args },
        signal,
      );
      if (unapproved) return failure(callId, name, unapproved.code, unapproved.text);
    }
    if (signal.aborted) {
      return cancelled(callId, name);
    }
    let result: unknown;
    try {
      result = entry.run.call(entry.tool, args, { agent, signal, callId });
      if (result && typeof (result as Promise<unknown>).then === "function") {
        result = await result;
      }
    } catch (error) {
      if (signal.aborted) return cancelled(callId, name);
      return failure(callId, name, "TOOL_FAILED", `Tool "${name}" failed: ${messageOf(error)}`);
    }
    return normalizeResult(callId, name, result);
  }
}

function failure(
  callId: string,
  name: string,
  code: ToolErrorCode,
  text: string,
): ToolOutcome {
  return freeze({
    callId,
    name,
    content: freeze([freeze({ type: "text" as const, text })]),
    isError: true,
    stopTurn: false,
    code,
  });
}

/** The outcome of a call cancelled before it finished (`ABORTED`). */
export function cancelled(callId: string, name: string): ToolOutcome {
  return failure(callId, name, "ABORTED", `Tool "${name}" was cancelled`);
}

function normalizeResult(callId: string, name: string, result: unknown): ToolOutcome {
  try {
    if (!isRecord(result)) {
      throw new TypeError(`expected { content, isError?, stopTurn? }, got ${describe(result)}`);
    }
    const { content, isError, stopTurn } = result as Record<string, unknown>;
    if (isError !== undefined && typeof isError !== "boolean") {
      throw new TypeError(`isError must be a boolean, got ${describe(isError)}`);
    }
    if (stopTurn !== undefined && typeof stopTurn !== "boolean") {
      throw new TypeError(`stopTurn must be a boolean, got ${describe(stopTurn)}`);
    }
    let blocks: readonly ContentBlock[];
    if (typeof content === "string") {
      blocks = content === "" ? [] : [{ type: "text", text: content }];
    } else {
      blocks = parseContent(jsonCopy(content, "content"), "content", { allowEmpty: true });
    }
    return deepFreeze({
      callId,
      name,
      content: blocks,
      isError: isError === true,
      stopTurn: stopTurn === true,
    });
  } catch (error) {
    return failure(
      callId,
      name,
      "TOOL_FAILED",
      `Tool "${name}" returned an invalid result: ${messageOf(error)}`,
    );
  }
}

function readList(value: unknown, key: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!isArray(value)) {
    cannot("restrict tools", `${key} must be an array of tool names, got ${describe(value)}`);
  }
  const names: string[] = [];
  for (let i = 0; i < value.length; i++) {
    const name = value[i];
    if (typeof name !== "string" || name === "") {
      cannot("restrict tools", `${key}[${i}] must be a non-empty string, got ${describe(name)}`);
    }
    names.push(name);
  }
  return names;
}

/**
 * What a model sees of tool parameters: an object-rooted union (a
 * discriminated union) gets `type: "object"` at its root, as function-calling
 * APIs require; every value it accepts is an object, so nothing changes.
 */
function forModels(schema: JsonSchema): JsonSchema {
  return schema.type === undefined ? { type: "object", ...schema } : schema;
}

function compileParameters(
  name: string,
  parameters: unknown,
): { parameters: JsonSchema; validate: Validate } {
  const path = `tool "${name}" parameters`;
  if (isZod4(parameters)) {
    let json: JsonSchema;
    try {
      json = toJsonSchema(parameters, { path, objectRoot: true });
    } catch (error) {
      if (error instanceof JsonSchemaError && error.keyword === "type") {
        cannot(
          `register tool "${name}"`,
          "its zod schema must describe an object (z.object, or a union of them)",
        );
      }
      throw new TypeError(`Cannot register tool "${name}": ${messageOf(error)}`, { cause: error });
    }
    const schema = parameters as ZodSchema;
    return {
      parameters: deepFreeze(forModels(json)),
      validate: (args) => zodValidate(schema, args, "args"),
    };
  }
  if (isZod3(parameters)) {
    cannot(`register tool "${name}"`, "zod 3 schemas are not supported, use zod 4");
  }
  const copy = jsonCopy(parameters, path);
  checkJsonSchema(copy, { path, objectRoot: true });
  const schema = deepFreeze(copy) as JsonSchema;
  const shown = forModels(schema);
  return {
    parameters: shown === schema ? schema : deepFreeze(shown),
    validate: (args) => {
      const issues = validateJsonSchema(schema, args, "args");
      return issues.length === 0 ? { ok: true, value: args } : { ok: false, issues };
    },
  };
}
