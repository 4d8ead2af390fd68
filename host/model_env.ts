import type { ModelAdapter } from "./model.ts";
import { createOpenAICompatibleModel, DEEPSEEK_BASE_URL, OPENAI_BASE_URL } from "./openai_model.ts";
import { freeze } from "./_builtins.ts";
import { refuseUnknownOptions } from "./unknown_options.ts";

/** A real model chosen by the environment: an adapter and the model id agents run on. */
export interface EnvModel {
  /** The model id (sent to the server). */
  readonly id: string;
  /** The adapter serving it. */
  readonly adapter: ModelAdapter;
  /** For logs and banners (`deepseek-chat at https://api.deepseek.com`). */
  readonly label: string;
}

/** The environment variables {@linkcode modelFromEnv} reads. */
// Marked pure: a bundle that never reads it leaves it out.
export const MODEL_ENV_VARS: readonly string[] = /* @__PURE__ */ freeze([
  "DEEPSEEK_API_KEY",
  "OPENAI_API_KEY",
  "OPENAI_BASE_URL",
  "SEAM_MODEL",
]);

/**
 * The real model the environment configures, or `undefined` when it names
 * none (use the scripted model then):
 *
 * - `DEEPSEEK_API_KEY`: DeepSeek's API, model `SEAM_MODEL` (default
 *   `deepseek-chat`);
 * - otherwise `OPENAI_API_KEY`: any OpenAI-compatible API at
 *   `OPENAI_BASE_URL` (default `https://api.openai.com/v1`), model
 *   `SEAM_MODEL` (default `gpt-4o-mini`).
 *
 * `env` reads one variable (`(name) => Deno.env.get(name)`), so this stays
 * runtime-neutral.
 *
 * @throws {TypeError} for an unknown option, naming it and the known ones.
 *
 * @example
 * ```ts
 * import { modelFromEnv } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * assert.equal(modelFromEnv(() => undefined), undefined);
 * const env: Record<string, string> = { OPENAI_API_KEY: "sk-test", SEAM_MODEL: "m1" };
 * assert.equal(modelFromEnv((name) => env[name])?.id, "m1");
 * ```
 */
export function modelFromEnv(
  env: (name: string) => string | undefined,
  options: { readonly fetch?: (input: Request) => Promise<Response> } = {},
): EnvModel | undefined {
  refuseUnknownOptions("choose the model from the environment", options, ["fetch"]);
  const deepseek = env("DEEPSEEK_API_KEY");
  const openai = env("OPENAI_API_KEY");
  let apiKey: string;
  let baseUrl: string;
  let id: string;
  if (deepseek) {
    apiKey = deepseek;
    baseUrl = DEEPSEEK_BASE_URL;
    id = env("SEAM_MODEL") || "deepseek-chat";
  } else if (openai) {
    apiKey = openai;
    baseUrl = env("OPENAI_BASE_URL") || OPENAI_BASE_URL;
    id = env("SEAM_MODEL") || "gpt-4o-mini";
  } else {
    return undefined;
  }
  const adapter = createOpenAICompatibleModel({
    apiKey,
    baseUrl,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return { id, adapter, label: `${id} at ${baseUrl}` };
}
