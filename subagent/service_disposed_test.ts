import assert from "node:assert/strict";
import { createRootScope, InactiveScopeError } from "@seam/host";
import { createSubagentService, type SubagentProvider } from "@seam/subagent";

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
      error instanceof InactiveScopeError && error.code === "INACTIVE_SCOPE" &&
      error.message === 'Cannot start subagent: scope "root" is disposed (inactive context)',
  );
  await parent.dispose();
});
