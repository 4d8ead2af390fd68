// The A2A provider against a seam gateway (spawn on the scripted model):
// discovery and addressing, streamed progress, the seam extension and depth,
// resume and steering, cancel and disposal, auth.
import assert from "node:assert/strict";
import { type ContentBlock, createMemoryLogger, createRootScope, textOf } from "@seam/host";
import {
  createSubagentService,
  delegationContextKey,
  SubagentDepthError,
  subagentProgress,
  type SubagentProvider,
  type SubagentResultInput,
} from "@seam/subagent";
import { createA2AProvider } from "@seam/subagent-a2a";
import { SEAM_EXTENSION_URI } from "../gateway/mod.ts";
import { SEAM_EXTENSION_URI as CLIENT_URI } from "../providers/a2a/_extension.ts";
import { type Reach, type SpawnGateway, startSpawnGateway, until } from "./a2a_support.ts";

const NO_CAPS = { outputSchema: false, depthLimit: false, toolFilter: false, persona: false };

/** A provider whose runs confirm a cancel only after `confirmMs`. */
function slowProvider(confirmMs: number): SubagentProvider {
  return {
    name: "slow",
    capabilities: NO_CAPS,
    inheritsParentContext: true,
    start() {
      let settle!: (result: SubagentResultInput) => void;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const result = new Promise<SubagentResultInput>((resolve) => settle = resolve);
      return {
        id: `slow-${crypto.randomUUID()}`,
        started: Promise.resolve(),
        result,
        cancel() {
          timer ??= setTimeout(() => settle({ output: "late", stopReason: "aborted" }), confirmMs);
        },
        dispose() {
          clearTimeout(timer);
          settle({ output: "", stopReason: "aborted" });
          return Promise.resolve();
        },
      };
    },
  };
}

/** A local side: a root scope, its service, and a parent on a child scope. */
function local() {
  const { logger } = createMemoryLogger();
  const root = createRootScope({ logger });
  const subagents = createSubagentService(root);
  const parent = { id: "main", scope: root.child("main") };
  return { root, subagents, parent };
}

/** Every request body the gateway received, parsed (fetch reach only). */
function recordBodies(
  remote: SpawnGateway,
): { bodies: Record<string, unknown>[]; fetch: typeof fetch } {
  const bodies: Record<string, unknown>[] = [];
  const fetchImpl: typeof fetch = async (input, init) => {
    const request = new Request(input, init);
    if (request.method === "POST") {
      const text = await request.clone().text();
      if (text) bodies.push(JSON.parse(text));
    }
    return remote.fetch!(request);
  };
  return { bodies, fetch: fetchImpl };
}

function seamExtensionOf(body: Record<string, unknown>): Record<string, unknown> | undefined {
  const params = (body.params ?? body) as { message?: { metadata?: Record<string, unknown> } };
  return params.message?.metadata?.[SEAM_EXTENSION_URI] as Record<string, unknown> | undefined;
}

