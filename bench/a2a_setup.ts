// Shared by the A2A benchmarks: one start → await result → dispose through
// `ctx.subagents`, for the A2A provider in front of a seam gateway (spawn on
// the scripted model) reached over loopback HTTP or through the gateway's
// fetch handler, and for the in-process `spawn` provider on the same model
// (the baseline: the same child, without the hop).
import {
  type AgentRef,
  createHost,
  createMemoryLogger,
  createScriptedModel,
  type Host,
} from "@seam/host";
import { createSubagentService, type SubagentService } from "@seam/subagent";
import { createSpawnProvider } from "@seam/subagent-spawn";
import { type A2AProvider, createA2AProvider } from "@seam/subagent-a2a";
import { createGateway, type Gateway } from "../gateway/mod.ts";

/** The providers by name. */
export type A2ABenchProvider = "spawn" | "a2a" | "a2a-fetch";

/** Everything a benchmark round needs. */
export interface A2ABench {
  readonly host: Host;
  readonly service: SubagentService;
  readonly parent: AgentRef;
  readonly gateway: Gateway;
  readonly loopback: A2AProvider;
  readonly inProcess: A2AProvider;
  close(): Promise<void>;
}

export const PROMPT = "@reply hello from the child";

/** The remote side: a seam gateway (its own host) in front of spawn on the scripted model. */
export function remoteGateway(): { remote: Host; gateway: Gateway } {
  const remote = createHost({ logger: createMemoryLogger().logger });
  remote.models.register(remote.scope, "scripted", createScriptedModel());
  createSubagentService(remote.scope).registerProvider(createSpawnProvider());
  // Every run is disposed when its task ends, as the in-process run is at dispose.
  const gateway = createGateway({
    scope: remote.scope,
    agentOptions: { model: "scripted" },
    maxResumableRuns: 0,
  });
  return { remote, gateway };
}

/** The remote gateway (its own host) on loopback, and the local host with the three providers. */
export async function setupA2ABench(): Promise<A2ABench> {
  const { remote, gateway } = remoteGateway();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => gateway.fetch(request),
  );

  const host = createHost({ logger: createMemoryLogger().logger });
  host.models.register(host.scope, "scripted", createScriptedModel());
  const service = createSubagentService(host.scope);
  service.registerProvider(createSpawnProvider());
  const loopback = await createA2AProvider({ url: `http://127.0.0.1:${server.addr.port}` });
  const inProcess = await createA2AProvider({
    url: "http://gateway.local",
    name: "a2a-fetch",
    fetch: (input, init) => gateway.fetch(new Request(input, init)),
  });
  service.registerProvider(loopback);
  service.registerProvider(inProcess);
  const parent = await host.agents.create({ id: "parent", options: { model: "scripted" } });
  return {
    host,
    service,
    parent,
    gateway,
    loopback,
    inProcess,
    async close() {
      await loopback.dispose();
      await inProcess.dispose();
      await host.scope.dispose();
      await gateway.close();
      await server.shutdown();
      await remote.scope.dispose();
    },
  };
}

/** One run through the service; throws unless it completed with the text. */
export async function runOnce(bench: A2ABench, provider: A2ABenchProvider): Promise<void> {
  const run = bench.service.start(provider, { prompt: PROMPT, parent: bench.parent });
  try {
    const result = await run.result;
    const first = result.output[0];
    if (
      result.stopReason !== "completed" || first?.type !== "text" ||
      first.text !== "hello from the child"
    ) {
      throw new Error(`${provider}: unexpected result ${JSON.stringify(result)}`);
    }
  } finally {
    await run.dispose();
  }
}
