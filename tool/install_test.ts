import assert from "node:assert/strict";
import { mock } from "node:test";
import {
  type Agent,
  agentCreated,
  createHost,
  createMemoryLogger,
  createRootScope,
  createScriptedModel,
  type Host,
  InactiveScopeError,
  type LogRecord,
  type ScriptedModelOptions,
  textOf,
  type ToolOutcome,
  type ToolSpec,
} from "@seam/host";
import {
  createSubagentService,
  type SubagentProvider,
  type SubagentRequest,
  type SubagentResultInput,
  type SubagentService,
  subagentStart,
} from "@seam/subagent";
import { createForkProvider } from "@seam/subagent-fork";
import { createSpawnProvider } from "@seam/subagent-spawn";
import { installSubagentTool, type SubagentToolConfig, subagentToolWording } from "./mod.ts";

interface World {
  host: Host;
  subagents: SubagentService;
  main: Agent;
  records: LogRecord[];
  created: string[];
  dispose(): Promise<void>;
}

/** A host on the scripted model with the subagent service and a parent agent `main`. */
async function world(script?: ScriptedModelOptions["script"]): Promise<World> {
  const { logger, records } = createMemoryLogger();
  const host = createHost({ logger });
  host.models.register(host.scope, "scripted", createScriptedModel(script ? { script } : {}));
  const subagents = createSubagentService(host.scope);
  const created: string[] = [];
  host.scope.on(agentCreated, (info) => void created.push(info.agent.id));
  const main = await host.agents.create({ id: "main", options: { model: "scripted" } });
  return { host, subagents, main, records, created, dispose: () => host.scope.dispose() };
}

function names(w: World, scope = w.host.scope): string[] {
  return w.host.tools.visible(scope).map((tool) => tool.name);
}

function specOf(w: World, name: string, scope = w.host.scope): ToolSpec {
  const tool = w.host.tools.visible(scope).find((t) => t.name === name);
  assert.ok(tool, `tool "${name}" is visible`);
  return tool.spec;
}

/** Run one call of the tool as `main`'s model would. */
function call(
  w: World,
  prompt: string,
  options: { name?: string; signal?: AbortSignal; agent?: Agent } = {},
): Promise<ToolOutcome> {
  return w.host.tools.execute(
    options.agent ?? w.main,
    {
      id: "call_0",
      name: options.name ?? "subagent",
      args: { description: "a test task", prompt },
    },
    options.signal ?? new AbortController().signal,
  );
}

interface SpiedRun {
  readonly request: SubagentRequest;
  readonly cancel: ReturnType<typeof mock.fn>;
  readonly dispose: ReturnType<typeof mock.fn>;
}

/** Wrap `inner`, recording each request and counting each run's `cancel`/`dispose` calls. */
function spy(
  inner: SubagentProvider,
  options: { name?: string; onStart?: (request: SubagentRequest) => void } = {},
): { provider: SubagentProvider; runs: SpiedRun[] } {
  const runs: SpiedRun[] = [];
  return {
    runs,
    provider: {
      name: options.name ?? inner.name,
      capabilities: inner.capabilities,
      inheritsParentContext: inner.inheritsParentContext,
      start(request) {
        options.onStart?.(request);
        const handle = inner.start(request);
        const cancel = mock.fn((reason?: string) => handle.cancel(reason));
        const dispose = mock.fn(() => handle.dispose());
        runs.push({ request, cancel, dispose });
        return {
          id: handle.id,
          started: handle.started,
          result: handle.result,
          cancel,
          dispose,
        };
      },
    },
  };
}

/** Wait (a millisecond at a time, at most a second) until `condition()` holds. */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !condition(); i++) {
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  assert.ok(condition(), "the condition came true in time");
}

const NO_CAPABILITIES = Object.freeze({
  outputSchema: false,
  depthLimit: false,
  toolFilter: false,
  persona: false,
});

/** A provider that answers at once with `respond(request)`. */
function fake(
  name: string,
  respond: (request: SubagentRequest) => SubagentResultInput,
  inheritsParentContext = false,
): SubagentProvider {
  let n = 0;
  return {
    name,
    capabilities: NO_CAPABILITIES,
    inheritsParentContext,
    start: (request) => ({
      id: `${name}-${++n}`,
      started: Promise.resolve(),
      result: Promise.resolve().then(() => respond(request)),
      cancel() {},
      dispose: () => Promise.resolve(),
    }),
  };
}

