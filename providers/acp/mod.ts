/**
 * `acp`: the child runs as another process speaking the Agent Client
 * Protocol over its stdio — Claude Code, Codex, Gemini CLI, OpenCode, or any
 * other ACP agent becomes a subagent. {@linkcode createAcpProvider} makes the
 * provider: one process per run in a process group of its own (or one warm
 * process with a session per run, `reuseProcess`), message chunks as the
 * output, every `session/update` streamed as {@linkcode acpUpdate} on the
 * parent's scope, `cancel` through `session/cancel`, `resume` as another
 * prompt on the same session, and a teardown (`session/close`, stdin EOF →
 * SIGTERM → SIGKILL to the whole group) that leaves no process behind; a
 * supervisor per group ends it if this process dies. Runs on Node and Deno
 * (`node:child_process`).
 *
 * No start-time capabilities (`outputSchema`, `maxDepth`, `toolFilter` and
 * `persona` are refused before any process exists); the child does not see
 * the parent's conversation.
 *
 * Deno permissions: `--allow-run` (the agent, `sh` for the supervisor, `ps`
 * to tell a killed grandchild's zombie from a running process — Deno reads
 * `/proc` only with `--allow-all`), `--allow-env` (the agent inherits the
 * environment, minus secret-looking names) and `--allow-read` (the current
 * directory, unless `cwd` is absolute).
 *
 * @example
 * ```ts ignore
 * import { createRootScope } from "@seam/host";
 * import { createSubagentService } from "@seam/subagent";
 * import { createAcpProvider } from "@seam/subagent-acp";
 *
 * const root = createRootScope();
 * const subagents = createSubagentService(root);
 * const provider = createAcpProvider({ command: "opencode", args: ["acp"] });
 * subagents.registerProvider(provider);
 * root.onDispose(() => provider.dispose());
 *
 * const run = subagents.start("acp", {
 *   prompt: "Summarize README.md in one sentence",
 *   parent: { id: "main", scope: root },
 * });
 * try {
 *   console.log((await run.result).output);
 * } finally {
 *   await run.dispose();
 * }
 * await root.dispose();
 * ```
 *
 * @module
 */
export * from "./events.ts";
export * from "./plan_tool.ts";
export * from "./provider.ts";
export * from "./server.ts";
export * from "./types.ts";
