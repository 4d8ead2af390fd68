// Malformed input over loopback HTTP: every answer is a spec error (never a
// 5xx, never a hang), and the gateway still serves afterwards.
import assert from "node:assert/strict";
import { SEAM_EXTENSION_URI } from "../gateway/mod.ts";
import { rawRpc, withGateway } from "./gateway_support.ts";

const KNOWN_CODES = new Set([
  -32700,
  -32600,
  -32601,
  -32602,
  -32603,
  -32001,
  -32002,
  -32003,
  -32004,
  -32005,
  -32007,
  -32008,
  -32009,
]);

interface Case {
  readonly label: string;
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

/** A small deterministic PRNG (mulberry32), so a failure reproduces. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function validSend(): Record<string, unknown> {
  return {
    message: {
      messageId: crypto.randomUUID(),
      role: "ROLE_USER",
      parts: [{ text: "complete fuzz" }],
    },
    configuration: { historyLength: 1 },
  };
}

const JSON_HEADERS: Record<string, string> = {
  "content-type": "application/json",
  "a2a-version": "1.0",
};

function generate(count: number, seed: number): Case[] {
  const rand = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)];
  const int = (n: number) => Math.floor(rand() * n);
  const junk = (): unknown =>
    pick<unknown>([
      null,
      true,
      false,
      0,
      -1,
      1.5,
      1e308,
      "",
      "x",
      "ROLE_AGENT",
      [],
      [1, "two"],
      {},
      { nested: { deep: [null] } },
      "\u0000\ud800",
      "a".repeat(int(5_000)),
    ]);
  const envelope = (method: string, params: unknown, id: unknown = int(1000)) =>
    JSON.stringify({ jsonrpc: "2.0", id, method, params });
  const rpc = (label: string, body: string, headers = JSON_HEADERS): Case => ({
    label,
    method: "POST",
    path: "/",
    headers,
    body,
  });

  // Mutate one field somewhere inside a valid SendMessage.
  const mutateSend = (): Case => {
    const params = validSend() as Record<string, Record<string, unknown>>;
    const message = params.message;
    const part = (message.parts as Record<string, unknown>[])[0];
    const targets: [Record<string, unknown>, string][] = [
      [params, "message"],
      [params, "configuration"],
      [params, "metadata"],
      [params, "tenant"],
      [message, "messageId"],
      [message, "role"],
      [message, "parts"],
      [message, "taskId"],
      [message, "contextId"],
      [message, "metadata"],
      [message, "extensions"],
      [part, "text"],
      [part, "raw"],
      [part, "url"],
      [part, "data"],
      [part, "mediaType"],
      [params.configuration, "historyLength"],
      [params.configuration, "returnImmediately"],
      [params.configuration, "acceptedOutputModes"],
      [params.configuration, "taskPushNotificationConfig"],
    ];
    const [target, key] = pick(targets);
    if (rand() < 0.3) delete target[key];
    else target[key] = junk();
    if (rand() < 0.3) {
      message.metadata = {
        [SEAM_EXTENSION_URI]: pick<unknown>([
          junk(),
          { depth: junk() },
          {
            maxDepth: junk(),
            persona: junk(),
          },
          { outputSchema: junk() },
          { toolFilter: junk() },
          { unknown: 1 },
        ]),
      };
    }
    // Keep a valid-by-chance prompt from ever hanging the test.
    if (typeof part.text === "string" && /^\s*hang/.test(part.text)) part.text = "complete x";
    return rpc(`mutated ${key}`, envelope(pick(["SendMessage", "SendStreamingMessage"]), params));
  };

  // The HTTP+JSON binding: paths, methods, bodies.
  const restCase = (): Case => {
    const path = pick([
      "/message:send",
      "/message:stream",
      "/reference/message:send",
      "/nobody/message:send",
      "/tasks",
      "/tasks/x",
      "/tasks/x:cancel",
      "/tasks/x:subscribe",
      "/tasks/x/pushNotificationConfigs",
      "/tasks/x/pushNotificationConfigs/y",
      "/extendedAgentCard",
      "/tasks?pageSize=abc",
      "/tasks?historyLength=-1",
      "/tasks?status=NOPE",
      "/tasks/x?historyLength=z",
      "/a/b/c/d",
      "/%E0%A4%A",
      "/.well-known/nothing",
      "/nobody/.well-known/agent-card.json",
    ]);
    const method = pick(["GET", "POST", "PUT", "DELETE", "PATCH"]);
    const body = method === "GET" ? undefined : pick([
      JSON.stringify(validSend()),
      "{",
      "[]",
      JSON.stringify({ message: junk() }),
      "",
    ]);
    const headers: Record<string, string> = rand() < 0.2
      ? { "content-type": "text/plain", "a2a-version": "1.0" }
      : rand() < 0.1
      ? { "a2a-version": pick(["0.3", "9.9", "abc"]) }
      : JSON_HEADERS;
    return { label: `rest ${method} ${path}`, method, path, headers, body };
  };

  const generators: (() => Case)[] = [
    // Broken JSON.
    () => {
      const text = envelope("SendMessage", validSend());
      return rpc("truncated json", text.slice(0, int(text.length)));
    },
    () => {
      const text = envelope("GetTask", { id: "x" });
      const at = int(text.length);
      return rpc(
        "corrupted json",
        text.slice(0, at) + pick(["}", "{", '"', ",", "\\", "\u0000"]) + text.slice(at + 1),
      );
    },
    () =>
      rpc(
        "random bytes",
        Array.from({ length: int(200) }, () => String.fromCharCode(int(256))).join(""),
      ),
    () => rpc("empty body", ""),
    // JSON that is not a request object.
    () => rpc("not an object", pick(["null", "42", '"str"', "true", "[]", "[1,2]"])),
    () =>
      rpc(
        "batch",
        JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }]),
      ),
    () => rpc("deep nesting", "[".repeat(2_000 + int(3_000)) + "]".repeat(2_000)),
    // Wrong envelopes.
    () =>
      rpc(
        "bad envelope",
        JSON.stringify({
          jsonrpc: pick<unknown>(["1.0", 2, null, undefined, "2.0"]),
          id: pick<unknown>([{}, [], 1.5, true, "ok", 7]),
          method: pick<unknown>([undefined, "", 42, {}, "GetTask"]),
          params: pick<unknown>([[], "s", 3, null, { id: "x" }]),
        }),
      ),
    // Unknown and unsupported methods.
    () =>
      rpc(
        "unknown method",
        envelope(
          pick([
            "message/send",
            "tasks/get",
            "tasks/resubscribe",
            "DoSomething",
            "sendmessage",
            "CreateTaskPushNotificationConfig",
            "ListTaskPushNotificationConfigs",
            "GetExtendedAgentCard",
            Array.from({ length: 1 + int(30) }, () => String.fromCharCode(33 + int(90))).join(""),
          ]),
          { id: "x" },
        ),
      ),
    // Wrong shapes of each method's params.
    mutateSend,
    mutateSend,
    mutateSend,
    () =>
      rpc(
        "bad task params",
        envelope(pick(["GetTask", "CancelTask", "SubscribeToTask"]), {
          id: pick<unknown>([junk(), "", "no-such-task", undefined]),
          historyLength: pick<unknown>([undefined, -1, 1.5, "3", 1e20]),
        }),
      ),
    () =>
      rpc(
        "bad list params",
        envelope("ListTasks", {
          pageSize: pick<unknown>([0, 101, -5, 2.5, "10", undefined]),
          pageToken: pick<unknown>(["!!!", "bm90LWEtdG9rZW4=", 5, undefined]),
          status: pick<unknown>(["TASK_STATE_NOPE", 99, "working", undefined]),
          statusTimestampAfter: pick<unknown>(["yesterday", 5, undefined]),
          includeArtifacts: pick<unknown>(["yes", 1, undefined]),
        }),
      ),
    // Huge fields.
    () => {
      const params = validSend() as { message: Record<string, unknown> };
      const size = pick([100_000, 600_000, 1_500_000]);
      const field = pick(["messageId", "text", "parts", "id"]);
      if (field === "messageId") params.message.messageId = "m".repeat(size);
      else if (field === "text") params.message.parts = [{ text: "complete " + "w".repeat(size) }];
      else if (field === "parts") {
        params.message.parts = Array.from({ length: size / 100 }, () => ({ text: 1 }));
      } else return rpc("huge id", envelope("GetTask", { id: "i".repeat(size) }, "r".repeat(size)));
      return rpc(`huge ${field}`, envelope("SendMessage", params));
    },
    // Wrong content types.
    () =>
      rpc(
        "wrong content type",
        envelope("SendMessage", validSend()),
        {
          "content-type": pick([
            "text/plain",
            "application/xml",
            "multipart/form-data; boundary=x",
            "application/x-www-form-urlencoded",
            "application/jsonx",
          ]),
        },
      ),
    restCase,
    restCase,
    restCase,
  ];
  return Array.from({ length: count }, () => pick(generators)());
}

async function check(url: string, c: Case): Promise<"error" | "ok"> {
  const response = await fetch(`${url}${c.path}`, {
    method: c.method,
    headers: c.headers,
    body: c.body,
  });
  assert.ok(response.status < 500, `${c.label}: answered ${response.status}`);
  const type = response.headers.get("content-type") ?? "";
  if (type.startsWith("text/event-stream")) {
    // A valid-by-chance stream: read it to its end (the task completes).
    await response.text();
    assert.equal(response.status, 200, c.label);
    return "ok";
  }
  const text = await response.text();
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(text);
  } catch {
    throw new assert.AssertionError({ message: `${c.label}: not JSON: ${text.slice(0, 200)}` });
  }
  if (c.path === "/" && c.method === "POST") {
    assert.equal(body.jsonrpc, "2.0", c.label);
    if ("result" in body) return "ok";
    const error = body.error as { code: number; message: string };
    assert.ok(KNOWN_CODES.has(error.code), `${c.label}: code ${error.code}`);
    assert.ok(typeof error.message === "string" && error.message.length > 0, c.label);
    assert.ok(response.status === 200 || response.status === 413, `${c.label}: ${response.status}`);
    return "error";
  }
  if (response.status === 200) return "ok";
  const error = body.error as { code: number; status: string; message: string };
  assert.equal(error.code, response.status, c.label);
  assert.ok(typeof error.status === "string" && error.message.length > 0, c.label);
  return "error";
}

Deno.test("gateway: 1,200 malformed requests each get a spec error, and it still serves", async () => {
  await withGateway({}, async (served) => {
    const cases = generate(1_200, 20261130);
    let errors = 0;
    let ok = 0;
    for (let i = 0; i < cases.length; i += 8) {
      const results = await Promise.all(cases.slice(i, i + 8).map((c) => check(served.url, c)));
      for (const result of results) result === "error" ? errors++ : ok++;
    }
    assert.ok(errors >= 1_000, `only ${errors} of ${cases.length} were errors`);
    // Still serving, nothing leaked, nothing went wrong inside.
    const after = await rawRpc(served.url, "SendMessage", validSend());
    const task = (after.body.result as { task: { status: { state: string } } }).task;
    assert.equal(task.status.state, "TASK_STATE_COMPLETED");
    assert.equal(served.gateway.liveTasks, 0);
    assert.equal(served.reference.live.size, 0);
    const failures = served.logs.filter((r) => r.level === "error");
    assert.deepEqual(failures.map((r) => r.message), []);
    console.log(`fuzz: ${errors} spec errors, ${ok} valid by chance`);
  });
});