Deno.test("installSubagentTool() delegates and returns the child's reply", async (t) => {
  await t.step("a parent's call returns the child's final text", async () => {
    const w = await world();
    w.subagents.registerProvider(createSpawnProvider());
    installSubagentTool(w.host.scope, { provider: "spawn" });
    w.main.send(
      '@call subagent {"description": "Greet", "prompt": "@reply hello from the child"}\n' +
        "@reply The child said: {{results}}",
    );
    const end = await w.main.whenIdle();
    assert.equal(end.reason, "completed");
    assert.equal(textOf(end.output), "The child said: hello from the child");
    const result = w.main.session.events().find((e) => e.type === "tool-result");
    assert.ok(result?.type === "tool-result");
    assert.equal(result.isError, false);
    assert.deepEqual(w.created, ["main", w.created[1]]);
    assert.deepEqual(w.host.agents.list().map((a) => a.id), ["main"], "the child is gone");
    await w.dispose();
  });
  await t.step("a start-time refusal becomes an error result, never an exception", async () => {
    const w = await world();
    w.subagents.registerProvider(fake("bare", () => ({ output: "x", stopReason: "completed" })));
    installSubagentTool(w.host.scope, { provider: "bare", persona: "You are terse." });
    assert.ok(
      w.records.some((r) =>
        r.level === "warn" && /does not support config\.persona/.test(r.message)
      ),
    );
    const outcome = await call(w, "hi");
    assert.equal(outcome.isError, true);
    assert.equal(outcome.code, undefined, "the tool made the error result itself");
    assert.match(textOf(outcome.content), /could not be started/);
    assert.match(textOf(outcome.content), /UNSUPPORTED_CAPABILITY/);
    assert.match(textOf(outcome.content), /persona/);
    await w.dispose();
  });
  await t.step("a result the service rejects becomes an error result", async () => {
    const w = await world();
    const { provider, runs } = spy(
      fake("broken", () => ({ output: "x", stopReason: "sideways" as never })),
    );
    w.subagents.registerProvider(provider);
    installSubagentTool(w.host.scope, { provider: "broken" });
    const outcome = await call(w, "hi");
    assert.equal(outcome.isError, true);
    assert.match(textOf(outcome.content), /broke down \(provider "broken"\)/);
    assert.match(textOf(outcome.content), /stopReason/);
    assert.equal(runs[0].dispose.mock.callCount(), 1);
    await w.dispose();
  });
});

Deno.test("installSubagentTool() shows the model exactly {description, prompt}", async (t) => {
  const w = await world();
  w.subagents.registerProvider(createSpawnProvider());
  w.subagents.registerProvider(createForkProvider());
  installSubagentTool(w.host.scope, { provider: "spawn" });
  installSubagentTool(w.host.scope, { provider: "fork", toolName: "subagent_fork" });

  await t.step("the schema: two required strings, nothing else", () => {
    for (const [name, inherits] of [["subagent", false], ["subagent_fork", true]] as const) {
      const wording = subagentToolWording(inherits);
      const spec = specOf(w, name);
      assert.equal(spec.name, name);
      assert.deepEqual(spec.parameters, {
        type: "object",
        properties: {
          description: { type: "string", description: wording.label },
          prompt: { type: "string", description: wording.prompt },
        },
        required: ["description", "prompt"],
        additionalProperties: false,
      });
      assert.equal(spec.description, wording.description);
    }
  });
  await t.step("a provider argument or a missing prompt is refused by validation", async () => {
    const extra = await w.host.tools.execute(w.main, {
      id: "c1",
      name: "subagent",
      args: { description: "x", prompt: "@reply y", provider: "fork" },
    }, new AbortController().signal);
    assert.equal(extra.code, "INVALID_ARGS");
    const missing = await w.host.tools.execute(w.main, {
      id: "c2",
      name: "subagent",
      args: { description: "x" },
    }, new AbortController().signal);
    assert.equal(missing.code, "INVALID_ARGS");
    assert.deepEqual(w.created, ["main"], "no child was started");
  });
  await t.step("fresh wording: the child does not see this conversation", () => {
    const spec = specOf(w, "subagent");
    const prompt = (spec.parameters.properties as Record<string, { description: string }>)
      .prompt.description;
    for (const text of [spec.description, prompt]) {
      assert.match(text, /does not see this conversation/);
      assert.match(text, /self-contained/);
      assert.doesNotMatch(text, /already sees/);
    }
  });
  await t.step("inheriting wording: the child already sees the completed turns", () => {
    const spec = specOf(w, "subagent_fork");
    const prompt = (spec.parameters.properties as Record<string, { description: string }>)
      .prompt.description;
    for (const text of [spec.description, prompt]) {
      assert.match(text, /already sees the completed turns of this conversation/);
      assert.match(text, /only what is new/);
      assert.doesNotMatch(text, /does not see/);
    }
  });
  await w.dispose();
});

