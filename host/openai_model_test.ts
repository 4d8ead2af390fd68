import assert from "node:assert/strict";
import {
  createHost,
  createMemoryLogger,
  createOpenAICompatibleModel,
  DEEPSEEK_BASE_URL,
  type ModelAdapter,
  type ModelEvent,
  modelFromEnv,
  type ModelRequest,
  OPENAI_BASE_URL,
  OPENAI_COMPATIBLE_PRESETS,
} from "./mod.ts";

interface Seen {
  bodies: Record<string, unknown>[];
  headers: Headers[];
  paths: string[];
}

/** Run `fn` against a local server; the server is always shut down. */
async function withServer(
  handler: (request: Request, index: number) => Response | Promise<Response>,
  fn: (baseUrl: string, seen: Seen) => Promise<void>,
): Promise<void> {
  const seen: Seen = { bodies: [], headers: [], paths: [] };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      seen.paths.push(new URL(request.url).pathname);
      seen.headers.push(request.headers);
      seen.bodies.push(await request.json());
      return handler(request, seen.bodies.length - 1);
    },
  );
  try {
    await fn(`http://127.0.0.1:${server.addr.port}/v1/`, seen);
  } finally {
    await server.shutdown();
  }
}

const encoder = new TextEncoder();

/** An SSE response sending `parts` as they are (each one network write). */
function rawSse(parts: string[], options: { end?: "close" | "hang" } = {}): Response {
  // Pauses between writes end early when the client goes away, so no timer
  // outlives the test.
  let timer: ReturnType<typeof setTimeout> | undefined;
  let wake: (() => void) | undefined;
  let gone = false;
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      for (const [i, part] of parts.entries()) {
        if (gone) return;
        controller.enqueue(encoder.encode(part));
        if (i < parts.length - 1) {
          await new Promise<void>((resolve) => {
            wake = resolve;
            timer = setTimeout(resolve, 1);
          });
        }
      }
      if (options.end !== "hang" && !gone) controller.close();
    },
    cancel() {
      gone = true;
      clearTimeout(timer);
      wake?.();
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream" } });
}

