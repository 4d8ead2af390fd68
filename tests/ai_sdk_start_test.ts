// `deno task start` on an AI SDK model chosen by the environment alone: the
// provider package named in SEAM_AI_SDK_PROVIDER (here
// @ai-sdk/openai-compatible, made with SEAM_AI_SDK_OPTIONS) is imported at
// start-up, no code per vendor, and the gateway's spawn child answers from a
// fake OpenAI-compatible server on loopback.
import assert from "node:assert/strict";
import { serveFakeOpenAI } from "./ai_sdk_fake_openai.ts";

Deno.test("deno task start runs its children on the AI SDK model SEAM_AI_SDK_PROVIDER names", async () => {
  const fake = serveFakeOpenAI("Hello from the AI SDK.");
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net=127.0.0.1",
      "--allow-env",
      "--allow-sys=hostname",
      new URL("../start/main.ts", import.meta.url).pathname,
    ],
    env: {
      PORT: "0",
      HOST: "127.0.0.1",
      DEEPSEEK_API_KEY: "",
      OPENAI_API_KEY: "",
      SEAM_GATEWAY_TOKEN: "",
      SEAM_INSPECTOR: "",
      DATABASE_URL: "",
      SEAM_AI_SDK_PROVIDER: "@ai-sdk/openai-compatible",
      SEAM_AI_SDK_OPTIONS: JSON.stringify({ name: "fake", baseURL: fake.baseUrl }),
      SEAM_MODEL: "fake-model",
    },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  try {
    let banner = "";
    while (!banner.includes("providers:")) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`start exited early: ${banner}`);
      banner += value;
    }
    assert.match(
      banner,
      /model: fake-model via @ai-sdk\/openai-compatible \(createOpenAICompatible\); providers: spawn, fork/,
    );
    const url = banner.match(/listening on (http:\/\/\S+)/)![1];
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "A2A-Version": "1.0" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "SendMessage",
        params: { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "Hi" }] } },
      }),
    });
    const { result } = await response.json();
    assert.equal(result.task.status.state, "TASK_STATE_COMPLETED");
    assert.equal(result.task.artifacts[0].parts[0].text, "Hello from the AI SDK.");
    assert.equal(fake.requests(), 1);
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await reader.cancel().catch(() => {});
    await fake.close();
  }
});
