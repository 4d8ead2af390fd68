// The gateway in front of an ACP child process: the agent's message chunks
// stream to an A2A client as they arrive, through `subagent/progress`, and
// the process is gone once the task ends and the gateway closes.
import assert from "node:assert/strict";
import { type StreamResponse, TaskState } from "@a2a-js/sdk";
import { createAcpProvider } from "@seam/subagent-acp";
import { AgentWatch, testAgentConfig } from "./acp_support.ts";
import { sendRequest, userMessage, withGateway } from "./gateway_support.ts";

Deno.test("gateway streams an ACP child's chunks to an A2A client as they arrive", async () => {
  const watch = new AgentWatch();
  await withGateway({}, async (served) => {
    const dispose = served.subagents.registerProvider(
      createAcpProvider(testAgentConfig([], { logger: watch.logger })),
    );
    try {
      const client = await served.client("JSONRPC");
      const pieces: string[] = [];
      let final: TaskState | undefined;
      for await (
        const event of client.sendMessageStream(
          sendRequest(userMessage("progress streamed in pieces"), { tenant: "acp" }),
        ) as AsyncIterable<StreamResponse>
      ) {
        const payload = event.payload!;
        if (payload.$case === "artifactUpdate") {
          for (const part of payload.value.artifact?.parts ?? []) {
            if (part.content?.$case === "text") pieces.push(part.content.value);
          }
        }
        if (payload.$case === "statusUpdate") final = payload.value.status?.state;
      }
      assert.equal(final, TaskState.TASK_STATE_COMPLETED);
      assert.ok(pieces.length > 1, `one piece only: ${JSON.stringify(pieces)}`);
      assert.ok(pieces.join("").endsWith("streamed in pieces"), JSON.stringify(pieces));
    } finally {
      await dispose();
    }
  });
  assert.ok(watch.pids.size > 0, "no agent process was seen");
  assert.deepEqual(await watch.live(), [], "processes were left behind");
});
