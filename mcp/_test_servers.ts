/**
 * How the tests start a test server of `testdata/`: under Deno its source
 * with `deno run`; under Node (`deno task test:node`, which installs a
 * global `Deno` holding only `test`) the bundle the Node run writes beside
 * the test bundles (`compat/targets.ts`, NODE_TEST_PEERS) with `node`.
 */
import process from "node:process";

/** Whether these tests run under Deno. */
export const IS_DENO: boolean =
  typeof (globalThis as { Deno?: { execPath?: unknown } }).Deno?.execPath === "function";

/** The command and arguments that run `testdata/<name>` in this runtime. */
export function testServer(
  name: "stdio_server" | "plain_server",
): { command: string; args: string[] } {
  const path = new URL(`./testdata/${name}.${IS_DENO ? "ts" : "js"}`, import.meta.url).pathname;
  return {
    command: process.execPath,
    args: IS_DENO ? ["run", "--allow-all", path] : [path],
  };
}
