import assert from "node:assert/strict";
import { databaseUrl, dropSchema, freshSchema, SKIP } from "../gateway_postgres/_test_support.ts";

const decoder = new TextDecoder();

/** Start `deno task start`'s entry on a free port; resolve its base URL from the banner. */
async function startGateway(
  extraEnv: Record<string, string> = {},
  entry: string = "./main.ts",
): Promise<
  { url: string; process: Deno.ChildProcess; output: string[] }
> {
  const process = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net=127.0.0.1",
      "--allow-env",
      new URL(entry, import.meta.url).pathname,
    ],
    env: {
      PORT: "0",
      HOST: "127.0.0.1",
      DEEPSEEK_API_KEY: "",
      OPENAI_API_KEY: "",
      SEAM_GATEWAY_TOKEN: "",
      SEAM_INSPECTOR: "",
      DATABASE_URL: "",
      ...extraEnv,
    },
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const output: string[] = [];
  const reader = process.stdout.getReader();
  let buffer = "";
  while (!buffer.includes("providers:")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the gateway exited early: ${buffer}`);
    buffer += decoder.decode(value);
  }
  reader.releaseLock();
  // Keep draining so the child never blocks on a full pipe.
  process.stdout.pipeTo(
    new WritableStream({ write: (chunk) => void output.push(decoder.decode(chunk)) }),
  );
  output.push(buffer);
  const url = buffer.match(/listening on (http:\/\/\S+)/)![1];
  return { url, process, output };
}

async function rpc(url: string, method: string, params: unknown) {
  const response = await fetch(`${url}/`, {
    method: "POST",
    headers: { "content-type": "application/json", "A2A-Version": "1.0" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return await response.json();
}

function send(url: string, text: string, tenant?: string) {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "A2A-Version": "1.0" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: {
        ...(tenant ? { tenant } : {}),
        message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] },
      },
    }),
  }).then((response) => response.json());
}

Deno.test("deno task start serves spawn and fork and answers the banner's request", async () => {
  const { url, process, output } = await startGateway();
  try {
    const banner = output.join("");
    assert.match(banner, /agent card: http:\/\/127\.0\.0\.1:\d+\/\.well-known\/agent-card\.json/);
    assert.match(banner, /model: scripted; providers: spawn, fork/);
    const card = await (await fetch(`${url}/.well-known/agent-card.json`)).json();
    assert.deepEqual(card.skills.map((skill: { id: string }) => skill.id).sort(), [
      "fork",
      "spawn",
    ]);
    // The request the banner prints (and the README shows).
    const curl = banner.match(/-d '(.+)'/)![1];
    const bannerBody = JSON.parse(curl);
    const answer = await (await fetch(`${url}/`, {
      method: "POST",
      headers: { "content-type": "application/json", "A2A-Version": "1.0" },
      body: JSON.stringify(bannerBody),
    })).json();
    assert.equal(answer.result.task.status.state, "TASK_STATE_COMPLETED");
    assert.equal(answer.result.task.artifacts[0].parts[0].text, "Hello!");
    const forked = await send(`${url}/`, "@reply from the fork", "fork");
    assert.equal(forked.result.task.status.state, "TASK_STATE_COMPLETED");
    assert.equal(forked.result.task.artifacts[0].parts[0].text, "from the fork");
    const extension =
      forked.result.task.metadata["https://jsr.io/@seam/gateway/extensions/subagent/v1"];
    assert.equal(extension.provider, "fork");
  } finally {
    process.kill("SIGTERM");
    const status = await process.status;
    assert.equal(status.success, true, "a clean exit on SIGTERM");
  }
});

Deno.test("deno task start answers A2A 0.3 clients and takes its public URL from SEAM_PUBLIC_URL", async () => {
  const { url, process } = await startGateway({ SEAM_PUBLIC_URL: "https://agents.example.test/" });
  try {
    // The card names the public URL, in 1.0's shape and in 0.3's (asked without A2A-Version).
    const card = await (await fetch(`${url}/.well-known/agent-card.json`, {
      headers: { "A2A-Version": "1.0" },
    })).json();
    assert.equal(card.supportedInterfaces[0].url, "https://agents.example.test/");
    const card03 = await (await fetch(`${url}/.well-known/agent-card.json`)).json();
    assert.equal(card03.protocolVersion, "0.3");
    assert.equal(card03.url, "https://agents.example.test/");
    // A 0.3 client's message/send (no A2A-Version) is answered, not refused as unknown.
    const answer = await (await fetch(`${url}/`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "message/send",
        params: {
          message: {
            kind: "message",
            messageId: crypto.randomUUID(),
            role: "user",
            parts: [{ kind: "text", text: "@reply from a 0.3 client" }],
          },
        },
      }),
    })).json();
    assert.equal(answer.result?.kind, "task", JSON.stringify(answer));
    assert.equal(answer.result.status.state, "completed");
    assert.equal(answer.result.artifacts[0].parts[0].text, "from a 0.3 client");
  } finally {
    process.kill("SIGTERM");
    assert.equal((await process.status).success, true, "a clean exit on SIGTERM");
  }
});

Deno.test("serveStart() takes SEAM_PUBLIC_URL from the env it is given", async () => {
  const { url, process } = await startGateway({}, "./testdata/serve_given_env.ts");
  try {
    const card = await (await fetch(`${url}/.well-known/agent-card.json`, {
      headers: { "A2A-Version": "1.0" },
    })).json();
    assert.equal(card.supportedInterfaces[0].url, "https://given.example.test/");
  } finally {
    process.kill("SIGTERM");
    assert.equal((await process.status).success, true, "a clean exit on SIGTERM");
  }
});

Deno.test("deno task start turns bearer auth on with SEAM_GATEWAY_TOKEN", async () => {
  const { url, process } = await startGateway({ SEAM_GATEWAY_TOKEN: "s3cret-token" });
  try {
    const refused = await fetch(`${url}/`, {
      method: "POST",
      headers: { "content-type": "application/json", "A2A-Version": "1.0" },
      body: "{}",
    });
    await refused.body?.cancel();
    assert.equal(refused.status, 401);
    const answer = await (await fetch(`${url}/`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "A2A-Version": "1.0",
        authorization: "Bearer s3cret-token",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "SendMessage",
        params: {
          message: { messageId: "m-1", role: "ROLE_USER", parts: [{ text: "@reply ok" }] },
        },
      }),
    })).json();
    assert.equal(answer.result.task.status.state, "TASK_STATE_COMPLETED");
  } finally {
    process.kill("SIGTERM");
    await process.status;
  }
});

Deno.test("deno task start serves the run inspector with SEAM_INSPECTOR=1, and not without", async () => {
  for (const on of [true, false]) {
    const { url, process } = await startGateway(on ? { SEAM_INSPECTOR: "1" } : {});
    try {
      const page = await fetch(`${url}/_inspect`);
      const html = await page.text();
      assert.equal(page.status, on ? 200 : 404);
      assert.equal(html.includes("seam inspector"), on);
    } finally {
      process.kill("SIGTERM");
      await process.status;
    }
  }
});

Deno.test("deno task start warns on stderr before serving without auth beyond loopback", async () => {
  // Listening is allowed on 127.0.0.1 only, so the bind to 0.0.0.0 is refused after the warning.
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net=127.0.0.1",
      "--allow-env",
      new URL("./main.ts", import.meta.url).pathname,
    ],
    env: {
      PORT: "0",
      HOST: "0.0.0.0",
      DEEPSEEK_API_KEY: "",
      OPENAI_API_KEY: "",
      SEAM_GATEWAY_TOKEN: "",
      DATABASE_URL: "",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stderr = decoder.decode(output.stderr);
  assert.match(stderr, /WARNING: serving the seam gateway on 0\.0\.0\.0 without auth/);
  assert.equal(output.success, false);
});

Deno.test({
  name: "deno task start keeps tasks and push configs in PostgreSQL when DATABASE_URL is set",
  ignore: SKIP,
  fn: async () => {
    const schema = freshSchema();
    try {
      const first = await startGateway({
        DATABASE_URL: databaseUrl()!,
        SEAM_DATABASE_SCHEMA: schema,
      });
      let id: string;
      try {
        assert.match(
          first.output.join(""),
          new RegExp(`storage: PostgreSQL \\(schema "${schema}"\\)`),
        );
        const answer = await send(`${first.url}/`, "@reply kept");
        assert.equal(answer.result.task.status.state, "TASK_STATE_COMPLETED");
        id = answer.result.task.id;
        const card = await (await fetch(`${first.url}/.well-known/agent-card.json`)).json();
        assert.equal(card.capabilities.pushNotifications, true);
        const created = await rpc(first.url, "CreateTaskPushNotificationConfig", {
          taskId: id,
          id: "kept-hook",
          url: "https://hooks.example.com/seam",
        });
        assert.equal(created.result?.id, "kept-hook", JSON.stringify(created));
      } finally {
        first.process.kill("SIGTERM");
        assert.equal((await first.process.status).success, true);
      }
      // Another start on the same database still has the task.
      const second = await startGateway({
        DATABASE_URL: databaseUrl()!,
        SEAM_DATABASE_SCHEMA: schema,
      });
      try {
        const got = await (await fetch(`${second.url}/`, {
          method: "POST",
          headers: { "content-type": "application/json", "A2A-Version": "1.0" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "GetTask", params: { id } }),
        })).json();
        assert.equal(got.result.status.state, "TASK_STATE_COMPLETED");
        assert.equal(got.result.artifacts[0].parts[0].text, "kept");
        const config = await rpc(second.url, "GetTaskPushNotificationConfig", {
          taskId: id,
          id: "kept-hook",
        });
        assert.equal(config.result?.url, "https://hooks.example.com/seam", JSON.stringify(config));
      } finally {
        second.process.kill("SIGTERM");
        await second.process.status;
      }
    } finally {
      await dropSchema(schema);
    }
  },
});

Deno.test("deno task start says what went wrong when PostgreSQL cannot be reached", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net=127.0.0.1",
      "--allow-env",
      new URL("./main.ts", import.meta.url).pathname,
    ],
    env: {
      PORT: "0",
      DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/none`,
      DEEPSEEK_API_KEY: "",
      OPENAI_API_KEY: "",
    },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.success, false);
  assert.match(
    decoder.decode(output.stderr),
    /Cannot start the PostgreSQL task store .*ECONNREFUSED/,
  );
});

Deno.test("deno task start names the variable that stopped it, without a stack: exit 2 for a value that cannot work", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net=127.0.0.1,999.1.1.1", // the lookup of HOST needs it
      "--allow-env",
      new URL("./main.ts", import.meta.url).pathname,
    ],
    env: { PORT: "0", HOST: "999.1.1.1", DATABASE_URL: "", SEAM_GATEWAY_TOKEN: "" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(output.code, 2);
  assert.equal(
    decoder.decode(output.stderr),
    'Cannot start: HOST must be an IP address or a host name of this machine, got "999.1.1.1" (no such name); use 127.0.0.1 (this machine only) or 0.0.0.0 (every interface)\n',
  );
});
