import assert from "node:assert/strict";
import { z } from "zod";
import {
  type Agent,
  createHost,
  createMemoryLogger,
  createScriptedModel,
  type Host,
  InactiveScopeError,
  JsonSchemaError,
  type Scope,
  type Tool,
  type ToolOutcome,
} from "./mod.ts";

function setup(): Host {
  const host = createHost({ logger: createMemoryLogger().logger });
  host.models.register(host.scope, "scripted", createScriptedModel());
  return host;
}

function tool(name: string, extra: Partial<Tool> = {}): Tool {
  return {
    name,
    description: `the ${name} tool`,
    parameters: { type: "object" },
    execute: () => ({ content: `${name} ran` }),
    ...extra,
  };
}

function names(host: Host, scope: Scope): string[] {
  return host.tools.visible(scope).map((t) => t.name);
}

function textOfOutcome(outcome: ToolOutcome): string {
  return outcome.content.map((b) => b.type === "text" ? b.text : "").join("");
}

async function agentIn(host: Host, scope: Scope = host.scope): Promise<Agent> {
  return await host.agents.create({ parentScope: scope, options: { model: "scripted" } });
}

Deno.test("ToolRegistry.register() validates the tool and reads it once", async (t) => {
  const host = setup();

  await t.step("malformed tools are rejected loudly", () => {
    const bad: [unknown, RegExp][] = [
      [null, /expected a tool object/],
      [tool("has space"), /name must match/],
      [tool("x".repeat(65)), /name must match/],
      [{ ...tool("a"), description: 1 }, /description must be a string/],
      [{ ...tool("a"), execute: "no" }, /execute must be a function/],
      [tool("a", { parameters: { type: "string" } }), /root must be type "object"/],
      [tool("a", { parameters: { type: "object", allOf: [] } }), JsonSchemaError],
      [tool("a", { parameters: z.string() }), /must describe an object/],
      [tool("a", { parameters: z.object({ when: z.date() }) }), /has no JSON Schema form/],
      [
        tool("a", { parameters: { _def: {}, safeParse: () => ({}) } as never }),
        /zod 3 schemas are not supported/,
      ],
    ] as [unknown, RegExp][];
    for (const [candidate, expected] of bad) {
      assert.throws(() => host.tools.register(host.scope, candidate as never), expected);
    }
    assert.deepEqual(names(host, host.scope), []);
  });

  await t.step("the spec is a frozen snapshot", () => {
    const source = { ...tool("snap"), parameters: { type: "object", properties: {} } };
    host.tools.register(host.scope, source);
    (source as { description: string }).description = "changed";
    (source.parameters.properties as Record<string, unknown>).x = { type: "string" };
    const [registered] = host.tools.visible(host.scope);
    assert.equal(registered.spec.description, "the snap tool");
    assert.deepEqual(registered.spec.parameters, { type: "object", properties: {} });
    assert.ok(Object.isFrozen(registered.spec.parameters));
    assert.equal(registered.scope, host.scope);
  });

  await t.step("a duplicate name in the same visible set is rejected", async () => {
    const child = host.scope.child("c");
    assert.throws(() => host.tools.register(host.scope, tool("snap")), /already visible/);
    assert.throws(() => host.tools.register(child, tool("snap")), /already visible/);
    // Hidden by a restriction, the ancestor's tool no longer clashes.
    host.tools.restrict(child, { deny: ["snap"] });
    host.tools.register(child, tool("snap", { description: "the child's own" }));
    assert.deepEqual(host.tools.visible(child).map((t) => t.spec.description), ["the child's own"]);
    await child.dispose();
  });

  await t.step("registration is scope-owned", async () => {
    const child = host.scope.child("c2");
    const dispose = host.tools.register(child, tool("temp"));
    assert.deepEqual(names(host, child), ["snap", "temp"]);
    await dispose();
    assert.deepEqual(names(host, child), ["snap"]);
    host.tools.register(child, tool("temp"));
    await child.dispose();
    assert.throws(() => host.tools.register(child, tool("late")), InactiveScopeError);
  });

  await host.scope.dispose();
});

Deno.test("ToolRegistry.register() accepts a zod 4 schema", async () => {
  const host = setup();
  host.tools.register(host.scope, {
    name: "greet",
    description: "Greet someone",
    parameters: z.object({ name: z.string().min(1), times: z.number().int().default(1) }),
    execute: ({ name, times }: { name: string; times: number }) => ({
      content: `hello ${name}`.repeat(times),
    }),
  });
  const [registered] = host.tools.visible(host.scope);
  const parameters = registered.spec.parameters;
  assert.equal(parameters.type, "object");
  assert.equal(parameters.$schema, undefined);
  assert.deepEqual(parameters.required, ["name"]);
  const agent = await agentIn(host);
  const signal = new AbortController().signal;
  const ok = await host.tools.execute(
    agent,
    { id: "1", name: "greet", args: { name: "ada" } },
    signal,
  );
  assert.equal(
    textOfOutcome(ok),
    "hello ada",
    "zod's parsed output (with defaults) reaches execute",
  );
  const bad = await host.tools.execute(
    agent,
    { id: "2", name: "greet", args: { name: "", times: 1.5 } },
    signal,
  );
  assert.equal(bad.code, "INVALID_ARGS");
  assert.match(textOfOutcome(bad), /args\.name: /);
  assert.match(textOfOutcome(bad), /args\.times: /);
  await host.scope.dispose();
});