Deno.test("installSubagentTool() maps every stop reason", async (t) => {
  const cases: [string, string, RegExp[]][] = [
    ["completed", "@reply all done", [/^all done$/]],
    [
      "error",
      "@fail the disk is full",
      [/^The subagent failed before finishing its task\.\nWhat went wrong \(CHILD_FAILED\): the disk is full$/],
    ],
    ["max-tokens", "@max-tokens half an ans", [/hit the token limit/, /half an ans/]],
    ["refusal", "@refuse I will not do that", [/declined the task/, /I will not do that/]],
  ];
  for (const [reason, prompt, patterns] of cases) {
    await t.step(
      `${reason} → ${reason === "completed" ? "its text" : "an error result"}`,
      async () => {
        const w = await world();
        w.subagents.registerProvider(createSpawnProvider());
        installSubagentTool(w.host.scope, { provider: "spawn" });
        const outcome = await call(w, prompt);
        assert.equal(outcome.isError, reason !== "completed");
        for (const pattern of patterns) assert.match(textOf(outcome.content), pattern);
        await w.dispose();
      },
    );
  }
  await t.step("aborted → an error result saying it was cancelled", async () => {
    const w = await world();
    w.subagents.registerProvider(createSpawnProvider());
    installSubagentTool(w.host.scope, { provider: "spawn" });
    const controller = new AbortController();
    w.host.scope.on(subagentStart, () => controller.abort());
    const outcome = await call(w, "@hang", { signal: controller.signal });
    assert.equal(outcome.isError, true);
    assert.match(textOf(outcome.content), /was cancelled before it finished/);
    await w.dispose();
  });
});

Deno.test("installSubagentTool() always disposes the run, once", async (t) => {
  const setup = async (options: Parameters<typeof spy>[1] = {}) => {
    const w = await world();
    const spied = spy(createSpawnProvider(), options);
    w.subagents.registerProvider(spied.provider);
    installSubagentTool(w.host.scope, { provider: "spawn" });
    return { w, runs: spied.runs };
  };
  await t.step("on success", async () => {
    const { w, runs } = await setup();
    assert.equal(textOf((await call(w, "@reply fine")).content), "fine");
    assert.equal(runs.length, 1);
    assert.equal(runs[0].dispose.mock.callCount(), 1);
    assert.equal(runs[0].cancel.mock.callCount(), 0);
    assert.deepEqual(w.host.agents.list().map((a) => a.id), ["main"]);
    await w.dispose();
    assert.equal(runs[0].dispose.mock.callCount(), 1, "the scope teardown did not dispose again");
  });
  await t.step("on error", async () => {
    const { w, runs } = await setup();
    assert.equal((await call(w, "@fail nope")).isError, true);
    assert.equal(runs[0].dispose.mock.callCount(), 1);
    assert.deepEqual(w.host.agents.list().map((a) => a.id), ["main"]);
    await w.dispose();
  });
  await t.step("on abort: cancel once, dispose once", async () => {
    const { w, runs } = await setup();
    const controller = new AbortController();
    w.host.scope.on(subagentStart, () => controller.abort());
    const outcome = await call(w, "@hang", { signal: controller.signal });
    assert.match(textOf(outcome.content), /cancelled/);
    assert.equal(runs[0].cancel.mock.callCount(), 1);
    assert.equal(runs[0].dispose.mock.callCount(), 1);
    assert.deepEqual(w.host.agents.list().map((a) => a.id), ["main"]);
    await w.dispose();
  });
  await t.step("on a signal already aborted when the run starts: cancel once", async () => {
    const controller = new AbortController();
    const { w, runs } = await setup({ onStart: () => controller.abort() });
    const outcome = await call(w, "@reply never", { signal: controller.signal });
    assert.equal(outcome.isError, true);
    assert.match(textOf(outcome.content), /cancelled/);
    assert.equal(runs[0].cancel.mock.callCount(), 1);
    assert.equal(runs[0].dispose.mock.callCount(), 1);
    assert.deepEqual(w.created, ["main"], "no child was ever published");
    await w.dispose();
  });
  await t.step("when the parent's turn is cancelled mid-delegation", async () => {
    const { w, runs } = await setup();
    w.host.scope.on(subagentStart, () => w.main.cancel("user pressed stop"));
    w.main.send('@call subagent {"description": "wait", "prompt": "@hang"}');
    const end = await w.main.whenIdle();
    assert.equal(end.reason, "aborted");
    // The turn ends at once; the tool's own cleanup finishes right after.
    await until(() => runs[0].dispose.mock.callCount() > 0);
    assert.equal(runs[0].cancel.mock.callCount(), 1);
    assert.equal(runs[0].dispose.mock.callCount(), 1);
    assert.deepEqual(w.host.agents.list().map((a) => a.id), ["main"]);
    await w.dispose();
  });
});