for (const reach of ["loopback", "fetch"] as const satisfies readonly Reach[]) {
  Deno.test(`A2A provider → seam gateway (${reach})`, async (t) => {
    const remote = startSpawnGateway(reach, {
      setup: (_host, subagents) => subagents.registerProvider(slowProvider(300)),
    });
    const { root, subagents, parent } = local();
    try {
      await t.step(
        "createA2AProvider() mirrors the addressed provider's capabilities",
        async () => {
          const spawn = await createA2AProvider({ url: remote.url, fetch: remote.fetch });
          assert.deepEqual({ ...spawn.capabilities }, {
            outputSchema: true,
            depthLimit: true,
            toolFilter: true,
            persona: true,
            budget: true,
          });
          assert.equal(spawn.inheritsParentContext, false);
          assert.equal(spawn.name, "a2a");
          assert.deepEqual(
            { ...spawn.remote },
            {
              cardUrl: `${remote.url}/.well-known/agent-card.json`,
              name: "seam gateway",
              binding: "JSONRPC",
              protocolVersion: "1.0",
              streaming: true,
              seam: true,
              provider: "spawn",
            },
          );
          const slow = await createA2AProvider({
            url: remote.url,
            fetch: remote.fetch,
            provider: "slow",
            binding: "HTTP+JSON",
            name: "slow",
          });
          assert.deepEqual({ ...slow.capabilities }, { ...NO_CAPS, budget: false });
          assert.equal(slow.inheritsParentContext, true);
          assert.equal(slow.remote.binding, "HTTP+JSON");
          // A provider's own card addresses it.
          const own = await createA2AProvider({ url: `${remote.url}/slow`, fetch: remote.fetch });
          assert.equal(own.remote.provider, "slow");
          assert.equal(own.remote.cardUrl, `${remote.url}/slow/.well-known/agent-card.json`);
          await assert.rejects(
            createA2AProvider({ url: remote.url, fetch: remote.fetch, provider: "nope" }),
            /has no provider "nope" \(registered: spawn, slow\)/,
          );
          await Promise.all([spawn.dispose(), slow.dispose(), own.dispose()]);
        },
      );

      const a2a = await createA2AProvider({ url: remote.url, fetch: remote.fetch });
      subagents.registerProvider(a2a);

      await t.step("streamed text arrives as subagent/progress, once, in order", async () => {
        const seen: string[] = [];
        const kinds: string[] = [];
        const hops: unknown[] = [];
        const off = parent.scope.on(subagentProgress, (info) => {
          kinds.push(info.kind);
          if (info.kind === "remote") hops.push(info.remote);
          else seen.push(`${info.runId}:${info.text}`);
        });
        const run = subagents.start("a2a", { prompt: "@reply one two three", parent });
        try {
          const result = await run.result;
          assert.equal(result.stopReason, "completed");
          assert.deepEqual(result.output, [{ type: "text", text: "one two three" }]);
          assert.ok(seen.length >= 3, `expected word deltas, got ${seen.length}`);
          assert.ok(seen.every((s) => s.startsWith(`${run.id}:`)));
          assert.equal(seen.map((s) => s.slice(run.id.length + 1)).join(""), "one two three");
          // First where the run went: the remote agent and the task it made there.
          assert.equal(kinds[0], "remote");
          assert.ok(kinds.slice(1).every((kind) => kind === "text"));
          assert.equal(hops.length, 1);
          const hop = hops[0] as { url: string; agentName: string; taskId: string };
          assert.equal(hop.url, a2a.remote.cardUrl);
          assert.equal(hop.agentName, a2a.remote.name);
          assert.match(hop.taskId, /^[0-9a-f-]{36}$/);
        } finally {
          await run.dispose();
          await off();
        }
      });

      await t.step("a start above an inherited cap throws before any request", () => {
        const capped = root.child("capped");
        capped.provide(delegationContextKey, { depth: 2, maxDepth: 2 });
        const before = remote.requests.length;
        assert.throws(
          () => subagents.start("a2a", { prompt: "@reply no", parent: { id: "x", scope: capped } }),
          (error: unknown) =>
            error instanceof SubagentDepthError && error.depth === 3 && error.maxDepth === 2,
        );
        assert.equal(remote.requests.length, before);
      });

      await t.step("a bearer token goes with every request", async () => {
        const secured = startSpawnGateway(reach, { auth: { tokens: { alice: "s3cret" } } });
        try {
          const withToken = await createA2AProvider({
            url: secured.url,
            fetch: secured.fetch,
            token: "s3cret",
            name: "secured",
          });
          const without = await createA2AProvider({
            url: secured.url,
            fetch: secured.fetch,
            name: "open",
          });
          const ok = withToken.start({ prompt: [{ type: "text", text: "@reply hi" }], parent });
          const refused = without.start({ prompt: [{ type: "text", text: "@reply hi" }], parent });
          assert.equal((await ok.result).stopReason, "completed");
          const denied = await refused.result;
          assert.equal(denied.stopReason, "error");
          assert.equal(denied.error?.code, "AUTH_REQUIRED");
          assert.match(denied.error!.message, /authentication failed: .*HTTP 401.*Unauthenticated/);
          await Promise.all([ok.dispose(), refused.dispose()]);
          await Promise.all([withToken.dispose(), without.dispose()]);
        } finally {
          await secured.close();
        }
      });

      await t.step(
        "cancel ends aborted once the remote answered CancelTask; dispose waits for it too",
        async () => {
          const slow = await createA2AProvider({
            url: remote.url,
            fetch: remote.fetch,
            provider: "slow",
            name: "slow",
          });
          const run = slow.start({ prompt: [{ type: "text", text: "work" }], parent });
          await run.started;
          await until(() => remote.gateway.liveTasks === 1);
          run.cancel("enough");
          const result = await run.result;
          assert.equal(result.stopReason, "aborted");
          // The result waited for CancelTask's answer (the remote confirms in 300 ms), so
          // it can say whether the remote refused: this one did not.
          assert.equal(remote.gateway.liveTasks, 0, "the result waited for the remote's answer");
          assert.equal(result.error, undefined, JSON.stringify(result.error));
          await run.dispose();
          assert.equal(remote.gateway.liveTasks, 0, "dispose waited for CancelTask's answer");
          await slow.dispose();
        },
      );

      await t.step("resume continues the child's context on the gateway", async () => {
        const first = subagents.start("a2a", { prompt: "@reply first", parent });
        try {
          assert.equal((await first.result).stopReason, "completed");
          assert.ok(first.resume, "runs on a seam gateway can resume");
          const second = first.resume!("@reply second");
          try {
            const result = await second.result;
            assert.equal(result.stopReason, "completed");
            assert.equal(textOf(result.output), "second");
          } finally {
            await second.dispose();
          }
        } finally {
          await first.dispose();
        }
      });

      await t.step("sendMessage steers the running child", async () => {
        const run = subagents.start("a2a", { prompt: "@delay 150\n@reply first", parent });
        try {
          await run.started;
          await run.sendMessage!("@reply steered");
          const result = await run.result;
          assert.equal(result.stopReason, "completed");
          assert.equal(textOf(result.output), "steered");
          await assert.rejects(run.sendMessage!("late"), /has finished; use resume\(\)/);
        } finally {
          await run.dispose();
        }
      });

      await t.step(
        "provider.dispose() ends live runs aborted and cancels their tasks",
        async () => {
          const own = await createA2AProvider({
            url: remote.url,
            fetch: remote.fetch,
            name: "own",
          });
          const run = own.start({ prompt: [{ type: "text", text: "@hang" }], parent });
          await run.started;
          await until(() => remote.gateway.liveTasks === 1);
          await own.dispose();
          assert.equal((await run.result).stopReason, "aborted");
          // The task ended and its child stopped (an idle child may be kept for a follow-up).
          await until(() =>
            remote.gateway.liveTasks === 0 &&
            remote.host.agents.list().every((agent) => agent.state !== "running")
          );
          assert.throws(
            () => own.start({ prompt: [{ type: "text", text: "@reply" }], parent }),
            /provider "own" was disposed/,
          );
          await run.dispose();
        },
      );

      await a2a.dispose();
    } finally {
      await root.dispose();
      await remote.close();
    }
  });
}