Deno.test("ToolRegistry.restrict() filters inherited tools", async (t) => {
  const host = setup();
  for (const name of ["read", "write", "delete", "search"]) {
    host.tools.register(host.scope, tool(name));
  }

  await t.step("rejects unknown names, naming them", () => {
    const child = host.scope.child("c");
    assert.throws(
      () => host.tools.restrict(child, { allow: ["read", "nope"], deny: ["gone"] }),
      (error: unknown) =>
        error instanceof RangeError && /unknown tool names "nope", "gone"/.test(error.message),
    );
    assert.deepEqual(names(host, child), ["read", "write", "delete", "search"]);
  });

  await t.step("rejects an empty filter and malformed lists", () => {
    const child = host.scope.child("c");
    assert.throws(() => host.tools.restrict(child, {}), /the filter is empty/);
    assert.throws(
      () => host.tools.restrict(child, { allow: undefined, deny: undefined }),
      /the filter is empty/,
    );
    assert.throws(
      () => host.tools.restrict(child, { allow: "read" as never }),
      /allow must be an array/,
    );
    assert.throws(() => host.tools.restrict(child, { deny: [1] as never }), /deny\[0\]/);
    assert.throws(() => host.tools.restrict(child, null as never), /expected a filter object/);
  });

  await t.step("allow and deny; an empty allow list hides everything inherited", () => {
    const a = host.scope.child("a");
    host.tools.restrict(a, { allow: ["read", "write", "search"], deny: ["write"] });
    assert.deepEqual(names(host, a), ["read", "search"]);
    const none = host.scope.child("none");
    host.tools.restrict(none, { allow: [] });
    assert.deepEqual(names(host, none), []);
    assert.deepEqual(
      names(host, host.scope),
      ["read", "write", "delete", "search"],
      "the parent is untouched",
    );
  });

  await t.step("restrictions along the chain intersect", () => {
    const a = host.scope.child("a");
    host.tools.restrict(a, { allow: ["read", "write", "search"] });
    const b = a.child("b");
    host.tools.restrict(b, { deny: ["search"] });
    const c = b.child("c");
    host.tools.restrict(c, { allow: ["read", "write", "delete"] });
    assert.deepEqual(names(host, c), ["read", "write"]);
    host.tools.restrict(c, { deny: ["write"] });
    assert.deepEqual(names(host, c), ["read"]);
  });

  await t.step("tools registered in the restricted scope or below stay visible", () => {
    const a = host.scope.child("a");
    host.tools.restrict(a, { allow: ["read"] });
    host.tools.register(a, tool("own"));
    const b = a.child("b");
    host.tools.register(b, tool("deeper"));
    assert.deepEqual(names(host, a), ["read", "own"]);
    assert.deepEqual(names(host, b), ["read", "own", "deeper"]);
    host.tools.restrict(b, { allow: ["own"] });
    assert.deepEqual(names(host, b), ["own", "deeper"]);
  });

  await t.step(
    "a hidden tool is refused as unknown; disposing the restriction lifts it",
    async () => {
      const a = host.scope.child("a");
      const lift = host.tools.restrict(a, { deny: ["delete"] });
      const agent = await agentIn(host, a);
      const outcome = await host.tools.execute(
        agent,
        { id: "x", name: "delete", args: {} },
        new AbortController().signal,
      );
      assert.equal(outcome.code, "UNKNOWN_TOOL");
      assert.match(
        textOfOutcome(outcome),
        /Unknown tool "delete"\. Available tools: read, write, search\./,
      );
      await lift();
      assert.deepEqual(names(host, agent.scope), ["read", "write", "delete", "search"]);
      await a.dispose();
    },
  );

  await host.scope.dispose();
});

Deno.test("ToolRegistry.visible() rejects two visible tools with one name", async () => {
  const host = setup();
  const child = host.scope.child("c");
  host.tools.register(child, tool("late"));
  host.tools.register(host.scope, tool("late")); // the ancestor registers the name afterwards
  assert.throws(() => host.tools.visible(child), /two visible tools are named "late"/);
  assert.deepEqual(names(host, host.scope), ["late"]);
  await host.scope.dispose();
});

