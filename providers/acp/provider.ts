import { createLogger, type Logger } from "@seam/host";
import type { SubagentCapabilities, SubagentRequest, SubagentRunHandle } from "@seam/subagent";
import { resolveConfig } from "./_config.ts";
import { AgentConnection } from "./_connection.ts";
import { childEnv } from "./_env.ts";
import { WarmPool } from "./_pool.ts";
import { AcpRun } from "./_run.ts";
import { AcpSession, type RunSettings } from "./_session.ts";
import type { AcpProvider, AcpProviderConfig } from "./types.ts";

const CAPABILITIES: SubagentCapabilities = Object.freeze({
  outputSchema: false,
  depthLimit: false,
  toolFilter: false,
  persona: false,
  budget: true,
});

/**
 * Create a provider that runs each child as an ACP agent process (Claude
 * Code, Codex, Gemini CLI, OpenCode, a seam agent served over ACP, …) and
 * drives it as an ACP client over its stdio.
 *
 * A run spawns `command` in a process group of its own (stderr goes to the
 * logger), sends `initialize` and awaits its answer, `authenticate` when a
 * method applies (`authMethod`, else an advertised `env_var` method whose
 * variables are all set), opens a session
 * (`session/new`; `started` fulfils then) and sends the prompt
 * (`session/prompt`). The output is the agent's `agent_message_chunk`s;
 * thoughts, tool calls and plans are progress. While the run is live, every
 * update is emitted as {@linkcode acpUpdate} (`"acp/update"`, ACP's own
 * terms) on the parent's scope, and those that show progress also as
 * `subagent/progress` (text, thought, tool call, tool result, plan), the
 * event the gateway and the demo stream from. The agent's stdout may carry
 * the odd non-JSON line (logged and skipped); a command whose first 100
 * lines are all non-JSON is not an ACP agent, and the run ends `error`. A
 * command that fails `initialize` without a word of JSON-RPC (it exits,
 * prints only text, echoes the request back as `cat` does, or stays silent)
 * is named in the error as no ACP agent: the command line, its first stdout
 * lines (3, each cut to 200 characters; also `error.data.notAnAcpAgent`) and
 * what to check. Stop reasons map `end_turn` → `completed`, `max_tokens` →
 * `max-tokens`, `refusal` → `refusal`, `cancelled` → `aborted`, anything else
 * → `error`. A failure (the binary cannot be spawned, the agent dies, never
 * answers, answers an error, breaks the protocol, a turn outlives
 * `turnTimeoutMs`) ends the run `error` with the partial output followed by
 * a text block saying what happened: the agent's JSON-RPC code, message and
 * `error.data` (bounded), the tail of its stderr for a failure before the
 * prompt, the authentication methods it offers on -32000; `result` never
 * rejects for it. When the agent ends a turn `cancelled` itself after a
 * permission request was refused, the run ends `aborted` saying which tool
 * call was refused.
 *
 * Permission requests follow `permission` (default `"reject"`). Under
 * `"ask"` each becomes an input request of the run: `subagent/input-required`
 * in the parent's scope with the tool call and the agent's options, answered
 * by a `handleSubagentInput` handler up the scope chain or through
 * `run.respond`; the option chosen is the agent's answer, a refusal (nobody
 * handles it, a handler refused) its reject option (else `cancelled`), and
 * the wait does not count against `turnTimeoutMs`.
 *
 * `cancel()` sends `session/cancel`, answers a pending permission request
 * `cancelled` and ends the run `aborted` at once, whatever the agent answers
 * later. `dispose()` sends `session/close` (when the agent advertises it),
 * closes stdin, waits `disposeEofGraceMs`, SIGTERMs the process group and
 * the descendants that left it, waits `disposeGraceMs`, SIGKILLs them and
 * waits for the exit: no process of the group outlives it, nor the
 * provider's process (a supervisor per group ends it when this process
 * dies). An agent process keeps this program running only while a request
 * to it awaits an answer (a start, a turn): a program that forgets to
 * dispose a finished run, or the provider and its warm pool, still exits,
 * and its agents end with it (stdin EOF, then the supervisor's SIGTERM and
 * SIGKILL). `resume(content)` sends another prompt
 * on the same session as a new run; the process lives until the last run on
 * it is disposed.
 *
 * Start-time capabilities: `budget` only (`outputSchema`, `maxDepth`,
 * `toolFilter` and `persona` are rejected by the service before any process
 * exists). A budget holds on wall time always (the service's clock cancels
 * the prompt), on tool calls as the agent reports them (`tool_call`
 * updates) and on tokens where the agent sends `usage_update` (its context
 * size, charged as it grows); an agent that reports no usage is bounded by
 * wall time and tool calls only.
 * The child does not see the parent's conversation.
 *
 * @param config The agent command and the provider's options.
 * @returns The provider; register it with `ctx.subagents.registerProvider`,
 *   and dispose it when done (a registration scope may own it).
 * @throws {TypeError | RangeError} for a bad config field, naming it.
 *
 * @example Delegate to an ACP agent and always dispose the run
 * ```ts ignore
 * import { createRootScope } from "@seam/host";
 * import { createSubagentService } from "@seam/subagent";
 * import { acpUpdate, createAcpProvider } from "@seam/subagent-acp";
 *
 * const root = createRootScope();
 * const subagents = createSubagentService(root);
 * const acp = createAcpProvider({
 *   command: "npx",
 *   args: ["@zed-industries/codex-acp"],
 *   env: { OPENAI_API_KEY: Deno.env.get("OPENAI_API_KEY") ?? "" },
 *   permission: "reject",
 * });
 * subagents.registerProvider(acp);
 * root.onDispose(() => acp.dispose());
 *
 * const parent = { id: "main", scope: root.child("main") };
 * parent.scope.on(acpUpdate, ({ update }) => {
 *   if (update.kind === "message") console.log(update.content);
 * });
 * const run = subagents.start("acp", { prompt: "List the TODOs in src/", parent });
 * try {
 *   const { stopReason, output } = await run.result;
 *   console.log(stopReason, output);
 * } finally {
 *   await run.dispose();
 * }
 * await root.dispose();
 * ```
 */