/** An SSE response with one `data:` event per chunk, then `[DONE]`. */
function sse(chunks: unknown[], done = true): Response {
  const parts = chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`);
  if (done) parts.push("data: [DONE]\n\n");
  return rawSse(parts);
}

const delta = (d: Record<string, unknown>, finish: string | null = null) => ({
  id: "x",
  object: "chat.completion.chunk",
  choices: [{ index: 0, delta: d, finish_reason: finish }],
});

function request(extra: Partial<ModelRequest> = {}): ModelRequest {
  return {
    model: "deepseek-chat",
    system: "Be brief.",
    messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
    tools: [],
    signal: new AbortController().signal,
    ...extra,
  };
}

async function collect(adapter: ModelAdapter, req: ModelRequest): Promise<ModelEvent[]> {
  const events: ModelEvent[] = [];
  for await (const event of adapter.stream(req)) events.push(event);
  return events;
}

Deno.test("createOpenAICompatibleModel() streams text and reports usage", async () => {
  await withServer(
    () =>
      sse([
        delta({ role: "assistant", content: "" }),
        delta({ content: "Hel" }),
        delta({ content: "lo!" }),
        delta({}, "stop"),
        {
          id: "x",
          choices: [],
          usage: {
            prompt_tokens: 12,
            completion_tokens: 3,
            total_tokens: 15,
            prompt_tokens_details: { cached_tokens: 8 },
          },
        },
      ]),
    async (baseUrl, seen) => {
      const model = createOpenAICompatibleModel({
        baseUrl,
        apiKey: "sk-test",
        headers: { "x-extra": "1" },
      });
      assert.equal(model.name, "openai-compatible");
      const events = await collect(
        model,
        request({
          maxTokens: 50,
          tools: [{ name: "lookup", description: "Look up", parameters: { type: "object" } }],
          messages: [
            { role: "user", content: [{ type: "text", text: "Hi" }] },
            {
              role: "assistant",
              content: [],
              toolCalls: [{ id: "call_1", name: "lookup", args: { q: "x" } }],
            },
            {
              role: "tool",
              callId: "call_1",
              name: "lookup",
              content: [{ type: "text", text: "found" }],
              isError: false,
            },
            { role: "assistant", content: [{ type: "text", text: "ok" }], toolCalls: [] },
            {
              role: "user",
              content: [
                { type: "text", text: "see " },
                { type: "image", mediaType: "image/png", data: "AAA=" },
              ],
            },
          ],
        }),
      );
      assert.deepEqual(events, [
        { type: "text-delta", text: "Hel" },
        { type: "text-delta", text: "lo!" },
        {
          type: "finish",
          reason: "stop",
          usage: { inputTokens: 12, outputTokens: 3, cachedInputTokens: 8 },
        },
      ]);
      assert.deepEqual(seen.paths, ["/v1/chat/completions"]);
      assert.equal(seen.headers[0].get("authorization"), "Bearer sk-test");
      assert.equal(seen.headers[0].get("x-extra"), "1");
      assert.deepEqual(seen.bodies[0], {
        model: "deepseek-chat",
        stream: true,
        stream_options: { include_usage: true },
        max_tokens: 50,
        tools: [{
          type: "function",
          function: { name: "lookup", description: "Look up", parameters: { type: "object" } },
        }],
        messages: [
          { role: "system", content: "Be brief." },
          { role: "user", content: "Hi" },
          {
            role: "assistant",
            content: null,
            tool_calls: [{
              id: "call_1",
              type: "function",
              function: { name: "lookup", arguments: '{"q":"x"}' },
            }],
          },
          { role: "tool", tool_call_id: "call_1", content: "found" },
          { role: "assistant", content: "ok" },
          {
            role: "user",
            content: [
              { type: "text", text: "see " },
              { type: "image_url", image_url: { url: "data:image/png;base64,AAA=" } },
            ],
          },
        ],
      });
    },
  );
});

Deno.test("createOpenAICompatibleModel() assembles streamed tool-call deltas by index", async () => {
  const chunks = [
    delta({
      tool_calls: [{
        index: 0,
        id: "call_a",
        type: "function",
        function: { name: "get_weather", arguments: "" },
      }],
    }),
    delta({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
    delta({
      tool_calls: [{
        index: 1,
        id: "call_b",
        type: "function",
        function: { name: "get_time", arguments: '{"tz"' },
      }],
    }),
    delta({ tool_calls: [{ index: 0, function: { arguments: ' "Paris"}' } }] }),
    delta({ tool_calls: [{ index: 1, function: { arguments: ': "CET"}' } }] }),
    delta({
      tool_calls: [{ index: 2, id: "call_c", function: { name: "broken", arguments: "{oops" } }],
    }),
    delta({}, "tool_calls"),
  ];
  // Split the stream at awkward places: mid-line, mid-JSON, CRLF line endings.
  const text = chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`).join("") +
    ": keep-alive comment\n\ndata: [DONE]\n\n";
  const parts: string[] = [];
  for (let i = 0; i < text.length; i += 37) parts.push(text.slice(i, i + 37));
  await withServer(() => rawSse(parts), async (baseUrl) => {
    const events = await collect(
      createOpenAICompatibleModel({ baseUrl, model: "override" }),
      request(),
    );
    assert.deepEqual(events, [
      { type: "tool-call", id: "call_a", name: "get_weather", args: { city: "Paris" } },
      { type: "tool-call", id: "call_b", name: "get_time", args: { tz: "CET" } },
      { type: "tool-call", id: "call_c", name: "broken", args: "{oops" },
      { type: "finish", reason: "tool-calls" },
    ]);
  });
});

