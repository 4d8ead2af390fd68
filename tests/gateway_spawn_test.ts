// The gateway in front of the real in-process `spawn` provider (scripted
// model), over loopback HTTP with the SDK client: streamed text, a depth cap
// holding through the gateway and the child's own delegation, steering and
// resume.
import assert from "node:assert/strict";
import { createHost, createMemoryLogger, createScriptedModel } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createSpawnProvider } from "@seam/subagent-spawn";
import { installSubagentTool } from "@seam/tool-subagent";
import { type StreamResponse, type Task, TaskState } from "@a2a-js/sdk";
import { createGateway, type Gateway, SEAM_EXTENSION_URI } from "../gateway/mod.ts";
import { type Binding, BINDINGS, makeClient, sendRequest, userMessage } from "./gateway_support.ts";

async function withSpawnGateway(
  fn: (ctx: { url: string; gateway: Gateway; children: () => number }) => Promise<void>,
): Promise<void> {
  const host = createHost({ logger: createMemoryLogger().logger });
  host.models.register(host.scope, "scripted", createScriptedModel());
  const subagents = createSubagentService(host.scope);
  subagents.registerProvider(createSpawnProvider());
  installSubagentTool(host.scope, { provider: "spawn" });
  const gateway = createGateway({ scope: host.scope, agentOptions: { model: "scripted" } });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => gateway.fetch(request),
  );
  try {
    await fn({
      url: `http://127.0.0.1:${server.addr.port}`,
      gateway,
      children: () => host.agents.list().length,
    });
    await gateway.close();
    assert.equal(host.agents.list().length, 0, "close() disposed every child");
  } finally {
    await gateway.close();
    await server.shutdown();
    await host.scope.dispose();
  }
}

function outputText(task: Task): string {
  return task.artifacts.flatMap((a) => a.parts).map((p) =>
    p.content?.$case === "text" ? p.content.value : ""
  ).join("");
}

const withExt = (text: string, ext: Record<string, unknown>) =>
  userMessage(text, { metadata: { [SEAM_EXTENSION_URI]: ext } });

for (const binding of BINDINGS as readonly Binding[]) {
  Deno.test(`gateway over ${binding} in front of spawn`, async (t) => {
    await withSpawnGateway(async ({ url, children }) => {
      const client = await makeClient(url, binding);

      await t.step(
        "the child's streamed words arrive as artifact updates, then the whole",
        async () => {
          const events: StreamResponse[] = [];
          for await (
            const event of client.sendMessageStream(
              sendRequest(userMessage("@reply one two three")),
            )
          ) events.push(event);
          const updates = events.flatMap((e) =>
            e.payload?.$case === "artifactUpdate" ? [e.payload.value] : []
          );
          assert.ok(updates.length >= 4, `expected word deltas, got ${updates.length} updates`);
          const deltas = updates.slice(0, -1);
          assert.equal(deltas[0].append, false);
          assert.ok(deltas.slice(1).every((u) => u.append && !u.lastChunk));
          const streamed = deltas.map((u) =>
            u.artifact!.parts.map((p) => p.content?.value).join("")
          ).join("");
          const last = updates.at(-1)!;
          assert.equal(last.lastChunk, true);
          assert.equal(last.append, false);
          assert.equal(last.artifact!.parts[0].content?.value, "one two three");
          assert.equal(streamed, "one two three");
          const end = events.at(-1)!.payload!;
          assert.equal(end.$case, "statusUpdate");
          assert.equal(
            (end.value as { status: { state: number } }).status.state,
            TaskState.TASK_STATE_COMPLETED,
          );
          // The finished child stays for a follow-up in its context (maxResumableRuns).
          assert.equal(children(), 1);
        },
      );

      await t.step("a maxDepth set upstream holds for the child's own delegations", async () => {
        const prompt =
          '@call subagent {"description": "nest", "prompt": "@reply from the grandchild"}\n@reply {{results}}';
        const within = await client.sendMessage(
          sendRequest(withExt(prompt, { depth: 0, maxDepth: 2 })),
        ) as Task;
        assert.equal(outputText(within), "from the grandchild");
        const beyond = await client.sendMessage(
          sendRequest(withExt(prompt, { depth: 1, maxDepth: 2 })),
        ) as Task;
        assert.equal(beyond.status?.state, TaskState.TASK_STATE_COMPLETED);
        assert.match(outputText(beyond), /depth 3, above the maximum depth 2/);
      });

      await t.step("a follow-up in the context resumes the finished child", async () => {
        const first = await client.sendMessage(sendRequest(userMessage("@reply first"))) as Task;
        const second = await client.sendMessage(
          sendRequest(userMessage("@reply second", { contextId: first.contextId })),
        ) as Task;
        assert.equal(outputText(second), "second");
        const meta = second.metadata?.[SEAM_EXTENSION_URI] as Record<string, unknown>;
        assert.equal(meta.resumedFrom, first.id);
      });

      await t.step("a follow-up on the running task steers the child", async () => {
        const running = await client.sendMessage(
          sendRequest(userMessage("@delay 150\n@reply first"), { returnImmediately: true }),
        ) as Task;
        const steered = await client.sendMessage(
          sendRequest(
            userMessage("@reply steered", { taskId: running.id, contextId: running.contextId }),
          ),
        ) as Task;
        assert.equal(steered.id, running.id);
        assert.equal(steered.status?.state, TaskState.TASK_STATE_COMPLETED);
        assert.equal(outputText(steered), "steered");
      });
    });
  });
}
