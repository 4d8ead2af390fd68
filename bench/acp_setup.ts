// Shared by the ACP benchmarks: one start → await result → dispose through
// `ctx.subagents`, for the ACP provider driving the test agent and our own
// ACP server (`providers/acp/serve.ts` on the scripted model), each with a
// fresh process per run or one warm process with a session per run, and for
// the in-process `spawn` provider on the scripted model (the baseline).
import {
  type AgentRef,
  createHost,
  createMemoryLogger,
  createScriptedModel,
  type Host,
} from "@seam/host";
import { createSubagentService, type SubagentService } from "@seam/subagent";
import { type AcpProvider, createAcpProvider } from "@seam/subagent-acp";
import { createSpawnProvider } from "@seam/subagent-spawn";
import {
  bundledServerConfig,
  bundleServer,
  serverConfig,
  testAgentConfig,
} from "../tests/acp_support.ts";

/** Everything a benchmark round needs. */
export interface AcpBench {
  readonly host: Host;
  readonly service: SubagentService;
  readonly parent: AgentRef;
  readonly cold: AcpProvider;
  readonly warm: AcpProvider;
  /** Our ACP server, one process per run. */
  readonly serverCold: AcpProvider;
  /** Our ACP server, one warm process. */
  readonly serverWarm: AcpProvider;
  /** Our ACP server bundled into one module (`deno bundle`), one process per run. */
  readonly bundleCold: AcpProvider;
  /** Another checkout's server from source, one process per run (`--before=<dir>`). */
  readonly beforeCold: AcpProvider | undefined;
  close(): Promise<void>;
  /** Remove the bundle's temporary folder at once (for an exit hook, where nothing is awaited). */
  removeBundleSync(): void;
}

/** The providers by name: the test agent's, our server's, and the baseline. */
export type BenchProvider =
  | "acp-cold"
  | "acp-warm"
  | "server-cold"
  | "server-warm"
  | "bundle-cold"
  | "before-cold"
  | "spawn";

/**
 * Register the six providers on one host (bundling the server first), and
 * with `before` (another checkout's root) a seventh: that checkout's server
 * from source, one process per run.
 */
export async function setupAcpBench(before?: string): Promise<AcpBench> {
  const { logger } = createMemoryLogger();
  const host = createHost({ logger });
  host.models.register(host.scope, "scripted", createScriptedModel());
  const service = createSubagentService(host.scope);
  service.registerProvider(createSpawnProvider());
  const cold = createAcpProvider(testAgentConfig([], { name: "acp-cold", logger }));
  const warm = createAcpProvider(
    testAgentConfig([], { name: "acp-warm", logger, reuseProcess: true }),
  );
  const serverCold = createAcpProvider(serverConfig({ name: "server-cold", logger }, "warn"));
  const serverWarm = createAcpProvider(
    serverConfig({ name: "server-warm", logger, reuseProcess: true }, "warn"),
  );
  const bundle = await bundleServer();
  const bundleCold = createAcpProvider(
    bundledServerConfig(bundle.path, { name: "bundle-cold", logger }, "warn"),
  );
  const beforeCold = before === undefined ? undefined : createAcpProvider(
    serverConfig({ name: "before-cold", logger }, "warn", before),
  );
  for (const provider of [cold, warm, serverCold, serverWarm, bundleCold, beforeCold]) {
    if (provider) service.registerProvider(provider);
  }
  const parent = await host.agents.create({ id: "parent", options: { model: "scripted" } });
  return {
    host,
    service,
    parent,
    cold,
    warm,
    serverCold,
    serverWarm,
    bundleCold,
    beforeCold,
    async close() {
      await beforeCold?.dispose();
      await cold.dispose();
      await warm.dispose();
      await serverCold.dispose();
      await serverWarm.dispose();
      await bundleCold.dispose();
      await host.scope.dispose();
      await bundle.remove();
    },
    removeBundleSync() {
      Deno.removeSync(bundle.path.slice(0, bundle.path.lastIndexOf("/")), { recursive: true });
    },
  };
}

/** Milliseconds from `start` to `started`, to `result`, and the `dispose` that followed. */
export interface RunTiming {
  readonly started: number;
  readonly result: number;
  readonly dispose: number;
}

/** One run through the service; throws unless it completed with the text. */
export async function runOnce(bench: AcpBench, provider: BenchProvider): Promise<RunTiming> {
  // The test agent has its own little language; the others run the scripted model.
  const prompt = provider.startsWith("acp-")
    ? "complete hello from the child"
    : "@reply hello from the child";
  const t0 = performance.now();
  const run = bench.service.start(provider, { prompt, parent: bench.parent });
  let started = 0;
  let result = 0;
  let failure: Error | undefined;
  try {
    await run.started;
    started = performance.now() - t0;
    const { stopReason, output } = await run.result;
    result = performance.now() - t0;
    if (stopReason !== "completed") {
      failure = new Error(`${provider} ended ${stopReason}: ${JSON.stringify(output)}`);
    }
  } catch (error) {
    failure = error as Error;
  }
  const t1 = performance.now();
  await run.dispose();
  if (failure) throw failure;
  return { started, result, dispose: performance.now() - t1 };
}