Deno.test("installSubagentTool() passes its options through, and only those given", async (t) => {
  const setup = async (config: Omit<SubagentToolConfig, "provider">) => {
    const w = await world();
    w.host.models.register(w.host.scope, "other", createScriptedModel());
    w.host.tools.register(w.host.scope, {
      name: "lookup",
      description: "Look something up",
      parameters: { type: "object" },
      execute: () => ({ content: "found" }),
    });
    const spied = spy(createSpawnProvider());
    w.subagents.registerProvider(spied.provider);
    installSubagentTool(w.host.scope, { provider: "spawn", ...config });
    return { w, runs: spied.runs };
  };
  await t.step("every option given", async () => {
    const { w, runs } = await setup({
      agentOptions: { model: "other" },
      persona: "You are Ada, terse.",
      toolFilter: { deny: ["subagent"] },
      maxDepth: 3,
    });
    const outcome = await call(w, "@system");
    assert.equal(textOf(outcome.content), "You are Ada, terse.", "the child got the persona");
    const request = runs[0].request;
    assert.deepEqual(Object.keys(request).sort(), [
      "agentOptions",
      "label",
      "maxDepth",
      "parent",
      "persona",
      "place",
      "prompt",
      "signal",
      "toolFilter",
    ]);
    assert.equal(request.label, "a test task", "the call's description is the run's label");
    assert.deepEqual(request.agentOptions, { model: "other" });
    assert.equal(request.persona, "You are Ada, terse.");
    assert.deepEqual(request.toolFilter, { deny: ["subagent"] });
    assert.equal(request.maxDepth, 3);
    assert.equal(request.parent, w.main);
    assert.deepEqual(request.prompt, [{ type: "text", text: "@system" }]);
    await w.dispose();
  });
  await t.step("nothing given: the keys are absent, never {} or allow: []", async () => {
    const { w, runs } = await setup({});
    await call(w, "@reply hi");
    assert.deepEqual(Object.keys(runs[0].request).sort(), [
      "label",
      "parent",
      "place",
      "prompt",
      "signal",
    ]);
    await w.dispose();
  });
  await t.step("agentOptions without a model and a filter with one list stay minimal", async () => {
    const { w, runs } = await setup({
      agentOptions: {},
      toolFilter: { allow: ["lookup"] },
      persona: undefined,
    });
    const outcome = await call(w, '@call subagent {"description": "x", "prompt": "y"}');
    assert.match(textOf(outcome.content), /Unknown tool "subagent"/, "the child sees lookup only");
    const request = runs[0].request;
    assert.equal(Object.hasOwn(request, "agentOptions"), false);
    assert.equal(Object.hasOwn(request, "persona"), false);
    assert.deepEqual(Object.keys(request.toolFilter!), ["allow"]);
    await w.dispose();
  });
});

