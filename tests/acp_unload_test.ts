// Ending the registration of an ACP provider (the scope that registered it,
// or its disposer) ends its live runs `aborted` and its processes, warm
// ones included, so a program that never calls provider.dispose() exits.
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope, textOf } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createAcpProvider } from "@seam/subagent-acp";
import { AgentWatch, TEST_AGENT, testAgentConfig } from "./acp_support.ts";
import { within } from "./within.ts";

Deno.test("createAcpProvider() with reuseProcess ends with the scope that registered it", async () => {
  const watch = new AgentWatch();
  const root = createRootScope({ logger: createMemoryLogger().logger });
  const subagents = createSubagentService(root);
  const plugin = root.child("plugin");
  subagents.registerProvider(
    createAcpProvider({ ...testAgentConfig([], { reuseProcess: true }), logger: watch.logger }),
    { scope: plugin },
  );
  const parent = { id: "main", scope: root.child("main") };
  const done = subagents.start("acp", { prompt: "complete one", parent });
  assert.equal(textOf((await done.result).output), "one");
  await done.dispose();
  const live = subagents.start("acp", { prompt: "hang", parent });
  await live.started;
  assert.equal((await watch.live()).length, 1, "one warm process");

  await within(plugin.dispose(), "disposing the registering scope");

  assert.equal((await within(live.result, "the live run's result")).stopReason, "aborted");
  assert.deepEqual(await watch.live(), [], "no process outlives the registration");
  await live.dispose();
  await root.dispose();
});

Deno.test("a program with a warm ACP provider exits once its scope is disposed", async () => {
  const program = new URL("./testdata/acp_program.ts", import.meta.url).pathname;
  const config = new URL("../deno.json", import.meta.url).pathname;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--config",
      config,
      "--allow-env",
      "--allow-run",
      program,
      Deno.execPath(),
      TEST_AGENT,
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // Bounded: a program that does not exit is killed, and the test fails.
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, 30_000);
  const { code, stdout, stderr } = await child.output();
  clearTimeout(timer);
  const out = new TextDecoder().decode(stdout);
  assert.ok(!timedOut, `the program did not exit within 30 s; it printed:\n${out}`);
  assert.equal(code, 0, new TextDecoder().decode(stderr));
  assert.equal(out, "hello from the warm process\ndisposed\n");
});
