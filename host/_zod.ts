import { formatPath } from "./path.ts";
import type { JsonSchemaIssue } from "./json_schema.ts";
import type { JsonValue } from "./json.ts";
import { cannot } from "./_invalid.ts";

/** A zod 4 schema as far as the host needs it. */
export interface ZodSchema {
  readonly _zod: unknown;
  safeParse(value: unknown): unknown;
}

/** Whether `value` is a zod 4 schema. */
export function isZod4(value: unknown): value is ZodSchema {
  return value !== null && typeof value === "object" && "_zod" in value &&
    typeof (value as { safeParse?: unknown }).safeParse === "function";
}

/** Whether `value` looks like a zod 3 schema (unsupported). */
export function isZod3(value: unknown): boolean {
  return value !== null && typeof value === "object" && "_def" in value &&
    !("_zod" in value) && typeof (value as { safeParse?: unknown }).safeParse === "function";
}

/**
 * The JSON Schema of what the schema accepts as input, without `$schema`,
 * through the schema's own `toJSONSchema` (zod's `z.toJSONSchema`). The
 * schema's method, not an import of zod: a host (an ACP server process)
 * then starts without loading zod's ~30 core modules (bench/README.md, ACP).
 *
 * @throws {TypeError} for a zod schema without the method (zod/mini).
 */
export function zodToJsonSchema(schema: ZodSchema): Record<string, JsonValue> {
  const method = (schema as { toJSONSchema?: unknown }).toJSONSchema;
  if (typeof method !== "function") {
    cannot(
      "convert the zod schema to JSON Schema",
      "it has no toJSONSchema (zod/mini?); pass zod classic or JSON Schema",
    );
  }
  const json = method.call(schema, { io: "input" }) as Record<string, JsonValue>;
  delete json.$schema;
  return json;
}

/** Parse with zod: the parsed value, or the issues. */
export function zodValidate(
  schema: ZodSchema,
  value: unknown,
  path: string,
): { ok: true; value: unknown } | { ok: false; issues: JsonSchemaIssue[] } {
  const result = schema.safeParse(value) as {
    success: boolean;
    data?: unknown;
    error?: { issues?: { path?: PropertyKey[]; message?: string }[] };
  };
  if (result.success) return { ok: true, value: result.data };
  const issues = (result.error?.issues ?? []).map((issue) => ({
    path: formatPath(path, issue.path ?? []),
    message: String(issue.message ?? "is invalid"),
  }));
  if (issues.length === 0) issues.push({ path, message: "is invalid" });
  return { ok: false, issues };
}
