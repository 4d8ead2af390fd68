import { type EnvModel, refuseUnknownOptions } from "@seam/host";
import { aiSdkModel } from "./model.ts";
import { cannot, isLanguageModel, notLanguageModel } from "./_checks.ts";

/** The environment variables {@linkcode aiSdkModelFromEnv} reads. */
export const AI_SDK_ENV_VARS: readonly string[] = Object.freeze([
  "SEAM_AI_SDK_PROVIDER",
  "SEAM_AI_SDK_EXPORT",
  "SEAM_AI_SDK_OPTIONS",
  "SEAM_MODEL",
]);

/** Options of {@linkcode aiSdkModelFromEnv}. */
export interface AiSdkModelFromEnvOptions {
  /**
   * How to load the provider package (default: a dynamic `import()`, which
   * resolves the specifier as the calling program's runtime does).
   */
  readonly import?: (specifier: string) => Promise<unknown>;
}

const ACTION = "choose the AI SDK model from the environment";

/**
 * The AI SDK model the environment names, as a host model, or `undefined`
 * when `SEAM_AI_SDK_PROVIDER` is unset. No code per vendor: the provider
 * package is imported by the name the environment gives.
 *
 * - `SEAM_AI_SDK_PROVIDER`: the provider package to import
 *   (`npm:@ai-sdk/anthropic` in Deno, `@ai-sdk/anthropic` in Node, or any
 *   specifier the runtime resolves);
 * - `SEAM_MODEL`: the model id (`claude-sonnet-4-5`), required;
 * - `SEAM_AI_SDK_EXPORT`: which export to use; default: the package's one
 *   provider instance (`anthropic`, `openai`, `google`, …: an export with a
 *   `languageModel` method), or with `SEAM_AI_SDK_OPTIONS` its one `create…`
 *   factory;
 * - `SEAM_AI_SDK_OPTIONS`: JSON settings for that factory
 *   (`{"baseURL": "http://127.0.0.1:11434/v1", "name": "local"}`): the
 *   export is then called with them to make the provider. API keys are read
 *   by the provider package itself (`ANTHROPIC_API_KEY`, …).
 *
 * @param env Reads one variable (`(name) => Deno.env.get(name)`).
 * @param options See {@linkcode AiSdkModelFromEnvOptions}.
 * @returns The model's id, adapter and label, or `undefined`.
 * @throws {TypeError} naming the variable when one is missing or malformed,
 *   the package cannot be imported, or it has no such provider or model;
 *   for an unknown option, naming it and the known ones.
 *
 * @example
 * ```ts
 * import { aiSdkModelFromEnv } from "@seam/ai-sdk";
 * import { MockLanguageModelV4 } from "ai/test";
 * import assert from "node:assert/strict";
 *
 * assert.equal(await aiSdkModelFromEnv(() => undefined), undefined);
 * const env: Record<string, string> = { SEAM_AI_SDK_PROVIDER: "my-provider", SEAM_MODEL: "m1" };
 * // What a provider package exports: a provider instance that makes models by id.
 * const myProvider = Object.assign((id: string) => new MockLanguageModelV4({ modelId: id }), {
 *   languageModel: (id: string) => new MockLanguageModelV4({ modelId: id }),
 * });
 * const model = await aiSdkModelFromEnv((name) => env[name], {
 *   import: () => Promise.resolve({ myProvider }),
 * });
 * assert.equal(model?.id, "m1");
 * assert.equal(model?.label, "m1 via my-provider (myProvider)");
 * ```
 */
export async function aiSdkModelFromEnv(
  env: (name: string) => string | undefined,
  options: AiSdkModelFromEnvOptions = {},
): Promise<EnvModel | undefined> {
  refuseUnknownOptions(ACTION, options, ["import"] satisfies (keyof AiSdkModelFromEnvOptions)[]);
  const specifier = env("SEAM_AI_SDK_PROVIDER");
  if (!specifier) return undefined;
  const id = env("SEAM_MODEL");
  if (!id) {
    cannot(ACTION, `SEAM_MODEL must name the model when SEAM_AI_SDK_PROVIDER is set`);
  }
  const rawOptions = env("SEAM_AI_SDK_OPTIONS");
  let settings: unknown;
  if (rawOptions) {
    try {
      settings = JSON.parse(rawOptions);
    } catch (error) {
      cannot(ACTION, `SEAM_AI_SDK_OPTIONS is not JSON: ${(error as Error).message}`);
    }
    if (settings === null || typeof settings !== "object" || Array.isArray(settings)) {
      cannot(ACTION, "SEAM_AI_SDK_OPTIONS must be a JSON object");
    }
  }
  const load = options.import ?? ((name: string) => import(name));
  let module: Record<string, unknown>;
  try {
    module = (await load(specifier)) as Record<string, unknown>;
  } catch (error) {
    cannot(
      ACTION,
      `SEAM_AI_SDK_PROVIDER "${specifier}" cannot be imported: ${
        (error as Error)?.message ?? error
      }`,
    );
  }
  const name = env("SEAM_AI_SDK_EXPORT") || pickExport(module, specifier, settings !== undefined);
  let provider: unknown = module[name];
  if (provider === undefined) {
    cannot(ACTION, `"${specifier}" has no export "${name}" (SEAM_AI_SDK_EXPORT)`);
  }
  if (settings !== undefined) {
    if (typeof provider !== "function") {
      cannot(
        ACTION,
        `export "${name}" of "${specifier}" is no factory to call with SEAM_AI_SDK_OPTIONS`,
      );
    }
    provider = (provider as (settings: unknown) => unknown)(settings);
  }
  const make = (provider as { languageModel?: unknown })?.languageModel;
  const model = typeof make === "function"
    ? (make as (id: string) => unknown).call(provider, id)
    : typeof provider === "function"
    ? (provider as (id: string) => unknown)(id)
    : undefined;
  if (!isLanguageModel(model)) {
    cannot(
      ACTION,
      `"${specifier}" (${name}) gave no language model for "${id}": ${notLanguageModel(model)}`,
    );
  }
  return Object.freeze({
    id,
    adapter: aiSdkModel(model as Parameters<typeof aiSdkModel>[0]),
    label: `${id} via ${specifier} (${name})`,
  });
}

function pickExport(module: Record<string, unknown>, specifier: string, factory: boolean): string {
  const names = Object.keys(module).filter((key) => {
    const value = module[key];
    if (factory) return /^create[A-Z]/.test(key) && typeof value === "function";
    return (typeof value === "function" || (typeof value === "object" && value !== null)) &&
      typeof (value as { languageModel?: unknown }).languageModel === "function";
  });
  if (names.length === 1) return names[0];
  cannot(
    ACTION,
    `"${specifier}" has ${names.length === 0 ? "no" : "several"} ${
      factory ? "create… factories" : "provider instances"
    }${names.length > 0 ? ` (${names.join(", ")})` : ""}: name one with SEAM_AI_SDK_EXPORT`,
  );
}
