/** A world for the server tests: a host, its service, the test provider, and a connected client. */
import { createHost, createMemoryLogger, type Host } from "@seam/host";
import { createSubagentService, type SubagentService } from "@seam/subagent";
import { Client } from "@modelcontextprotocol/sdk/client";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { createMcpServer } from "./server.ts";
import { createTestProvider, type TestProvider } from "./_test_provider.ts";
import type { McpServer, McpServerOptions, McpTransport } from "./types.ts";

/** What a test gets. */
export interface World extends AsyncDisposable {
  readonly host: Host;
  readonly subagents: SubagentService;
  readonly provider: TestProvider;
  readonly server: McpServer;
  /** A connected official client (elicitation declared when asked). */
  client(options?: { elicitation?: boolean; principal?: string }): Promise<Client>;
}

/** Make a world; everything it made is closed by `await using`. */
export function world(options: Partial<McpServerOptions> = {}): World {
  const host = createHost({ logger: createMemoryLogger().logger });
  const subagents = createSubagentService(host.scope);
  const provider = createTestProvider("test", { subagents: () => subagents });
  subagents.registerProvider(provider);
  const server = createMcpServer({ scope: host.scope, ...options });
  const clients: Client[] = [];
  return {
    host,
    subagents,
    provider,
    server,
    async client({ elicitation = false, principal } = {}) {
      const [ours, theirs] = InMemoryTransport.createLinkedPair();
      await server.connect(ours as unknown as McpTransport, principal ? { principal } : {});
      const client = new Client(
        { name: "test-client", version: "1.0.0" },
        { capabilities: elicitation ? { elicitation: { form: {} } } : {} },
      );
      await client.connect(theirs);
      clients.push(client);
      return client;
    },
    async [Symbol.asyncDispose]() {
      await Promise.all(clients.map((c) => c.close()));
      await server.close();
      await host.scope.dispose();
    },
  };
}
