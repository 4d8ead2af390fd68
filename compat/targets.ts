/**
 * What the compatibility checks cover, in one place. Each list names entries
 * by their JSR specifier (`@seam/host`, `@seam/subagent/testing`); the scripts
 * resolve them through the workspace members' `deno.json`. Adding a package
 * to a check is one line here.
 *
 * - {@linkcode NEUTRAL_ENTRIES}: type-checked without Deno's namespace and
 *   imported with no permissions (`deno task check:neutral`).
 * - {@linkcode EDGE_ENTRIES}: bundled and run at top level in a sandbox with
 *   no I/O, timers or randomness (`deno task check:edge`); those in
 *   {@linkcode EDGE_BUDGETS} also weighed, minified.
 * - {@linkcode SERVE_ENTRIES}: served by `deno serve` with no permission but
 *   the network, and probed with a GET (`deno task check:serve`).
 * - {@linkcode WORKERD_ENTRIES}: run in workerd through Miniflare, sent a
 *   message (`deno task check:workerd`).
 * - {@linkcode NODE_PACKAGES}, {@linkcode NODE_TEST_ROOTS},
 *   {@linkcode NODE_TEST_EXCLUDED}, {@linkcode NODE_TEST_PEERS}: the Node 20
 *   run (`deno task test:node`).
 *
 * @module
 */

/**
 * The runtime-neutral entries: everything but the ACP provider and the
 * gateway's serve entry. They may use web APIs only (no `Deno.*`, no
 * `node:*`), and importing them must need no permission.
 */
export const NEUTRAL_ENTRIES: readonly string[] = [
  "@seam/host",
  "@seam/subagent",
  "@seam/subagent/testing",
  "@seam/subagent-in-process",
  "@seam/subagent-spawn",
  "@seam/subagent-fork",
  "@seam/tool-subagent",
  "@seam/gateway", // the app module, not ./serve
  "@seam/gateway/lite",
  "@seam/subagent-a2a",
];

/**
 * The entries an edge host (Cloudflare Workers, Deno Deploy, Supabase) loads:
 * their bundle must hold no `node:` import and their module top level must
 * do no I/O, set no timer and draw no random value.
 */
export const EDGE_ENTRIES: readonly string[] = [
  "@seam/host",
  "@seam/subagent",
  "@seam/subagent-spawn",
  "@seam/subagent-fork",
  "@seam/tool-subagent",
  "@seam/gateway",
  "@seam/gateway/lite",
  "@seam/subagent-a2a",
  "README.md#One entry for every host",
];

/**
 * The most an edge entry's bundle may weigh, minified as an edge host's
 * bundler would (`deno bundle --platform browser --minify`), in bytes
 * (`deno task check:edge` fails beyond it; bench/README.md, "Edge bundle").
 * Issue 19's "≤ 200 KB" counts kB of 1,000 bytes (its "454 KB of zod" was
 * 453,912 bytes): its target is 200,000 bytes.
 */
export const EDGE_BUDGETS: Readonly<Record<string, number>> = {
  // Issue 19's target itself: issue 17's budgets took the entry to 209,562
  // bytes, session 4's cuts back to ~203,600, session 5's (each refusal's
  // shared prefix written once, mostly) to 197,963 (bench/README.md, "Edge
  // bundle").
  "README.md#One entry for every host": 200_000,
};

/**
 * The entries `deno serve` (and Deno Deploy) run: modules whose default
 * export is `{fetch}`, mapped to the path to GET (it must answer 2xx). They
 * must serve with no permission but the network.
 */
export const SERVE_ENTRIES: Readonly<Record<string, string>> = {
  "README.md#One entry for every host": "/.well-known/agent-card.json",
};

/**
 * The entries run in real workerd through Miniflare (`deno task
 * check:workerd`): modules whose default export is `{fetch}` serving a seam
 * gateway; each must answer its agent card and complete a `SendMessage`.
 */
export const WORKERD_ENTRIES: readonly string[] = [
  "README.md#One entry for every host",
];

/**
 * The packages a Node project installs through JSR's npm compatibility. The
 * Node run lays them out as `npm` would (`node_modules/@jsr/seam__host`, and
 * the `@seam/host` alias `npx jsr add` writes) and runs the README's "Use
 * from Node" example against them.
 */
export const NODE_PACKAGES: readonly string[] = [
  "@seam/host",
  "@seam/subagent",
  "@seam/subagent-in-process",
  "@seam/subagent-spawn",
  "@seam/subagent-fork",
  "@seam/tool-subagent",
  "@seam/gateway",
  "@seam/subagent-a2a",
  "@seam/ai-sdk",
  "@seam/adapter-kit",
  "@seam/openai-agents",
  "@seam/langgraph",
  "@seam/mastra",
  "@seam/mcp",
];

/** Folders (searched for `*_test.ts`) and test files the Node run bundles and runs. */
export const NODE_TEST_ROOTS: readonly string[] = [
  "host",
  "subagent",
  "providers/in_process",
  "providers/spawn",
  "providers/fork",
  "tests/conformance_in_process_test.ts",
  "tests/conformance_reference_test.ts",
  "tool",
  "gateway",
  "providers/a2a",
  "providers/acp",
  "tests/acp_agents_test.ts",
  "tests/acp_ask_test.ts",
  "tests/acp_bounds_test.ts",
  "tests/acp_children_test.ts",
  "tests/acp_not_agent_test.ts",
  "tests/acp_conformance_test.ts",
  "tests/acp_misbehaviour_test.ts",
  "tests/acp_provider_test.ts",
  "adapters/ai_sdk",
  "tests/ai_sdk_conformance_test.ts",
  "adapters/kit",
  "adapters/openai_agents",
  "adapters/langgraph",
  "adapters/mastra",
  "mcp",
];

/**
 * Programs the Node tests start as child processes, bundled beside the test
 * bundles (same layout, `.js`) and run with `node`, each with its user.
 */
export const NODE_TEST_PEERS: Readonly<Record<string, string>> = {
  "providers/acp/testdata/test_agent.ts": "the ACP tests' agent (tests/acp_support.ts)",
  "mcp/testdata/stdio_server.ts": "a seam MCP server on stdio (mcp/_test_servers.ts)",
  "mcp/testdata/plain_server.ts": "a plain SDK MCP server on stdio (mcp/_test_servers.ts)",
};

/** Test files left out of the Node run, each with the Deno-only API it needs. */
export const NODE_TEST_EXCLUDED: Readonly<Record<string, string>> = {
  "host/openai_model_test.ts": "serves its fake model endpoint with Deno.serve and Deno.listen",
  "host/brand_test.ts": "loads a second copy of a module by URL query, which a bundle cannot do",
  "gateway/serve_test.ts":
    "serves the gateway on loopback with Deno.serve (serve.ts is Deno's entry)",
  "gateway/push_test.ts": "serves its webhook receivers on loopback with Deno.serve",
  "gateway/push_memory_outbox_test.ts": "serves its webhook receivers on loopback with Deno.serve",
  "gateway/streams_per_principal_test.ts":
    "serves the gateway on loopback with Deno.serve, to hold streams open over real HTTP",
  "subagent/errors_test.ts":
    "loads a second copy of a module by URL query, which a bundle cannot do",
};