export function createAcpProvider(config: AcpProviderConfig): AcpProvider {
  const resolved = resolveConfig(config);
  const live = new Set<AcpRun>();
  const settings: RunSettings = Object.freeze({
    provider: resolved.name,
    cwd: resolved.cwd,
    permission: resolved.permission,
    startupTimeoutMs: resolved.startupTimeoutMs,
    cancelGraceMs: resolved.cancelGraceMs,
    turnTimeoutMs: resolved.turnTimeoutMs,
    graces: Object.freeze({
      eofGraceMs: resolved.disposeEofGraceMs,
      graceMs: resolved.disposeGraceMs,
    }),
    shared: resolved.reuseProcess,
    live,
  });
  let shared: AgentConnection | undefined;
  let disposal: Promise<void> | undefined;

  const connect = (logger: Logger): AgentConnection =>
    new AgentConnection({
      command: resolved.command,
      args: resolved.args,
      cwd: resolved.cwd,
      env: childEnv(resolved.env, logger),
      launcher: resolved.launcher,
      maxMessageBytes: resolved.maxMessageBytes,
      graces: settings.graces,
      logger,
      authMethod: resolved.authMethod,
    });

  /** The warm process, replaced once it fails; the provider holds it too. */
  const warm = (logger: Logger): AgentConnection => {
    if (shared?.usable) return shared;
    const connection = shared = connect(logger);
    connection.hold();
    connection.onFailure(() => {
      if (shared !== connection) return;
      shared = undefined;
      connection.release().catch((error) => logger.error("Releasing an ACP agent failed", error));
    });
    return connection;
  };

  // Warm agents outlive any one run: they log to `logger`, else a console logger of their own.
  const pool = resolved.pool &&
    (() => {
      const logger = resolved.logger ?? createLogger({ name: `seam:${resolved.name}` });
      return new WarmPool(resolved.pool, () => connect(logger), logger, resolved.startupTimeoutMs);
    })();

  const provider: AcpProvider = {
    name: resolved.name,
    capabilities: CAPABILITIES,
    inheritsParentContext: false,
    start(request: SubagentRequest): SubagentRunHandle {
      if (disposal) {
        throw new TypeError(`Cannot start an ACP run: provider "${resolved.name}" was disposed`);
      }
      const logger = resolved.logger ?? request.parent.scope.logger.child(resolved.name);
      // A pooled connection comes with the pool's hold.
      const pooled = pool?.take();
      const connection = pooled ?? (resolved.reuseProcess ? warm(logger) : connect(logger));
      if (!pooled) connection.hold();
      const session = new AcpSession(connection, settings, logger, () => connection.release());
      return new AcpRun(session, {
        prompt: request.prompt,
        parent: request.parent,
        ...(request.signal ? { signal: request.signal } : {}),
        ...(request.place ? { place: request.place } : {}),
        ...(request.traceContext !== undefined ? { traceContext: request.traceContext } : {}),
        ...(request.budgetMeter ? { budgetMeter: request.budgetMeter } : {}),
      }, false);
    },
    dispose(): Promise<void> {
      return disposal ??= (async () => {
        const runs = [...live];
        for (const run of runs) run.cancel("the ACP provider was disposed");
        const warmConnection = shared;
        shared = undefined;
        await Promise.all([
          warmConnection?.dispose("the ACP provider was disposed"),
          pool?.dispose(),
          ...runs.map((run) => run.dispose()),
        ]);
      })();
    },
    whenWarm(): Promise<number> {
      return pool?.whenWarm() ?? Promise.resolve(0);
    },
    [Symbol.asyncDispose](): Promise<void> {
      return provider.dispose();
    },
  };
  return provider;
}