Deno.test("the A2A provider's seam extension URI is the gateway's", () => {
  assert.equal(CLIENT_URI, SEAM_EXTENSION_URI);
});

Deno.test("A2A provider: the seam extension carries the depth, the cap and the options", async () => {
  const remote = startSpawnGateway("fetch");
  const { root, subagents } = local();
  try {
    const { bodies, fetch } = recordBodies(remote);
    const a2a = await createA2AProvider({ url: remote.url, fetch });
    subagents.registerProvider(a2a);
    const scope = root.child("deep");
    scope.provide(delegationContextKey, { depth: 2, maxDepth: 6 });
    const parent = { id: "deep-parent", scope };
    const run = subagents.start("a2a", {
      prompt: "@hang",
      parent,
      maxDepth: 5,
      persona: "You are P.",
      toolFilter: { allow: [] },
    });
    try {
      await run.started;
      await until(() => remote.host.agents.list().length === 1);
      assert.equal(
        remote.host.agents.list()[0].options.subagentDepth,
        3,
        "the child sits at 2 + 1",
      );
      const sent = bodies.find((b) => seamExtensionOf(b));
      assert.deepEqual(seamExtensionOf(sent!), {
        depth: 2,
        maxDepth: 5,
        persona: "You are P.",
        toolFilter: { allow: [] },
        path: [run.id], // its run path, for the input requests of the runs over there
      });
      const message = (sent!.params as { message: { extensions: string[] } }).message;
      assert.deepEqual(message.extensions, [SEAM_EXTENSION_URI]);
    } finally {
      await run.dispose();
    }
    // The inherited cap travels when the request sets none.
    const capped = subagents.start("a2a", { prompt: "@reply ok", parent });
    assert.equal((await capped.result).stopReason, "completed");
    await capped.dispose();
    assert.deepEqual(seamExtensionOf(bodies.at(-1)!), {
      depth: 2,
      maxDepth: 6,
      path: [capped.id],
    });
    await a2a.dispose();
  } finally {
    await root.dispose();
    await remote.close();
  }
});