Deno.test("installSubagentTool() rejects a bad config at install", async (t) => {
  const bad: [string, unknown, RegExp, ErrorConstructor][] = [
    ["no config", undefined, /config must be an object/, TypeError],
    ["no provider", {}, /config\.provider/, TypeError],
    ["an empty provider", { provider: "" }, /config\.provider/, TypeError],
    [
      "an unknown key",
      { provider: "spawn", providr: "x" },
      /^Cannot install the subagent tool: unknown option providr \(known: provider, toolName, .*reportUsage\)$/,
      TypeError,
    ],
    [
      "a bad tool name",
      { provider: "spawn", toolName: "sub agent" },
      /config\.toolName/,
      TypeError,
    ],
    [
      "a bad model",
      { provider: "spawn", agentOptions: { model: 1 } },
      /agentOptions\.model/,
      TypeError,
    ],
    [
      "an unknown agent option",
      { provider: "spawn", agentOptions: { temperature: 1 } },
      /unknown option agentOptions\.temperature \(known: model\)$/,
      TypeError,
    ],
    ["an empty persona", { provider: "spawn", persona: "  " }, /config\.persona/, TypeError],
    [
      "a filter naming neither list",
      { provider: "spawn", toolFilter: {} },
      /^Cannot install the subagent tool: config\.toolFilter must name an allow list, a deny list or both$/,
      TypeError,
    ],
    [
      "a filter with a stray key",
      { provider: "spawn", toolFilter: { allow: [], only: [] } },
      /unknown field config\.toolFilter\.only \(known: allow, deny\)/,
      TypeError,
    ],
    [
      "a filter list that is not a list",
      { provider: "spawn", toolFilter: { deny: "bash" } },
      /config\.toolFilter\.deny must be an array/,
      TypeError,
    ],
    ["a negative maxDepth", { provider: "spawn", maxDepth: -1 }, /config\.maxDepth/, RangeError],
    ["a fractional maxDepth", { provider: "spawn", maxDepth: 1.5 }, /config\.maxDepth/, RangeError],
    ["a string maxDepth", { provider: "spawn", maxDepth: "2" }, /config\.maxDepth/, TypeError],
  ];
  for (const [label, config, pattern, type] of bad) {
    await t.step(label, async () => {
      const w = await world();
      assert.throws(
        () => installSubagentTool(w.host.scope, config as SubagentToolConfig),
        (error: unknown) => {
          assert.ok(error instanceof type, `${label}: ${error}`);
          assert.match((error as Error).message, pattern);
          return true;
        },
      );
      w.subagents.registerProvider(createSpawnProvider());
      assert.deepEqual(names(w), [], "a rejected install mounts nothing later");
      await w.dispose();
    });
  }
  await t.step("no host, no service, an inactive scope", async () => {
    const w = await world();
    const bare = createRootScope();
    createSubagentService(bare);
    assert.throws(() => installSubagentTool(bare, { provider: "spawn" }), /no host is provided/);
    const lonely = createHost({ logger: createMemoryLogger().logger });
    assert.throws(
      () => installSubagentTool(lonely.scope, { provider: "spawn" }),
      /Cannot install the subagent tool: Cannot find the subagent service/,
    );
    const gone = w.host.scope.child("gone");
    await gone.dispose();
    assert.throws(() => installSubagentTool(gone, { provider: "spawn" }), InactiveScopeError);
    await bare.dispose();
    await lonely.scope.dispose();
    await w.dispose();
  });
  await t.step("a second load under the same name, mounted or still waiting", async () => {
    const w = await world();
    const first = installSubagentTool(w.host.scope, { provider: "spawn" });
    assert.throws(
      () => installSubagentTool(w.host.scope, { provider: "fork" }),
      /a tool named "subagent" is already installed/,
    );
    assert.throws(
      () => installSubagentTool(w.host.scope.child("plugin"), { provider: "fork" }),
      /already installed/,
      "a descendant scope cannot shadow it either",
    );
    w.subagents.registerProvider(createSpawnProvider());
    assert.throws(
      () => installSubagentTool(w.host.scope, { provider: "fork" }),
      /already installed/,
    );
    await first();
    installSubagentTool(w.host.scope, { provider: "spawn" });
    assert.deepEqual(names(w), ["subagent"]);
    await w.dispose();
  });
});

