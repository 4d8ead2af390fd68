// outputSchema end to end: the shapes people write (zod through toJsonSchema,
// or plain JSON Schema with $defs), accepted by the service, offered to the
// child's model as the submit_result tool, and enforced on what it submits.
import assert from "node:assert/strict";
import { z } from "zod";
import { createHost, createMemoryLogger, createScriptedModel, toJsonSchema } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createSpawnProvider } from "@seam/subagent-spawn";

async function world() {
  const host = createHost({ logger: createMemoryLogger().logger });
  host.models.register(host.scope, "scripted", createScriptedModel());
  const subagents = createSubagentService(host.scope);
  subagents.registerProvider(createSpawnProvider());
  const parent = await host.agents.create({ id: "main", options: { model: "scripted" } });
  return { host, subagents, parent };
}

const Shape = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("circle"), r: z.number().positive() }),
  z.object({ kind: z.literal("square"), side: z.number().positive() }),
]);

Deno.test("spawn honours an outputSchema made from zod: a discriminated union at the root", async (t) => {
  const { host, subagents, parent } = await world();
  const outputSchema = toJsonSchema(Shape, { objectRoot: true });
  try {
    await t.step("a value that matches is the structured result", async () => {
      const run = subagents.start("spawn", {
        prompt: '@call submit_result {"kind": "square", "side": 2}',
        parent,
        outputSchema,
      });
      try {
        const result = await run.result;
        assert.equal(result.stopReason, "completed");
        assert.deepEqual(result.structured, { kind: "square", side: 2 });
      } finally {
        await run.dispose();
      }
    });
    await t.step("a value that does not is never the result", async () => {
      const run = subagents.start("spawn", {
        prompt: '@call submit_result {"kind": "circle", "side": 2}',
        parent,
        outputSchema,
      });
      try {
        const result = await run.result;
        assert.equal(result.stopReason, "error");
        assert.equal(result.structured, undefined);
      } finally {
        await run.dispose();
      }
    });
  } finally {
    await host.scope.dispose();
  }
});

Deno.test("spawn honours a recursive outputSchema with $defs", async () => {
  const { host, subagents, parent } = await world();
  const outputSchema = {
    type: "object",
    required: ["tree"],
    properties: { tree: { $ref: "#/$defs/node" } },
    $defs: {
      node: {
        type: "object",
        required: ["name", "children"],
        properties: {
          name: { type: "string" },
          children: { type: "array", items: { $ref: "#/$defs/node" } },
        },
      },
    },
  };
  const tree = { name: "root", children: [{ name: "leaf", children: [] }] };
  const run = subagents.start("spawn", {
    prompt: `@call submit_result ${JSON.stringify({ tree })}`,
    parent,
    outputSchema,
  });
  try {
    const result = await run.result;
    assert.equal(result.stopReason, "completed");
    assert.deepEqual(result.structured, { tree });
  } finally {
    await run.dispose();
    await host.scope.dispose();
  }
});