Deno.test("createOpenAICompatibleModel() maps finish reasons", async (t) => {
  const cases: [string, string][] = [
    ["stop", "stop"],
    ["length", "max-tokens"],
    ["content_filter", "refusal"],
    ["tool_calls", "tool-calls"],
  ];
  for (const [wire, reason] of cases) {
    await t.step(`${wire} → ${reason}`, async () => {
      await withServer(() => sse([delta({ content: "x" }, wire)]), async (baseUrl) => {
        const events = await collect(createOpenAICompatibleModel({ baseUrl }), request());
        assert.deepEqual(events.at(-1), { type: "finish", reason });
      });
    });
  }
  await t.step("a refusal delta → refusal", async () => {
    await withServer(
      () => sse([delta({ refusal: "I can't" }), delta({}, "stop")]),
      async (baseUrl) => {
        const events = await collect(createOpenAICompatibleModel({ baseUrl }), request());
        assert.deepEqual(events, [
          { type: "text-delta", text: "I can't" },
          { type: "finish", reason: "refusal" },
        ]);
      },
    );
  });
});

Deno.test("createOpenAICompatibleModel() says what the server answered when it fails", async (t) => {
  await t.step("HTTP 401", async () => {
    await withServer(
      () =>
        Response.json(
          {
            error: { message: "Authentication Fails (no such user)", type: "authentication_error" },
          },
          { status: 401, statusText: "Unauthorized" },
        ),
      async (baseUrl) => {
        await assert.rejects(
          collect(createOpenAICompatibleModel({ baseUrl, apiKey: "bad" }), request()),
          (error: unknown) =>
            error instanceof Error &&
            error.message.includes("answered HTTP 401 Unauthorized") &&
            error.message.includes("Authentication Fails (no such user)"),
        );
      },
    );
  });

  await t.step("HTTP 500 with a long body is cut to an excerpt", async () => {
    await withServer(() => new Response("boom ".repeat(500), { status: 500 }), async (baseUrl) => {
      await assert.rejects(
        collect(createOpenAICompatibleModel({ baseUrl, retries: 0 }), request()),
        (error: unknown) =>
          error instanceof Error && /HTTP 500/.test(error.message) && error.message.length < 800 &&
          error.message.endsWith("…"),
      );
    });
  });

  await t.step("a stream cut before its end", async () => {
    await withServer(() => sse([delta({ content: "partial" })], false), async (baseUrl) => {
      const events: ModelEvent[] = [];
      await assert.rejects(
        (async () => {
          for await (const event of createOpenAICompatibleModel({ baseUrl }).stream(request())) {
            events.push(event);
          }
        })(),
        /ended before the response was complete/,
      );
      assert.deepEqual(events, [{ type: "text-delta", text: "partial" }]);
    });
  });

  await t.step("a connection broken mid-stream", async () => {
    // A raw socket: headers and one chunk of a chunked body, then the connection drops.
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    const serving = (async () => {
      const conn = await listener.accept();
      const buffer = new Uint8Array(64 * 1024);
      await conn.read(buffer);
      const event = `data: ${JSON.stringify(delta({ content: "par" }))}\n\n`;
      await conn.write(encoder.encode(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n" +
          `${event.length.toString(16)}\r\n${event}\r\n`,
      ));
      await new Promise((resolve) => setTimeout(resolve, 5));
      conn.close();
    })();
    try {
      const events: ModelEvent[] = [];
      await assert.rejects(
        (async () => {
          const model = createOpenAICompatibleModel({ baseUrl: `http://127.0.0.1:${port}` });
          for await (const event of model.stream(request())) events.push(event);
        })(),
        /The model stream from http:\/\/127\.0\.0\.1:\d+\/chat\/completions broke: /,
      );
      assert.deepEqual(events, [{ type: "text-delta", text: "par" }]);
    } finally {
      await serving;
      listener.close();
    }
  });

  await t.step("an error event, a malformed event, a non-stream answer", async () => {
    const answers: [() => Response, RegExp][] = [
      [
        () => sse([{ error: { message: "Server overloaded" } }]),
        /sent an error: Server overloaded/,
      ],
      [() => rawSse(["data: {not json\n\n"]), /sent a malformed event: \{not json/],
      [
        () => Response.json({ choices: [] }),
        /answered application\/json instead of an event stream/,
      ],
      [
        () => sse([delta({ content: "x" }, "insufficient_system_resource")]),
        /insufficient_system_resource/,
      ],
    ];
    for (const [answer, pattern] of answers) {
      await withServer(answer, async (baseUrl) => {
        await assert.rejects(collect(createOpenAICompatibleModel({ baseUrl }), request()), pattern);
      });
    }
  });

  await t.step("an unreachable server", async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = (listener.addr as Deno.NetAddr).port;
    listener.close();
    await assert.rejects(
      collect(createOpenAICompatibleModel({ baseUrl: `http://127.0.0.1:${port}` }), request()),
      /The model request to http:\/\/127\.0\.0\.1:\d+\/chat\/completions failed/,
    );
  });
});

