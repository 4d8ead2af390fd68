/**
 * `deno task demo`: watch a parent agent delegate through the subagent tool.
 *
 * Runs on the embedded scripted model unless a model API key is set:
 * `DEEPSEEK_API_KEY` (DeepSeek; model `SEAM_MODEL`, default `deepseek-chat`)
 * or `OPENAI_API_KEY` (+ `OPENAI_BASE_URL`, default
 * `https://api.openai.com/v1`; model `SEAM_MODEL`, default `gpt-4o-mini`),
 * or any AI SDK model: `SEAM_AI_SDK_PROVIDER` names its provider package
 * (see `aiSdkModelFromEnv` in `@seam/ai-sdk`; a hosted provider reads its
 * own key variable, so run `deno run --allow-net --allow-env
 * --allow-sys=hostname demo/main.ts`).
 * Pass `--scripted` to ignore the keys. On a terminal the tree is redrawn in
 * place; otherwise (CI, a pipe) it prints line-based updates. `NO_COLOR`
 * turns colours off.
 *
 * @module
 */
import { createLogger } from "@seam/host";
import { modelFromEnv, runDemo } from "./demo.ts";

if (import.meta.main) {
  const encoder = new TextEncoder();
  const write = (text: string) => {
    const bytes = encoder.encode(text);
    let written = 0;
    while (written < bytes.length) written += Deno.stdout.writeSync(bytes.subarray(written));
  };
  const live = Deno.stdout.isTerminal();
  const env = (name: string) => Deno.env.get(name);
  // An AI SDK model when SEAM_AI_SDK_PROVIDER names its provider package (@seam/ai-sdk).
  const model = Deno.args.includes("--scripted")
    ? undefined
    : env("SEAM_AI_SDK_PROVIDER")
    ? await (await import("@seam/ai-sdk")).aiSdkModelFromEnv(env)
    : modelFromEnv(env);
  // Say where the key goes before anything is sent.
  if (model) write(`model: ${model.label}\n\n`);
  const controller = new AbortController();
  const onInterrupt = () => controller.abort();
  Deno.addSignalListener("SIGINT", onInterrupt);
  try {
    const report = await runDemo({
      write,
      live,
      color: live && Deno.env.get("NO_COLOR") === undefined,
      columns: live ? Deno.consoleSize().columns : 100,
      ...(model ? { model } : {}),
      signal: controller.signal,
      logger: createLogger({ level: "warn" }),
    });
    if (report.tree.status !== "completed") Deno.exitCode = 1;
  } finally {
    Deno.removeSignalListener("SIGINT", onInterrupt);
  }
}
