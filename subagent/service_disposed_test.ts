import assert from "node:assert/strict";
import { createRootScope } from "@seam/host";
import { createSubagentService, SubagentError, type SubagentProvider } from "@seam/subagent";

const echo: SubagentProvider = {
  name: "echo",
  capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
  inheritsParentContext: false,
  start: () => ({
    id: "echo-1",
    started: Promise.resolve(),
    result: Promise.resolve({ output: "", stopReason: "completed" }),
    cancel() {},
    dispose: () => Promise.resolve(),
  }),
};

Deno.test("start() after the service's scope was disposed says so, not 'no provider named'", async () => {
  const root = createRootScope();
  const subagents = createSubagentService(root);
  subagents.registerProvider(echo);
  const parent = createRootScope();
  await root.dispose();
  assert.throws(
    () => subagents.start("echo", { prompt: "hi", parent: { id: "main", scope: parent } }),
    (error: unknown) =>
      error instanceof SubagentError && error.code === "SERVICE_DISPOSED" &&
      /Cannot start subagent "echo": the subagent service's scope is disposed/.test(
        error.message,
      ) && !/no provider named/.test(error.message),
  );
  await parent.dispose();
});
