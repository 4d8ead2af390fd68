import assert from "node:assert/strict";

const decoder = new TextDecoder();
const entry = new URL("./node/gateway_server.ts", import.meta.url).pathname;

Deno.test("a bundled build of the gateway serves under Node", async () => {
  const bundled = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--platform", "node", entry],
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.ok(bundled.success, decoder.decode(bundled.stderr));
  const node = new Deno.Command("node", {
    args: ["--input-type=module", "-"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = node.stdin.getWriter();
  await writer.write(bundled.stdout);
  await writer.close();
  const reader = node.stdout.getReader();
  let text = "";
  try {
    while (!/listening \d+/.test(text)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`node exited before listening: ${text}`);
      text += decoder.decode(value);
    }
    const url = `http://127.0.0.1:${text.match(/listening (\d+)/)![1]}`;
    const card = await (await fetch(`${url}/.well-known/agent-card.json`)).json();
    assert.deepEqual(card.skills.map((skill: { id: string }) => skill.id).sort(), [
      "fork",
      "spawn",
    ]);
    const answer = await (await fetch(`${url}/`, {
      method: "POST",
      headers: { "content-type": "application/json", "A2A-Version": "1.0" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "SendMessage",
        params: {
          message: {
            messageId: "node-1",
            role: "ROLE_USER",
            parts: [{ text: "@reply from Node" }],
          },
        },
      }),
    })).json();
    assert.equal(answer.result.task.status.state, "TASK_STATE_COMPLETED");
    assert.equal(answer.result.task.artifacts[0].parts[0].text, "from Node");
  } finally {
    node.kill("SIGTERM");
    reader.releaseLock();
    await node.stdout.cancel();
    const stderr = await new Response(node.stderr).text();
    const status = await node.status;
    assert.equal(status.code, 0, stderr);
  }
});
