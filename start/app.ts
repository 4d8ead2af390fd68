/**
 * The embedded default the gateway serves with `deno task start`: a host
 * with the `spawn` and `fork` providers on the scripted model, or on a real
 * OpenAI-compatible model when the environment names one (see
 * `modelFromEnv` in `@seam/host`), or on any AI SDK model when
 * `SEAM_AI_SDK_PROVIDER` names its provider package (see `aiSdkModelFromEnv`
 * in `@seam/ai-sdk`). Runtime-neutral: the entry reads the
 * environment and serves.
 *
 * @module
 */
import { createHost, createScriptedModel, type Host, type Logger, modelFromEnv } from "@seam/host";
import { createSubagentService, type SubagentService } from "@seam/subagent";
import { createForkProvider } from "@seam/subagent-fork";
import { createSpawnProvider } from "@seam/subagent-spawn";

/** The default world: its host, service, delegating parent agent and model. */
export interface StartWorld {
  /** The host the providers' children run in. */
  readonly host: Host;
  /** Its subagent service, with `spawn` and `fork` registered. */
  readonly subagents: SubagentService;
  /** The agent remote callers delegate as (a fork child starts from its completed turns). */
  readonly parent: Awaited<ReturnType<Host["agents"]["create"]>>;
  /** `scripted`, or the real model's label. */
  readonly modelLabel: string;
}

/** Build the default world; `env` reads one environment variable. */
export async function createStartWorld(
  env: (name: string) => string | undefined,
  logger?: Logger,
): Promise<StartWorld> {
  const host = createHost(logger ? { logger } : {});
  // An AI SDK model when SEAM_AI_SDK_PROVIDER names its provider package (@seam/ai-sdk).
  const real = env("SEAM_AI_SDK_PROVIDER")
    ? await (await import("@seam/ai-sdk")).aiSdkModelFromEnv(env)
    : modelFromEnv(env);
  const model = real?.id ?? "scripted";
  host.models.register(host.scope, model, real?.adapter ?? createScriptedModel());
  const subagents = createSubagentService(host.scope);
  subagents.registerProvider(createSpawnProvider());
  subagents.registerProvider(createForkProvider());
  const parent = await host.agents.create({ id: "a2a-gateway", options: { model } });
  return { host, subagents, parent, modelLabel: real?.label ?? "scripted" };
}
