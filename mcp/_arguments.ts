/** The checks on a call's arguments: each failure names the field. */
import type { JsonValue } from "@seam/host";
import type { CallArguments } from "./_call.ts";

const MAX_LABEL = 200;

/** The arguments, or the message saying which field is wrong. */
export function checkArguments(
  raw: unknown,
  outputSchema: boolean,
  maxPromptBytes: number,
): CallArguments | string {
  if (raw === undefined || raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    return "Invalid arguments: expected an object with description and prompt";
  }
  const args = raw as Record<string, unknown>;
  const known = outputSchema
    ? ["description", "prompt", "outputSchema"]
    : ["description", "prompt"];
  for (const key of Object.keys(args)) {
    if (!known.includes(key)) {
      return `Invalid arguments: unknown argument "${key}" (known: ${known.join(", ")})`;
    }
  }
  const { description, prompt, outputSchema: schema } = args;
  if (typeof description !== "string" || description.trim() === "") {
    return `Invalid arguments: "description" must be a non-empty string`;
  }
  if (description.length > MAX_LABEL) {
    return `Invalid arguments: "description" must be at most ${MAX_LABEL} characters (got ${description.length})`;
  }
  if (typeof prompt !== "string" || prompt.trim() === "") {
    return `Invalid arguments: "prompt" must be a non-empty string`;
  }
  // Cheap bound first: a UTF-16 unit is at most 3 UTF-8 bytes.
  if (prompt.length * 3 > maxPromptBytes) {
    const bytes = new TextEncoder().encode(prompt).length;
    if (bytes > maxPromptBytes) {
      return `Invalid arguments: "prompt" is ${bytes} bytes, more than the ${maxPromptBytes} this server takes`;
    }
  }
  if (schema !== undefined) {
    if (schema === null || typeof schema !== "object" || Array.isArray(schema)) {
      return `Invalid arguments: "outputSchema" must be a JSON Schema object`;
    }
    return { description, prompt, outputSchema: schema as Record<string, JsonValue> };
  }
  return { description, prompt };
}