Deno.test("createOpenAICompatibleModel() aborts the HTTP stream with the signal", async () => {
  await withServer(
    () => rawSse([`data: ${JSON.stringify(delta({ content: "first" }))}\n\n`], { end: "hang" }),
    async (baseUrl) => {
      const controller = new AbortController();
      const events: ModelEvent[] = [];
      await assert.rejects(
        (async () => {
          for await (
            const event of createOpenAICompatibleModel({ baseUrl }).stream(
              request({ signal: controller.signal }),
            )
          ) {
            events.push(event);
            controller.abort(new Error("user cancelled"));
          }
        })(),
        /user cancelled/,
      );
      assert.deepEqual(events, [{ type: "text-delta", text: "first" }]);
    },
  );
});

Deno.test("createOpenAICompatibleModel() drives an agent through a tool round trip", async () => {
  await withServer(
    (_request, index) =>
      index === 0
        ? sse([
          delta({ content: "Let me check." }),
          delta({
            tool_calls: [{
              index: 0,
              id: "call_1",
              function: { name: "lookup", arguments: '{"q":"seam"}' },
            }],
          }),
          delta({}, "tool_calls"),
        ])
        : index === 1
        ? sse([delta({ content: "It is a library." }, "stop")])
        : new Response('{"error":{"message":"Insufficient Balance"}}', { status: 402 }),
    async (baseUrl, seen) => {
      const host = createHost({ logger: createMemoryLogger().logger });
      host.models.register(host.scope, "*", createOpenAICompatibleModel({ baseUrl }));
      host.tools.register(host.scope, {
        name: "lookup",
        description: "Look something up",
        parameters: { type: "object", properties: { q: { type: "string" } }, required: ["q"] },
        execute: ({ q }: { q: string }) => ({ content: `${q}: a library` }),
      });
      const agent = await host.agents.create({ options: { model: "deepseek-chat" } });
      agent.send("What is seam?");
      const end = await agent.whenIdle();
      assert.equal(end.reason, "completed");
      assert.deepEqual(end.output, [{ type: "text", text: "It is a library." }]);
      const messages = seen.bodies[1].messages as Record<string, unknown>[];
      assert.deepEqual(messages, [
        { role: "user", content: "What is seam?" },
        {
          role: "assistant",
          content: "Let me check.",
          tool_calls: [{
            id: "call_1",
            type: "function",
            function: { name: "lookup", arguments: '{"q":"seam"}' },
          }],
        },
        { role: "tool", tool_call_id: "call_1", content: "seam: a library" },
      ]);
      agent.send("Again?");
      const failed = await agent.whenIdle();
      assert.equal(failed.reason, "error");
      assert.match(failed.error!, /HTTP 402/);
      assert.match(failed.error!, /Insufficient Balance/);
      await host.scope.dispose();
    },
  );
});

