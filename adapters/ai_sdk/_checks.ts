// The checks every entry of the package shares: "Cannot <action>: <problem>"
// errors, unknown options refused by name, and the shape of an AI SDK
// language model (checked structurally: the user's `ai` may be another copy).
import { refuseUnknownOptions } from "@seam/host";

/** Throw a `TypeError` (a `RangeError` with `range`): `Cannot ${action}: ${problem}`. */
export function cannot(action: string, problem: string, range = false): never {
  const message = `Cannot ${action}: ${problem}`;
  throw range ? new RangeError(message) : new TypeError(message);
}

/** What a value is, for an error message (`a string`, `null`, `an object without doStream`). */
export function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return typeof value === "undefined" ? "undefined" : `a ${typeof value}`;
}

/**
 * Refuse `options` unless it is an object (`under` names where it sits)
 * whose keys are all `known`.
 */
export function checkOptions(
  action: string,
  options: unknown,
  known: readonly string[],
  under?: string,
): asserts options is Record<string, unknown> {
  if (options === null || typeof options !== "object" || Array.isArray(options)) {
    cannot(action, `${under ?? "options"} must be an object, got ${kindOf(options)}`);
  }
  refuseUnknownOptions(action, options, known, { under });
}

const SPEC_VERSIONS = ["v2", "v3", "v4"];

/** The AI SDK language model specification versions `ai` 7 runs. */
export function isLanguageModel(value: unknown): boolean {
  if (value === null || typeof value !== "object") return false;
  const model = value as Record<string, unknown>;
  return SPEC_VERSIONS.includes(model.specificationVersion as string) &&
    typeof model.doStream === "function" && typeof model.doGenerate === "function" &&
    typeof model.provider === "string" && typeof model.modelId === "string";
}

/** Why `value` is no language model, for an error message. */
export function notLanguageModel(value: unknown): string {
  if (typeof value === "string") {
    return `got the string "${
      value.slice(0, 100)
    }": pass a model object from an AI SDK provider package (e.g. openai("gpt-4o-mini")), not its id`;
  }
  if (value === null || typeof value !== "object") {
    return `expected an AI SDK LanguageModel (specificationVersion "v2", "v3" or "v4", doStream, doGenerate), got ${
      kindOf(value)
    }`;
  }
  const model = value as Record<string, unknown>;
  const missing = ["doStream", "doGenerate"].filter((key) => typeof model[key] !== "function");
  const version = model.specificationVersion;
  return `expected an AI SDK LanguageModel, got an object ${
    !SPEC_VERSIONS.includes(version as string)
      ? `with specificationVersion ${
        typeof version === "string" ? `"${version.slice(0, 20)}"` : String(version)
      } (known: ${SPEC_VERSIONS.join(", ")})`
      : missing.length > 0
      ? `without ${missing.join(" and ")}`
      : "without a string provider and modelId"
  }`;
}
