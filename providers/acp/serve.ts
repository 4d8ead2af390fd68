/**
 * Serve a seam agent over ACP on stdio: an editor (Zed, …) or another seam
 * host (`createAcpProvider`) starts this script as its agent process. Each
 * ACP session gets a host agent with an `update_plan` tool
 * ({@linkcode createAcpPlanTool}) and a short system prompt naming the
 * session's working directory, on the scripted model (deterministic, no
 * network: its directives such as `@reply`, `@hang`, `@fail` drive the
 * turn) or on a real OpenAI-compatible model when `DEEPSEEK_API_KEY` or
 * `OPENAI_API_KEY` (+ `OPENAI_BASE_URL`, `SEAM_MODEL`) is set.
 *
 * ```sh
 * deno run --allow-env --allow-net providers/acp/serve.ts [--model scripted|<name>] [--log-level info]
 * ```
 *
 * From source it loads ~40 modules (the ACP SDK as one vendored bundle),
 * and starts about as fast as a bundle of itself (`bench/README.md`); a
 * bundle still needs no workspace:
 *
 * ```sh
 * deno bundle --platform deno --minify -o seam-acp.js providers/acp/serve.ts
 * deno run --no-config --allow-env --allow-net seam-acp.js
 * ```
 *
 * The protocol goes over stdout and nothing else does: logs go to stderr
 * (`--log-level`, default `warn`). The process exits once stdin closes,
 * after disposing every session's agent. Permissions: `--allow-env` (to read
 * the variables above; without it, the scripted model) and `--allow-net`
 * (for a real model). The only module of the package's server side that
 * touches Deno: {@linkcode serveAcpAgent} itself runs anywhere.
 *
 * @module
 */
import "./_zod_jitless.ts";
import { createHost, createLogger, type LogRecord } from "@seam/host";
import { parseServeArgs, SERVE_ENV, USAGE, UsageError } from "./_serve_config.ts";
import { createAcpAssistantSetup } from "./plan_tool.ts";
import { serveAcpAgent } from "./server.ts";

function envOf(name: string): string | undefined {
  // Query first: without the permission, Deno would prompt on a terminal.
  if (Deno.permissions.querySync({ name: "env", variable: name }).state !== "granted") {
    return undefined;
  }
  return Deno.env.get(name);
}

async function main(): Promise<number> {
  let config;
  try {
    config = parseServeArgs(
      Deno.args,
      (name) => SERVE_ENV.includes(name) ? envOf(name) : undefined,
    );
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    console.error(`serve.ts: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (config === "help") {
    console.error(USAGE);
    return 0;
  }
  const name = `seam-acp[${Deno.pid}]`;
  const logger = createLogger({
    level: config.logLevel,
    name,
    // stderr only: stdout carries the protocol.
    sink: (record: LogRecord) =>
      console.error(`${record.name} ${record.level}: ${record.message}`, ...record.data),
  });
  const host = createHost({ logger });
  host.models.register(host.scope, config.model, config.adapter);
  const server = serveAcpAgent({
    host,
    model: config.model,
    streams: { readable: Deno.stdin.readable, writable: Deno.stdout.writable },
    logger,
    setup: createAcpAssistantSetup(host),
  });
  logger.info(
    `serving ${config.label} over stdio (ready ${Math.round(performance.now())} ms after start)`,
  );
  await server.closed;
  await host.scope.dispose();
  logger.info("stdin closed: exiting");
  return 0;
}

if (import.meta.main) {
  // Everything was disposed and the output flushed: exit at once (a natural
  // exit takes ~20 ms more, and anything still holding the event loop, such
  // as a model connection that ignores its abort, cannot keep it alive).
  Deno.exit(await main());
}