Deno.test("installSubagentTool() mirrors its provider's lifecycle", async (t) => {
  await t.step("installed first: waits, with a note; mounts when the provider comes", async () => {
    const w = await world();
    installSubagentTool(w.host.scope, { provider: "spawn" });
    assert.deepEqual(names(w), []);
    assert.ok(
      w.records.some((r) =>
        r.level === "info" && /"subagent" waits for subagent provider "spawn"/.test(r.message)
      ),
    );
    w.subagents.registerProvider(createForkProvider({ name: "other" }));
    assert.deepEqual(names(w), [], "another provider does not mount it");
    w.subagents.registerProvider(createSpawnProvider());
    assert.deepEqual(names(w), ["subagent"]);
    assert.equal(specOf(w, "subagent").description, subagentToolWording(false).description);
    assert.equal(textOf((await call(w, "@reply late but here")).content), "late but here");
    await w.dispose();
  });
  await t.step(
    "a removed provider unmounts it; a re-registration re-derives the wording",
    async () => {
      const w = await world();
      const off = w.subagents.registerProvider(createSpawnProvider());
      installSubagentTool(w.host.scope, { provider: "spawn" });
      assert.match(specOf(w, "subagent").description, /does not see this conversation/);
      await off();
      assert.deepEqual(names(w), []);
      assert.ok(
        w.records.some((r) => r.level === "info" && /the provider was removed/.test(r.message)),
      );
      // The same name comes back, now a provider whose child inherits the context.
      w.subagents.registerProvider(createForkProvider({ name: "spawn" }));
      const spec = specOf(w, "subagent");
      assert.equal(spec.description, subagentToolWording(true).description);
      assert.equal(
        (spec.parameters.properties as Record<string, { description: string }>).prompt.description,
        subagentToolWording(true).prompt,
      );
      await w.dispose();
    },
  );
  await t.step("installed in a plugin scope below the service's", async () => {
    const w = await world();
    const plugin = w.host.scope.child("plugin");
    installSubagentTool(plugin, { provider: "spawn" });
    const off = w.subagents.registerProvider(createSpawnProvider());
    assert.deepEqual(names(w, plugin), ["subagent"]);
    assert.deepEqual(names(w), [], "registered in the plugin scope only");
    const agent = await w.host.agents.create({
      id: "plugin-agent",
      parentScope: plugin,
      options: { model: "scripted" },
    });
    assert.equal(textOf((await call(w, "@reply from below", { agent })).content), "from below");
    await off();
    assert.deepEqual(names(w, plugin), []);
    w.subagents.registerProvider(createSpawnProvider());
    assert.deepEqual(names(w, plugin), ["subagent"]);
    await plugin.dispose();
    // The listeners went with the plugin scope: churn on the service is harmless.
    await w.subagents.registerProvider(createForkProvider())();
    assert.ok(!w.records.some((r) => r.level === "error"), "nothing failed");
    await w.dispose();
  });
  await t.step("the disposer removes the tool and stops listening", async () => {
    const w = await world();
    w.subagents.registerProvider(createForkProvider({ name: "fork" }));
    const dispose = installSubagentTool(w.host.scope, { provider: "fork" });
    assert.deepEqual(names(w), ["subagent"]);
    await dispose();
    assert.deepEqual(names(w), []);
    w.subagents.registerProvider(createSpawnProvider({ name: "spawn" }));
    const off = w.subagents.registerProvider(createSpawnProvider({ name: "again" }));
    await off();
    assert.deepEqual(names(w), []);
    await dispose();
    await w.dispose();
  });
});

Deno.test("installSubagentTool() loaded twice routes each tool to its own provider", async () => {
  const w = await world();
  const alpha = spy(fake("alpha", (r) => ({
    output: `alpha did ${textOf(r.prompt)}`,
    stopReason: "completed",
  })));
  const beta = spy(
    fake(
      "beta",
      (r) => ({ output: `beta did ${textOf(r.prompt)}`, stopReason: "completed" }),
      true,
    ),
  );
  installSubagentTool(w.host.scope, { provider: "alpha", toolName: "ask_alpha" });
  w.subagents.registerProvider(alpha.provider);
  w.subagents.registerProvider(beta.provider);
  installSubagentTool(w.host.scope, { provider: "beta", toolName: "ask_beta" });
  assert.deepEqual(names(w), ["ask_alpha", "ask_beta"]);
  assert.match(specOf(w, "ask_alpha").description, /does not see this conversation/);
  assert.match(specOf(w, "ask_beta").description, /already sees the completed turns/);
  w.main.send(
    `@calls ${
      JSON.stringify([
        { name: "ask_alpha", args: { description: "one", prompt: "task one" } },
        { name: "ask_beta", args: { description: "two", prompt: "task two" } },
      ])
    }\n@reply {{results}}`,
  );
  const end = await w.main.whenIdle();
  assert.equal(textOf(end.output), "alpha did task one\nbeta did task two");
  assert.equal(alpha.runs.length, 1);
  assert.equal(beta.runs.length, 1);
  assert.equal(alpha.runs[0].dispose.mock.callCount(), 1);
  assert.equal(beta.runs[0].dispose.mock.callCount(), 1);
  await w.dispose();
});