Deno.test("A2A provider: resume on a gateway that kept no run ends error and cancels the fresh task", async () => {
  const remote = startSpawnGateway("fetch", { maxResumableRuns: 0 });
  const { root, subagents, parent } = local();
  try {
    const a2a = await createA2AProvider({ url: remote.url, fetch: remote.fetch });
    subagents.registerProvider(a2a);
    const first = subagents.start("a2a", { prompt: "@reply first", parent });
    assert.equal((await first.result).stopReason, "completed");
    const second = first.resume!("@hang");
    const result = await second.result;
    assert.equal(result.stopReason, "error");
    assert.equal(result.error?.code, "PROTOCOL_ERROR");
    assert.match(result.error!.message, /did not continue context ".+": it started a fresh run/);
    await second.dispose();
    await first.dispose();
    assert.equal(await remote.liveChildren(), 0, "the fresh task was cancelled");
    await a2a.dispose();
  } finally {
    await root.dispose();
    await remote.close();
  }
});

/** A provider that honours a depth cap, records each start's cap, and can resume. */
function cappedProvider(): SubagentProvider & { readonly caps: (number | undefined)[] } {
  const caps: (number | undefined)[] = [];
  const start: SubagentProvider["start"] = (request) => {
    caps.push(request.maxDepth);
    const text = (request.prompt as ContentBlock[]).map((b) => b.type === "text" ? b.text : "")
      .join("");
    return {
      id: `capped-${crypto.randomUUID()}`,
      started: Promise.resolve(),
      result: Promise.resolve({ output: text, stopReason: "completed" as const }),
      cancel() {},
      dispose: () => Promise.resolve(),
      resume: (content) =>
        start({
          ...request,
          prompt: typeof content === "string" ? [{ type: "text", text: content }] : content,
        }),
    };
  };
  return {
    name: "capped",
    capabilities: { ...NO_CAPS, depthLimit: true },
    inheritsParentContext: false,
    caps,
    start,
  };
}

Deno.test("A2A provider: resume carries the depth cap, so it holds kept run or fresh", async (t) => {
  for (const kept of [true, false]) {
    await t.step(
      kept ? "the gateway resumes its kept run" : "the gateway starts afresh",
      async () => {
        const capped = cappedProvider();
        const remote = startSpawnGateway("fetch", {
          maxResumableRuns: kept ? 8 : 0,
          setup: (_host, subagents) => subagents.registerProvider(capped),
        });
        const { root, subagents, parent } = local();
        try {
          const { bodies, fetch } = recordBodies(remote);
          const a2a = await createA2AProvider({ url: remote.url, fetch, provider: "capped" });
          subagents.registerProvider(a2a);
          const first = subagents.start("a2a", { prompt: "first", parent, maxDepth: 4 });
          assert.equal((await first.result).stopReason, "completed");
          const second = first.resume!("second");
          const result = await second.result;
          assert.deepEqual(seamExtensionOf(bodies.at(-1)!), {
            depth: 0,
            maxDepth: 4,
            path: [second.id],
          });
          if (kept) {
            assert.equal(result.stopReason, "completed", textOf(result.output));
            assert.equal(textOf(result.output), "second");
            assert.deepEqual(capped.caps, [4, 4], "one start and its resume, under the cap");
          } else {
            // The provider refuses a fresh run as a continuation, but that run was capped too.
            assert.equal(result.stopReason, "error");
            assert.deepEqual(capped.caps, [4, 4], "the fresh run started under the cap");
          }
          await second.dispose();
          await first.dispose();
          await a2a.dispose();
        } finally {
          await root.dispose();
          await remote.close();
        }
      },
    );
  }
});
