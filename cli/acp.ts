/**
 * `seam acp`: serve a seam host agent over ACP (Agent Client Protocol) on
 * stdin/stdout, for an editor (Zed, …) or another seam host
 * (`createAcpProvider({ command: ["seam", "acp"] })`) to start as its agent
 * process, through `@seam/subagent-acp`'s server (`serveAcpAgent`). Each
 * session gets a host agent with the `update_plan` tool on the scripted
 * model, or on a real one when the environment names one.
 *
 * @module
 */
import process from "node:process";
import { Readable, Writable } from "node:stream";
import { envOf } from "./command.ts";
import { type FlagSpec, UsageError } from "./args.ts";
import { defineCommand, type DefinedCommand } from "./_command.ts";

const LEVELS = ["debug", "info", "warn", "error", "silent"] as const;

const FLAGS: readonly FlagSpec[] = [
  {
    name: "log-level",
    kind: "value",
    value: "LEVEL",
    help: `${LEVELS.join(", ")} (default warn); logs go to stderr`,
  },
];

/** `seam acp`. */
export const acpCommand: DefinedCommand = defineCommand({
  name: "acp",
  summary: "serve a seam agent over ACP on stdio (for an editor or createAcpProvider)",
  synopsis: "seam acp [options]",
  description:
    `Serve a seam agent over ACP (Agent Client Protocol) on stdin/stdout until stdin closes. Each
session gets a host agent with the update_plan tool, on the scripted model (deterministic, no
network) or on a real one when DEEPSEEK_API_KEY or OPENAI_API_KEY (with OPENAI_BASE_URL,
SEAM_MODEL) is set. stdout carries the protocol and nothing else.`,
  flags: FLAGS,
  positionals: false,
  async run({ flags }) {
    const level = (flags["log-level"] ?? "warn") as string;
    if (!(LEVELS as readonly string[]).includes(level)) {
      throw new UsageError(`--log-level must be one of ${LEVELS.join(", ")}, got "${level}"`);
    }
    const { createHost, createLogger, createScriptedModel, modelFromEnv } = await import(
      "@seam/host"
    );
    const { createAcpAssistantSetup, serveAcpAgent } = await import("@seam/subagent-acp");
    const logger = createLogger({
      level: level as (typeof LEVELS)[number],
      name: `seam-acp[${process.pid}]`,
      sink: (record) => process.stderr.write(`${record.name} ${record.level}: ${record.message}\n`),
    });
    const host = createHost({ logger });
    const real = modelFromEnv(envOf);
    const model = real?.id ?? "scripted";
    host.models.register(host.scope, model, real?.adapter ?? createScriptedModel());
    const server = serveAcpAgent({
      host,
      model,
      streams: {
        readable: Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
        writable: Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
      },
      logger,
      setup: createAcpAssistantSetup(host),
    });
    logger.info(`serving ${real?.label ?? "the scripted model"} over stdio`);
    await server.closed;
    await host.scope.dispose();
    return 0;
  },
});