Deno.test("createOpenAICompatibleModel() goes only where it is told, and checks its options", async (t) => {
  await t.step("baseUrl or preset is required", () => {
    assert.throws(
      () => createOpenAICompatibleModel({ apiKey: "sk-openai" }),
      (error: unknown) =>
        error instanceof TypeError && /baseUrl is required/.test(error.message) &&
        /preset/.test(error.message),
    );
    assert.throws(
      () => createOpenAICompatibleModel(undefined as never),
      /options must be an object with baseUrl or preset/,
    );
    assert.throws(
      () => createOpenAICompatibleModel({ baseUrl: OPENAI_BASE_URL, preset: "openai" }),
      /baseUrl or preset, not both/,
    );
    assert.throws(
      () => createOpenAICompatibleModel({ preset: "anthropic" as never }),
      /unknown preset "anthropic" \(known: openai, deepseek\)/,
    );
    assert.throws(() => createOpenAICompatibleModel({ baseUrl: "not a url" }), /invalid baseUrl/);
    assert.throws(
      () => createOpenAICompatibleModel({ baseUrl: OPENAI_BASE_URL, timeout: 5 } as never),
      /unknown option timeout \(known: baseUrl, preset, apiKey, model, fetch, headers, name, timeoutMs, /,
    );
  });

  await t.step("each preset says where requests (and the key) go", async () => {
    assert.deepEqual(OPENAI_COMPATIBLE_PRESETS, {
      openai: "https://api.openai.com/v1",
      deepseek: DEEPSEEK_BASE_URL,
    });
    for (
      const [preset, expected] of [
        ["openai", "https://api.openai.com/v1/chat/completions"],
        ["deepseek", "https://api.deepseek.com/chat/completions"],
      ] as const
    ) {
      const seen: string[] = [];
      const model = createOpenAICompatibleModel({
        preset,
        apiKey: "sk-1",
        retries: 0,
        fetch: (input) => {
          seen.push(`${input.url} ${input.headers.get("authorization")}`);
          return Promise.resolve(new Response("nope", { status: 503 }));
        },
      });
      await assert.rejects(collect(model, request()), /HTTP 503/);
      assert.deepEqual(seen, [`${expected} Bearer sk-1`]);
    }
  });

  await t.step("numbers out of range name the option", () => {
    const base = { baseUrl: OPENAI_BASE_URL };
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ timeoutMs: 0 }, /timeoutMs must be a number of milliseconds from 1/],
      [{ timeoutMs: Infinity }, /timeoutMs/],
      [{ timeoutMs: "5" }, /timeoutMs .* got string/],
      [{ retries: 1.5 }, /retries must be an integer from 0 to 10, got 1\.5/],
      [{ retries: 11 }, /retries must be an integer from 0 to 10/],
      [{ retryDelayMs: -1 }, /retryDelayMs/],
      [{ retryDelayMs: 100, maxRetryDelayMs: 50 }, /maxRetryDelayMs .* from 100/],
    ];
    for (const [options, pattern] of cases) {
      assert.throws(
        () => createOpenAICompatibleModel({ ...base, ...options }),
        (error: unknown) => {
          assert.ok(error instanceof RangeError, String(error));
          assert.match(error.message, pattern);
          return true;
        },
      );
    }
  });
});

const completion = () => sse([delta({ content: "ok" }, "stop")]);

