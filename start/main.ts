/**
 * `deno task start`: serve the gateway on `127.0.0.1:8787` (`HOST`, `PORT`
 * override) with `spawn` and `fork` on the scripted model, or on a real
 * model when `DEEPSEEK_API_KEY` or `OPENAI_API_KEY` (+ `OPENAI_BASE_URL`,
 * `SEAM_MODEL`) is set. Tasks live in memory, or in PostgreSQL when
 * `DATABASE_URL` is set (schema `SEAM_DATABASE_SCHEMA`, default `seam`): then
 * any number of instances on that database serve as one (see the README), and
 * push notifications (on, to public webhooks) go out from a durable outbox in
 * the same database that any instance delivers.
 * `SEAM_GATEWAY_TOKEN` turns bearer auth on; serving
 * on a non-loopback `HOST` without it prints a warning. `SEAM_INSPECTOR=1`
 * serves the run inspector page at `/_inspect`. MCP clients reach the same
 * providers at `/mcp` (Streamable HTTP, same auth). Prints the card URL
 * and a request to paste. Ctrl-C stops it (live tasks are cancelled, every
 * child disposed).
 *
 * @module
 */
import { createLogger } from "@seam/host";
import { serveGateway } from "@seam/gateway/serve";
import {
  createPostgresPushConfigStore,
  createPostgresPushOutbox,
  createPostgresTaskStore,
  type PostgresTaskStore,
} from "@seam/gateway-postgres";
import { createMcpEndpoint, createMcpServer, type McpEndpoint } from "@seam/mcp";
import { createStartWorld } from "./app.ts";
import { listenFailure, StartSettingError, startSettings, storeFailure } from "./_settings.ts";

export { StartSettingError };

/**
 * Serve the default world until SIGINT or SIGTERM (`seam serve`, `deno task
 * start`), configured by `env` (the variables above; `seam serve`'s flags
 * are given as these variables). Resolves once the server stopped and every
 * live task was cancelled and child disposed. Deno only (`Deno.serve`).
 *
 * @throws {StartSettingError} naming the variable that stopped start-up (a
 * host that is not this machine's, a port in use or out of range, a database
 * URL or schema that cannot work, a database out of reach), with nothing
 * left running and nothing printed.
 */
export async function serveStart(env: (name: string) => string | undefined): Promise<void> {
  const settings = await startSettings(env);
  const world = await createStartWorld(env, createLogger({ level: "warn" }));
  const controller = new AbortController();
  const token = env("SEAM_GATEWAY_TOKEN");
  const inspector = env("SEAM_INSPECTOR") === "1";
  let taskStore: PostgresTaskStore | undefined;
  let mcp: McpEndpoint | undefined;
  let served: ReturnType<typeof serveGateway>;
  try {
    // A migration that cannot apply (or a database out of reach) stops start-up here.
    taskStore = settings.databaseUrl === undefined ? undefined : await createPostgresTaskStore({
      url: settings.databaseUrl,
      schema: env("SEAM_DATABASE_SCHEMA") || undefined,
    }).catch((error) => Promise.reject(storeFailure(error)));
    // MCP at /mcp beside A2A (both lines, 2026-07-28 with Tasks), behind the same bearer auth.
    const endpoint = mcp = createMcpEndpoint(
      createMcpServer({ scope: world.host.scope, parent: world.parent }),
    );
    try {
      served = serveGateway(
        {
          scope: world.host.scope,
          parent: world.parent,
          mounts: { "/mcp": (request, principal) => endpoint.fetch(request, principal) },
          ...(token ? { auth: { tokens: { operator: token } } } : {}),
          ...(taskStore
            ? {
              taskStore,
              push: {
                configStore: createPostgresPushConfigStore(taskStore),
                outbox: createPostgresPushOutbox(taskStore),
              },
            }
            : { push: {} }),
          ...(inspector ? { inspector: true } : {}),
          // From the env given (not only the process's), as every other setting here.
          ...(env("SEAM_PUBLIC_URL") ? { publicUrl: env("SEAM_PUBLIC_URL") } : {}),
        },
        {
          signal: controller.signal,
          hostname: settings.hostname,
          port: settings.port,
        },
      );
    } catch (error) {
      throw listenFailure(error, settings);
    }
  } catch (error) {
    await mcp?.close();
    await taskStore?.close();
    await world.host.scope.dispose();
    throw error;
  }
  console.log(
    `storage: ${
      taskStore
        ? `PostgreSQL (schema "${taskStore.schema}"), push from its outbox`
        : "memory, push from memory"
    }`,
  );
  console.log(`model: ${world.modelLabel}; providers: ${world.subagents.list().join(", ")}`);
  console.log("MCP (Streamable HTTP): /mcp on the address above");
  if (inspector) {
    console.log(
      `inspector: /_inspect on the address above${token ? " (add #token=<token> to its URL)" : ""}`,
    );
  }
  const stop = () => controller.abort();
  Deno.addSignalListener("SIGINT", stop);
  Deno.addSignalListener("SIGTERM", stop);
  await served.finished;
  await mcp.close();
  await taskStore?.close();
  Deno.removeSignalListener("SIGINT", stop);
  Deno.removeSignalListener("SIGTERM", stop);
  await world.host.scope.dispose();
}

if (import.meta.main) {
  await serveStart((name) => Deno.env.get(name)).catch((error) => {
    if (!(error instanceof StartSettingError)) throw error;
    console.error(`Cannot start: ${error.message}`);
    Deno.exit(error.usage ? 2 : 1);
  });
}
