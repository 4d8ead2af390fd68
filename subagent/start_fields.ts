import {
  describe,
  frozenJsonCopy,
  isRecord,
  JsonSchemaError,
  toJsonSchema,
  type ZodLikeSchema,
} from "@seam/host";
import { OutputSchemaError } from "./errors.ts";
import { assertSubagentMaxDepth } from "./max_depth.ts";
import { cannot } from "./_invalid.ts";
import { checkOutputSchema } from "./output_schema.ts";
import { acceptBudget, type SubagentBudget } from "./budget.ts";
import type { OutputSchema, SubagentCapabilities, SubagentToolFilter } from "./types.ts";
import { freeze, isArray } from "./_builtins.ts";

/**
 * The start-time capability flags, in a stable order (`budget` last: a
 * declaration may leave it out, which is `false`).
 */
export const SUBAGENT_CAPABILITY_FLAGS: readonly (keyof SubagentCapabilities)[] = freeze([
  "outputSchema",
  "depthLimit",
  "toolFilter",
  "persona",
  "budget",
]);

/** A request field checked before any child exists, and what its value is once accepted. */
export interface SubagentStartFieldValues {
  /** An object-rooted JSON Schema. */
  readonly outputSchema: OutputSchema;
  /** An absolute cap on the child's depth. */
  readonly maxDepth: number;
  /** The tools the child may use. */
  readonly toolFilter: SubagentToolFilter;
  /** The child's persona. */
  readonly persona: string;
  /** What the run and its subtree may use. */
  readonly budget: SubagentBudget;
}

/** The name of a start-time request field. */
export type SubagentStartField = keyof SubagentStartFieldValues;

/**
 * How the seam treats one start-time field: the capability a provider
 * declares to honour it, and the one checker of its values.
 */
export interface SubagentStartFieldSpec<F extends SubagentStartField = SubagentStartField> {
  /** The request field (`request.maxDepth`, a tool config's `maxDepth`, an extension's). */
  readonly field: F;
  /** The capability flag a provider needs for it. */
  readonly capability: keyof SubagentCapabilities;
  /**
   * Copy (losslessly), check and freeze a value for the field.
   *
   * @param value The candidate value (never `undefined`: absent is always fine).
   * @param path Its name in errors (`request.toolFilter`, `config.persona`).
   * @param action What fails, for the message: `Cannot <action>: …`.
   * @throws {TypeError | RangeError} naming `path` (an `OutputSchemaError` for a schema).
   */
  readonly accept: (value: unknown, path: string, action?: string) => SubagentStartFieldValues[F];
}

/**
 * Copy and check an output schema: an object-rooted JSON Schema (see
 * `checkOutputSchema`), or a zod 4 schema, converted with host's
 * `toJsonSchema` (zod's own `z.toJSONSchema`) first.
 *
 * @throws {OutputSchemaError} naming the keyword and path that are wrong
 * (for a zod schema without a JSON Schema form too).
 */
export function acceptOutputSchema(value: unknown, path = "outputSchema"): OutputSchema {
  const schema = frozenJsonCopy(isZodSchema(value) ? fromZod(value, path) : value, path);
  checkOutputSchema(schema, path);
  return schema as OutputSchema;
}

/** A zod 4 schema, recognised by its marker (as host's tool registry does). */
function isZodSchema(value: unknown): value is ZodLikeSchema {
  return isRecord(value) && "_zod" in value && typeof value.safeParse === "function";
}

function fromZod(schema: ZodLikeSchema, path: string): unknown {
  try {
    return toJsonSchema(schema, { path });
  } catch (error) {
    if (error instanceof JsonSchemaError) {
      throw new OutputSchemaError(error.path, error.message, { cause: error });
    }
    throw new OutputSchemaError(path, (error as Error).message, { cause: error });
  }
}

/**
 * Check a depth cap (see `assertSubagentMaxDepth`) and return it.
 *
 * @throws {TypeError | RangeError} naming `path`.
 */
export function acceptMaxDepth(value: unknown, path = "maxDepth"): number {
  if (value === undefined) throw new TypeError(`Invalid ${path}: expected a number, got undefined`);
  assertSubagentMaxDepth(value, path);
  return value as number;
}

