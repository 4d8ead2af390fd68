import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createMcpEndpoint } from "./endpoint.ts";
import { createMcpHttpHandler } from "./http.ts";
import { createMcpTasksHandler } from "./tasks.ts";
import { createMcpServer } from "./server.ts";
import { serveMcpStdio } from "./stdio.ts";

Deno.test("createMcpEndpoint() refuses an unknown option, naming it and the known ones", async () => {
  const root = createRootScope({ logger: createMemoryLogger().logger });
  createSubagentService(root);
  const server = createMcpServer({ scope: root });
  try {
    // A line's option at the top level: silently dropped before, the default applied.
    assert.throws(
      () => createMcpEndpoint(server, { maxSessions: 4 } as never),
      (error: unknown) =>
        error instanceof TypeError &&
        /^Cannot create the MCP endpoint: unknown option maxSessions \(known: http, tasks; /
          .test(error.message),
    );
    const endpoint = createMcpEndpoint(server, { http: { maxSessions: 4 }, tasks: {} });
    await endpoint.close();
  } finally {
    await server.close();
    await root.dispose();
  }
});

Deno.test("serveMcpStdio() refuses an unknown option before it touches stdin", async () => {
  const root = createRootScope({ logger: createMemoryLogger().logger });
  createSubagentService(root);
  const server = createMcpServer({ scope: root });
  const input = new ReadableStream<Uint8Array>();
  try {
    // A misspelt `input`: this process's stdin would have been served instead.
    await assert.rejects(
      serveMcpStdio(server, { inupt: input } as never),
      /^TypeError: Cannot serve MCP over stdio: unknown option inupt \(known: input, output\)$/,
    );
  } finally {
    await input.cancel();
    await server.close();
    await root.dispose();
  }
});

Deno.test("createMcpHttpHandler() and createMcpTasksHandler() refuse an unknown option", async () => {
  const root = createRootScope({ logger: createMemoryLogger().logger });
  createSubagentService(root);
  const server = createMcpServer({ scope: root });
  try {
    assert.throws(
      () => createMcpHttpHandler(server, { maxSession: 4 } as never),
      (error: unknown) =>
        error instanceof TypeError &&
        /^Cannot create the MCP HTTP handler: unknown option maxSession \(known: maxSessions, .*maxUnreadBytes\)$/
          .test(error.message),
    );
    assert.throws(
      () => createMcpTasksHandler(server, { ttl: 4 } as never),
      new TypeError(
        "Cannot create the MCP tasks handler: unknown option ttl (known: ttlMs, pollIntervalMs)",
      ),
    );
  } finally {
    await server.close();
    await root.dispose();
  }
});
