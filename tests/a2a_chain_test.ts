// A chain of two gateways over real loopback HTTP: host A delegates through
// an A2A provider to gateway B, whose spawn child delegates onward through
// another A2A provider to gateway C, whose spawn child may delegate again.
// A `maxDepth` set at A holds at every hop.
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope, textOf } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createA2AProvider } from "@seam/subagent-a2a";
import { installSubagentTool } from "@seam/tool-subagent";
import { startSpawnGateway } from "./a2a_support.ts";

/** A prompt that makes a scripted child delegate `inner` through its `subagent` tool. */
function delegate(inner: string): string {
  return `@call subagent ${
    JSON.stringify({ description: "hop", prompt: inner })
  }\n@reply {{results}}`;
}

Deno.test("a maxDepth set at host A holds through gateway B and gateway C", async (t) => {
  // C: spawn; its children delegate to spawn again.
  const c = startSpawnGateway("loopback", {
    setup: (host) => installSubagentTool(host.scope, { provider: "spawn" }),
  });
  const toC = await createA2AProvider({ url: c.url, name: "c" });
  // B: spawn; its children delegate to C through the A2A provider.
  const b = startSpawnGateway("loopback", {
    setup: (host, subagents) => {
      subagents.registerProvider(toC);
      installSubagentTool(host.scope, { provider: "c" });
    },
  });
  const root = createRootScope({ logger: createMemoryLogger().logger });
  const subagents = createSubagentService(root);
  const toB = await createA2AProvider({ url: b.url, name: "b" });
  subagents.registerProvider(toB);
  const parent = { id: "a", scope: root.child("a") };
  // A's child (on B, depth 1) → C's child (depth 2) → C's grandchild (depth 3).
  const prompt = delegate(delegate("@reply from depth three"));
  const sendsTo = (served: { requests: string[] }) =>
    served.requests.filter((r) => r.startsWith("POST")).length;

  const runAt = async (maxDepth: number | undefined) => {
    const run = subagents.start("b", {
      prompt,
      parent,
      ...(maxDepth === undefined ? {} : { maxDepth }),
    });
    try {
      const result = await run.result;
      assert.equal(result.stopReason, "completed", textOf(result.output));
      return textOf(result.output);
    } finally {
      await run.dispose();
    }
  };

  try {
    assert.equal(toB.capabilities.depthLimit, true, "B's spawn honours maxDepth");
    assert.equal(toC.capabilities.depthLimit, true, "C's spawn honours maxDepth");

    await t.step("without a cap, the grandchild on C answers", async () => {
      assert.equal(await runAt(undefined), "from depth three");
    });

    await t.step("maxDepth 3 at A: depth 3 on C is allowed", async () => {
      assert.equal(await runAt(3), "from depth three");
    });

    await t.step("maxDepth 2 at A: C refuses its child's delegation (depth 3)", async () => {
      assert.match(await runAt(2), /depth 3, above the maximum depth 2/);
    });

    await t.step("maxDepth 1 at A: B's child cannot reach C at all (depth 2)", async () => {
      const before = sendsTo(c);
      assert.match(await runAt(1), /depth 2, above the maximum depth 1/);
      assert.equal(sendsTo(c), before, "the A2A provider on B refused before any request to C");
    });

    await t.step("maxDepth 0 at A: refused at A before any request to B", () => {
      const before = sendsTo(b);
      assert.throws(() => subagents.start("b", { prompt, parent, maxDepth: 0 }), /depth 1/);
      assert.equal(sendsTo(b), before);
    });
  } finally {
    await toB.dispose();
    await root.dispose();
    await b.close();
    await toC.dispose();
    await c.close();
  }
});
