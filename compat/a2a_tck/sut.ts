/**
 * The conformance kit's system under test: a seam gateway over
 * {@linkcode createTckProvider}, served on `127.0.0.1:PORT` (default 41241).
 *
 *   deno run --allow-net=127.0.0.1,localhost --allow-env compat/a2a_tck/sut.ts [port]
 *
 * @module
 */
import { createLogger, createRootScope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createGateway } from "../../gateway/mod.ts";
import { createTckProvider } from "./tck_provider.ts";

if (import.meta.main) {
  const port = Number(Deno.args[0] ?? 41241);
  const timeout = Number(Deno.env.get("TCK_STREAMING_TIMEOUT") ?? 2);
  const root = createRootScope({ logger: createLogger({ level: "warn" }) });
  createSubagentService(root).registerProvider(createTckProvider({ streamingTimeoutS: timeout }));
  // TCK_SUT_REQUIRE_EXTENSION=1: declare and enforce the kit's required
  // extension (its CORE-CAP-004 tests need it; every other test then fails
  // for lack of the extension, so it is a separate run).
  const requireExtension = Deno.env.get("TCK_SUT_REQUIRE_EXTENSION") === "1";
  const gateway = createGateway({
    scope: root,
    maxResumableRuns: 0,
    // The kit's webhook receiver listens on this machine (http://localhost:PORT/webhook).
    push: { allowWebhook: (url) => url.hostname === "localhost" || url.hostname === "127.0.0.1" },
    ...(requireExtension
      ? { requiredExtensions: [{ uri: "urn:a2a:tck:required-extension" }] }
      : {}),
  });
  const server = Deno.serve({
    hostname: "127.0.0.1",
    port,
    onListen: ({ port }) => console.log(`ready ${port}`),
  }, gateway.fetch);
  const stop = async () => {
    await gateway.close();
    await server.shutdown();
    await root.dispose();
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGTERM", stop);
  Deno.addSignalListener("SIGINT", stop);
}