Deno.test("ToolRegistry.guard() can deny a call with a reason", async (t) => {
  const host = setup();
  let ran = 0;
  host.tools.register(
    host.scope,
    tool("act", {
      execute: () => {
        ran++;
        return { content: "acted" };
      },
    }),
  );
  const signal = new AbortController().signal;
  const child = host.scope.child("c");
  const agent = await agentIn(host, child);
  const seen: unknown[] = [];
  const dispose = host.tools.guard(child, (call) => {
    seen.push([call.agent.id, call.callId, call.name, call.args]);
    return call.args && (call.args as { n?: number }).n === 13 ? { deny: "unlucky" } : undefined;
  });

  await t.step("allowed and denied calls", async () => {
    const ok = await host.tools.execute(agent, { id: "1", name: "act", args: { n: 1 } }, signal);
    assert.equal(ok.isError, false);
    const denied = await host.tools.execute(
      agent,
      { id: "2", name: "act", args: { n: 13 } },
      signal,
    );
    assert.equal(denied.code, "DENIED");
    assert.equal(textOfOutcome(denied), 'Tool "act" was denied: unlucky');
    assert.equal(ran, 1);
    assert.deepEqual(seen, [[agent.id, "1", "act", { n: 1 }], [agent.id, "2", "act", { n: 13 }]]);
  });

  await t.step("a throwing or async guard", async () => {
    const a = host.tools.guard(child, async () => {
      await Promise.resolve();
      return undefined;
    });
    const b = host.tools.guard(child, () => {
      throw new Error("guard bug");
    });
    const denied = await host.tools.execute(agent, { id: "3", name: "act", args: {} }, signal);
    assert.equal(denied.code, "DENIED");
    assert.match(textOfOutcome(denied), /a guard failed: guard bug/);
    await a();
    await b();
  });

  await t.step("a guard only sees its scope's subtree and goes with its scope", async () => {
    const outside = await agentIn(host);
    seen.length = 0;
    await host.tools.execute(outside, { id: "4", name: "act", args: { n: 13 } }, signal);
    assert.deepEqual(seen, []);
    await dispose();
    const ok = await host.tools.execute(agent, { id: "5", name: "act", args: { n: 13 } }, signal);
    assert.equal(ok.isError, false);
  });

  await host.scope.dispose();
});

Deno.test("ToolRegistry.execute() turns every failure into an error result", async (t) => {
  const host = setup();
  const agent = await agentIn(host);
  const signal = new AbortController().signal;
  const run = (name: string, args: unknown = {}) =>
    host.tools.execute(agent, { id: "c", name, args: args as never }, signal);

  await t.step("UNKNOWN_TOOL", async () => {
    const outcome = await run("missing");
    assert.deepEqual(
      { ...outcome, content: textOfOutcome(outcome) },
      {
        callId: "c",
        name: "missing",
        content: 'Unknown tool "missing". Available tools: none.',
        isError: true,
        stopTurn: false,
        code: "UNKNOWN_TOOL",
      },
    );
  });

  await t.step("INVALID_ARGS lists the issues", async () => {
    host.tools.register(
      host.scope,
      tool("typed", {
        parameters: {
          type: "object",
          properties: { n: { type: "integer", minimum: 0 } },
          required: ["n"],
          additionalProperties: false,
        },
      }),
    );
    const outcome = await run("typed", { n: -1.5, extra: true });
    assert.equal(outcome.code, "INVALID_ARGS");
    assert.match(textOfOutcome(outcome), /- args\.n: expected integer, got number/);
    assert.match(textOfOutcome(outcome), /- args\.extra: is not an allowed property/);
    assert.equal((await run("typed", { n: 1 })).isError, false);
  });

  await t.step("TOOL_FAILED for a throw, a rejection or a malformed result", async () => {
    host.tools.register(
      host.scope,
      tool("throws", {
        execute: () => {
          throw new Error("kaput");
        },
      }),
    );
    host.tools.register(
      host.scope,
      tool("rejects", { execute: () => Promise.reject(new Error("async kaput")) }),
    );
    host.tools.register(host.scope, tool("malformed", { execute: () => "just text" as never }));
    host.tools.register(
      host.scope,
      tool("badblock", {
        execute: () => ({ content: [{ type: "video" }] as never }),
      }),
    );
    host.tools.register(
      host.scope,
      tool("badflag", { execute: () => ({ content: "x", stopTurn: 1 as never }) }),
    );
    const expected: [string, RegExp][] = [
      ["throws", /Tool "throws" failed: kaput/],
      ["rejects", /Tool "rejects" failed: async kaput/],
      ["malformed", /returned an invalid result: expected \{ content/],
      ["badblock", /returned an invalid result: Invalid content\[0\]\.type/],
      ["badflag", /stopTurn must be a boolean/],
    ];
    for (const [name, pattern] of expected) {
      const outcome = await run(name);
      assert.equal(outcome.code, "TOOL_FAILED", name);
      assert.match(textOfOutcome(outcome), pattern);
    }
  });

  await t.step("a tool's own error result and stopTurn pass through", async () => {
    host.tools.register(
      host.scope,
      tool("own", {
        execute: () => ({
          content: [{ type: "text", text: "nope" }],
          isError: true,
          stopTurn: true,
        }),
      }),
    );
    const outcome = await run("own");
    assert.equal(outcome.isError, true);
    assert.equal(outcome.stopTurn, true);
    assert.equal(outcome.code, undefined);
    assert.ok(Object.isFrozen(outcome.content));
  });

  await t.step("ABORTED when the signal is already aborted", async () => {
    const outcome = await host.tools.execute(
      agent,
      { id: "z", name: "own", args: {} },
      AbortSignal.abort(),
    );
    assert.equal(outcome.code, "ABORTED");
  });

  await host.scope.dispose();
});