Deno.test("installSubagentTool() bounds recursion at maxDepth", async (t) => {
  // Every agent on this model delegates "recurse" again, then relays what it got.
  const recurse: ScriptedModelOptions["script"] = (context) =>
    context.prompt === "recurse"
      ? context.step === 0
        ? { calls: [{ name: "subagent", args: { description: "go deeper", prompt: "recurse" } }] }
        : { reply: "{{results}}" }
      : undefined;
  await t.step("a child that calls the tool again stops at the cap", async () => {
    const w = await world(recurse);
    w.subagents.registerProvider(createSpawnProvider());
    installSubagentTool(w.host.scope, { provider: "spawn", maxDepth: 2 });
    w.main.send("recurse");
    const end = await w.main.whenIdle();
    assert.equal(end.reason, "completed");
    assert.equal(w.created.length, 3, "main, a child and a grandchild; nothing deeper");
    assert.match(textOf(end.output), /The subagent could not be started/);
    assert.match(textOf(end.output), /depth 3, above the maximum depth 2/);
    assert.match(textOf(end.output), /MAX_DEPTH_EXCEEDED/);
    assert.deepEqual(w.host.agents.list().map((a) => a.id), ["main"]);
    await w.dispose();
  });
  await t.step("maxDepth 0 refuses the first delegation", async () => {
    const w = await world(recurse);
    w.subagents.registerProvider(createSpawnProvider());
    installSubagentTool(w.host.scope, { provider: "spawn", maxDepth: 0 });
    w.main.send("recurse");
    const end = await w.main.whenIdle();
    assert.match(textOf(end.output), /depth 1, above the maximum depth 0/);
    assert.deepEqual(w.created, ["main"]);
    await w.dispose();
  });
  await t.step("deny-listing the tool hides it from the children", async () => {
    const w = await world(recurse);
    w.subagents.registerProvider(createSpawnProvider());
    installSubagentTool(w.host.scope, { provider: "spawn", toolFilter: { deny: ["subagent"] } });
    w.main.send("recurse");
    const end = await w.main.whenIdle();
    assert.match(textOf(end.output), /Unknown tool "subagent"/);
    assert.equal(w.created.length, 2);
    await w.dispose();
  });
});

Deno.test("installSubagentTool() adds the run's usage to the tool result with reportUsage", async (t) => {
  await t.step("reportUsage: true appends the subtree's usage line", async () => {
    const w = await world();
    w.subagents.registerProvider(createSpawnProvider());
    installSubagentTool(w.host.scope, { provider: "spawn", reportUsage: true });
    const outcome = await call(w, "@reply three small words");
    const text = textOf(outcome.content);
    assert.match(
      text,
      /^three small words\n\n\[usage: \d+ input tokens, 3 output, 1 model call, 0 tool calls, \d+\.\d s\]$/,
    );
    await w.dispose();
  });
  await t.step("by default the parent sees the child's words only", async () => {
    const w = await world();
    w.subagents.registerProvider(createSpawnProvider());
    installSubagentTool(w.host.scope, { provider: "spawn" });
    const outcome = await call(w, "@reply three small words");
    assert.equal(textOf(outcome.content), "three small words");
    await w.dispose();
  });
  await t.step("a reportUsage that is not a boolean is refused by name", async () => {
    const w = await world();
    assert.throws(
      () => installSubagentTool(w.host.scope, { provider: "spawn", reportUsage: "yes" as never }),
      /config\.reportUsage must be a boolean/,
    );
    await w.dispose();
  });
});