Deno.test("createOpenAICompatibleModel() retries 429 and 5xx with backoff, within bounds", async (t) => {
  await t.step("two 5xx, then the answer", async () => {
    const statuses = [503, 500];
    await withServer(
      (_request, index) =>
        index < statuses.length ? new Response("busy", { status: statuses[index] }) : completion(),
      async (baseUrl, seen) => {
        const model = createOpenAICompatibleModel({ baseUrl, retryDelayMs: 1 });
        const events = await collect(model, request());
        assert.deepEqual(events[0], { type: "text-delta", text: "ok" });
        assert.equal(seen.bodies.length, 3);
        assert.deepEqual(seen.bodies[2], seen.bodies[0], "the same request each time");
      },
    );
  });

  await t.step("a 429 waits the Retry-After it names", async () => {
    await withServer(
      (_request, index) =>
        index === 0
          ? new Response("slow down", { status: 429, headers: { "retry-after": "0" } })
          : completion(),
      async (baseUrl, seen) => {
        // A 10 s backoff would time the test out: Retry-After: 0 is what it waited.
        const model = createOpenAICompatibleModel({
          baseUrl,
          retryDelayMs: 10_000,
          maxRetryDelayMs: 20_000,
        });
        await collect(model, request());
        assert.equal(seen.bodies.length, 2);
      },
    );
  });

  await t.step("a Retry-After beyond maxRetryDelayMs fails at once, saying so", async () => {
    await withServer(
      () => new Response("quota", { status: 429, headers: { "retry-after": "3600" } }),
      async (baseUrl, seen) => {
        const model = createOpenAICompatibleModel({ baseUrl, maxRetryDelayMs: 1000 });
        await assert.rejects(
          collect(model, request()),
          /HTTP 429.*quota.*retry after 3600 s, longer than maxRetryDelayMs 1000/,
        );
        assert.equal(seen.bodies.length, 1);
      },
    );
  });

  await t.step("retries run out: the last answer, and how many attempts", async () => {
    await withServer(() => new Response("down", { status: 502 }), async (baseUrl, seen) => {
      const model = createOpenAICompatibleModel({ baseUrl, retries: 2, retryDelayMs: 1 });
      await assert.rejects(collect(model, request()), /HTTP 502.*down \(attempt 3 of 3\)/);
      assert.equal(seen.bodies.length, 3);
    });
  });

  await t.step("other errors are not retried", async () => {
    await withServer(() => new Response("bad", { status: 400 }), async (baseUrl, seen) => {
      const model = createOpenAICompatibleModel({ baseUrl, retryDelayMs: 1 });
      await assert.rejects(collect(model, request()), /HTTP 400/);
      assert.equal(seen.bodies.length, 1);
    });
  });

  await t.step("the caller's signal ends a backoff at once", async () => {
    await withServer(() => new Response("busy", { status: 503 }), async (baseUrl, seen) => {
      const controller = new AbortController();
      const model = createOpenAICompatibleModel({ baseUrl, retryDelayMs: 60_000 });
      const pending = collect(model, request({ signal: controller.signal }));
      while (seen.bodies.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      controller.abort(new Error("user cancelled"));
      await assert.rejects(pending, /user cancelled/);
      assert.equal(seen.bodies.length, 1);
    });
  });
});

Deno.test("createOpenAICompatibleModel() times out a server that goes quiet", async (t) => {
  await t.step("before the response headers", async () => {
    let release = () => {};
    const held = new Promise<void>((resolve) => release = resolve);
    await withServer(async () => {
      await held; // answer only once the client gave up
      return new Response("late");
    }, async (baseUrl) => {
      const model = createOpenAICompatibleModel({ baseUrl, timeoutMs: 50 });
      await assert.rejects(collect(model, request()), /did not answer within 50 ms/);
      release();
    });
  });

  await t.step("mid-stream", async () => {
    await withServer(
      () => rawSse([`data: ${JSON.stringify(delta({ content: "first" }))}\n\n`], { end: "hang" }),
      async (baseUrl) => {
        const events: ModelEvent[] = [];
        const model = createOpenAICompatibleModel({ baseUrl, timeoutMs: 50 });
        await assert.rejects(
          (async () => {
            for await (const event of model.stream(request())) events.push(event);
          })(),
          /The model stream from .* sent nothing for 50 ms/,
        );
        assert.deepEqual(events, [{ type: "text-delta", text: "first" }]);
      },
    );
  });

  await t.step("a slow consumer is not the server's fault", async () => {
    await withServer(
      () =>
        rawSse([
          `data: ${JSON.stringify(delta({ content: "a" }))}\n\n`,
          `data: ${JSON.stringify(delta({ content: "b" }, "stop"))}\n\ndata: [DONE]\n\n`,
        ]),
      async (baseUrl) => {
        const model = createOpenAICompatibleModel({ baseUrl, timeoutMs: 30 });
        const texts: string[] = [];
        for await (const event of model.stream(request())) {
          if (event.type === "text-delta") texts.push(event.text);
          await new Promise((resolve) => setTimeout(resolve, 80)); // longer than timeoutMs
        }
        assert.deepEqual(texts, ["a", "b"]);
      },
    );
  });
});

Deno.test("modelFromEnv() refuses an unknown option, even when the environment names no model", () => {
  assert.throws(
    () => modelFromEnv(() => undefined, { fecth: fetch } as never),
    new TypeError(
      "Cannot choose the model from the environment: unknown option fecth (known: fetch)",
    ),
  );
});