/**
 * Copy and check a tool filter: an object naming `allow`, `deny` or both,
 * each a list of non-empty tool names.
 *
 * @example
 * ```ts
 * import { acceptToolFilter } from "@seam/subagent";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(acceptToolFilter({ deny: ["bash"] }), { deny: ["bash"] });
 * assert.throws(() => acceptToolFilter({}, "config.toolFilter"), /config\.toolFilter must name/);
 * ```
 */
export function acceptToolFilter(
  value: unknown,
  path = "toolFilter",
  action = "start subagent",
): SubagentToolFilter {
  if (!isRecord(value)) cannot(action, `${path} must be an object, got ${describe(value)}`);
  const filter = frozenJsonCopy(value, path) as Record<string, unknown>;
  for (const key of Object.keys(filter)) {
    if (key !== "allow" && key !== "deny") {
      cannot(action, `unknown field ${path}.${key} (known: allow, deny)`);
    }
  }
  if (filter.allow === undefined && filter.deny === undefined) {
    cannot(action, `${path} must name an allow list, a deny list or both`);
  }
  for (const list of ["allow", "deny"] as const) {
    const names = filter[list];
    if (names === undefined) continue;
    if (!isArray(names)) {
      cannot(action, `${path}.${list} must be an array of tool names, got ${describe(names)}`);
    }
    names.forEach((name, i) => {
      if (typeof name !== "string" || name === "") {
        cannot(
          action,
          `${path}.${list}[${i}] must be a non-empty tool name, got ${describe(name)}`,
        );
      }
    });
  }
  return filter as SubagentToolFilter;
}

/** Check a persona: a string with some non-space text. */
export function acceptPersona(
  value: unknown,
  path = "persona",
  action = "start subagent",
): string {
  if (typeof value !== "string" || value.trim() === "") {
    cannot(action, `${path} must be a non-empty string, got ${describe(value)}`);
  }
  return value;
}

/**
 * The start-time fields, in the order the service checks them, each with
 * its capability and its checker. Every consumer that accepts these fields
 * (the service, the tool's config, the gateway's extension, a provider
 * forwarding them) goes through this table.
 *
 * @example
 * ```ts
 * import { SUBAGENT_START_FIELDS } from "@seam/subagent";
 * import assert from "node:assert/strict";
 *
 * assert.deepEqual(
 *   SUBAGENT_START_FIELDS.map((f) => `${f.field}:${f.capability}`),
 *   [
 *     "outputSchema:outputSchema",
 *     "maxDepth:depthLimit",
 *     "toolFilter:toolFilter",
 *     "persona:persona",
 *     "budget:budget",
 *   ],
 * );
 * ```
 */
export const SUBAGENT_START_FIELDS: readonly SubagentStartFieldSpec[] = freeze([
  freeze({
    field: "outputSchema",
    capability: "outputSchema",
    accept: (value: unknown, path: string) => acceptOutputSchema(value, path),
  }) as SubagentStartFieldSpec,
  freeze({
    field: "maxDepth",
    capability: "depthLimit",
    accept: (value: unknown, path: string) => acceptMaxDepth(value, path),
  }) as SubagentStartFieldSpec,
  freeze({
    field: "toolFilter",
    capability: "toolFilter",
    accept: acceptToolFilter,
  }) as SubagentStartFieldSpec,
  freeze({
    field: "persona",
    capability: "persona",
    accept: acceptPersona,
  }) as SubagentStartFieldSpec,
  freeze({
    field: "budget",
    capability: "budget",
    accept: acceptBudget,
  }) as SubagentStartFieldSpec,
]);

/**
 * The start-time fields present in `fields` (not `undefined`) whose
 * capability `capabilities` lacks, in table order: what a provider would
 * have to refuse with `UNSUPPORTED_CAPABILITY`.
 *
 * @example
 * ```ts
 * import { unsupportedStartFields } from "@seam/subagent";
 * import assert from "node:assert/strict";
 *
 * const none = { outputSchema: false, depthLimit: false, toolFilter: false, persona: false };
 * assert.deepEqual(
 *   unsupportedStartFields(none, { maxDepth: 2, persona: "terse" }).map((f) => f.field),
 *   ["maxDepth", "persona"],
 * );
 * ```
 */
export function unsupportedStartFields(
  capabilities: SubagentCapabilities,
  fields: Partial<Record<SubagentStartField, unknown>>,
): SubagentStartFieldSpec[] {
  return SUBAGENT_START_FIELDS.filter((spec) =>
    fields[spec.field] !== undefined && !capabilities[spec.capability]
  );
}
