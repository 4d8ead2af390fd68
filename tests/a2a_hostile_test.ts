// Remotes that misbehave on purpose, each a real server on loopback: one that
// goes silent after its first event, sends only keep-alive comments, streams
// without end, answers WORKING to every poll, redirects elsewhere, lists a
// file: interface, refuses the token, or shuts down under a run. Each run ends
// in bounded time with a note saying what happened, the remote task is
// cancelled, and nothing is left running (sanitizers on, streams closed).
import assert from "node:assert/strict";
import { createMemoryLogger } from "@seam/host";
import { handleSubagentInput } from "@seam/subagent";
import { createA2AProvider } from "@seam/subagent-a2a";
import { serveRaw, startSpawnGateway, until } from "./a2a_support.ts";
import {
  assertLostAfterTwoRetries,
  CONTEXT,
  fakeAgent,
  type FakeAgentOptions,
  parentScope,
  prompt,
  type Settled,
  settleWithin,
  status,
  TASK,
  task,
  withProvider,
  words,
} from "./a2a_fake_agent.ts";

Deno.test("a remote that goes quiet ends the run at idleTimeoutMs, its task cancelled", async (t) => {
  const cases = {
    "silent after the first event": fakeAgent({
      stream: (send) => send(task("TASK_STATE_WORKING")),
    }),
    "keep-alive comments only": fakeAgent({
      stream: (send, { raw, every }) => {
        send(task("TASK_STATE_WORKING"));
        every(10, () => raw(": keep-alive\n\n"));
      },
    }),
    "the same WORKING again and again": fakeAgent({
      stream: (send, { every }) => {
        send(task("TASK_STATE_WORKING"));
        every(10, () => send(status("TASK_STATE_WORKING", "still on it")));
      },
    }),
    // Changes, each one, but back to what was seen: no progress (`_seen.ts`).
    "WORKING and SUBMITTED by turns": fakeAgent({
      stream: (send, { every }) => {
        send(task("TASK_STATE_WORKING"));
        let n = 0;
        every(10, () => send(status(n++ % 2 ? "TASK_STATE_WORKING" : "TASK_STATE_SUBMITTED")));
      },
    }),
    "two words by turns": fakeAgent({
      stream: (send, { every }) => {
        send(task("TASK_STATE_WORKING"));
        let n = 0;
        every(
          10,
          () => send(status("TASK_STATE_WORKING", n++ % 2 ? "thinking" : "still thinking")),
        );
      },
    }),
    "an artifact replaced by turns": fakeAgent({
      stream: (send, { every }) => {
        send(task("TASK_STATE_WORKING"));
        let n = 0;
        every(10, () => send(words(n++ % 2 ? "y" : "x", false)));
      },
    }),
  };
  for (const [name, agent] of Object.entries(cases)) {
    await t.step(name, async () => {
      await withProvider(agent, async (provider, parent) => {
        const run = provider.start({ prompt, parent });
        await run.started;
        const result = await settleWithin(run);
        assert.equal(result.stopReason, "error");
        assert.match(
          result.why,
          /The A2A run failed \(SendStreamingMessage\): the remote agent brought nothing new for 150 ms \(idleTimeoutMs\)/,
        );
        assert.equal(result.error?.code, "TIMEOUT");
        assert.deepEqual(result.error?.data, {
          call: "SendStreamingMessage",
          option: "idleTimeoutMs",
          ms: 150,
        });
        await run.dispose();
        assert.deepEqual(agent.calls, ["SendStreamingMessage", "CancelTask"]);
        await until(() => agent.openStreams === 0);
      }, { idleTimeoutMs: 150 });
    });
  }
});

Deno.test("a task that answers WORKING to every GetTask poll ends at idleTimeoutMs", async () => {
  const agent = fakeAgent({ streaming: false });
  await withProvider(agent, async (provider, parent) => {
    const run = provider.start({ prompt, parent });
    const result = await settleWithin(run);
    assert.equal(result.stopReason, "error");
    assert.match(
      result.why,
      /The A2A run failed \(GetTask\): the remote agent brought nothing new for 100 ms \(idleTimeoutMs\)/,
    );
    await run.dispose();
    assert.equal(agent.calls[0], "SendMessage");
    assert.ok(agent.calls.filter((call) => call === "GetTask").length >= 2, String(agent.calls));
    assert.equal(agent.calls.at(-1), "CancelTask");
  }, { idleTimeoutMs: 100, pollIntervalMs: 5 });
});

Deno.test("a stream that drops and re-attaches again and again with nothing new ends CONNECTION_LOST after reconnect.retries", async (t) => {
  // Each re-attachment brings the snapshot and one more WORKING, then drops
  // again: no news, so each counts as a failed attempt (the idle timeout is
  // far off, and settleWithin fails the test if only it would end the run).
  const cases: Record<string, FakeAgentOptions["resubscribe"]> = {
    "the snapshot and a repeated WORKING": (send, { close }) => {
      send(task("TASK_STATE_WORKING"));
      send(status("TASK_STATE_WORKING"));
      close();
    },
    "the snapshot and the same word again": (send, { close }) => {
      send(task("TASK_STATE_WORKING"));
      send(status("TASK_STATE_WORKING", "still on it"));
      close();
    },
  };
  for (const [name, resubscribe] of Object.entries(cases)) {
    await t.step(name, async () => {
      const agent = fakeAgent({
        stream: (send, { close }) => {
          send(task("TASK_STATE_WORKING"));
          send(status("TASK_STATE_WORKING", "still on it"));
          close();
        },
        resubscribe,
      });
      await assertLostAfterTwoRetries(agent, "bringing nothing new");
    });
  }
});

Deno.test("a stream that drops after news each time is re-attached past reconnect.retries: news is progress", async () => {
  // Five drops in a row, each re-attachment bringing a new word: more than the
  // two retries, yet each brought news, so the run goes on to the end.
  let attached = 0;
  const agent = fakeAgent({
    stream: (send, { close }) => {
      send(task("TASK_STATE_WORKING"));
      close();
    },
    resubscribe: (send, { close }) => {
      send(task("TASK_STATE_WORKING"));
      if (++attached < 5) send(words(String(attached), true));
      else send(status("TASK_STATE_COMPLETED"));
      close();
    },
  });
  await withProvider(agent, async (provider, parent) => {
    const run = provider.start({ prompt, parent });
    const result = await settleWithin(run);
    assert.equal(result.stopReason, "completed", result.why);
    assert.equal(result.text, "1234");
    await run.dispose();
    assert.equal(agent.calls.filter((call) => call === "SubscribeToTask").length, 5);
  }, { idleTimeoutMs: 60_000, reconnect: { retries: 2, delayMs: 5, maxDelayMs: 5 } });
});

Deno.test("a remote that keeps talking: news re-arms the idle timeout", async () => {
  // A new word every 10 ms for ~300 ms, then the end: an idle timeout of
  // 100 ms never fires while something new keeps coming.
  let sent = 0;
  const agent = fakeAgent({
    stream: (send, { every, close }) => {
      send(task("TASK_STATE_WORKING"));
      every(10, () => {
        if (++sent < 30) return send(words(".", true));
        send(status("TASK_STATE_COMPLETED"));
        close();
      });
    },
  });
  await withProvider(agent, async (provider, parent) => {
    const run = provider.start({ prompt, parent });
    const result = await settleWithin(run);
    assert.equal(result.stopReason, "completed", result.why);
    assert.equal(result.text, ".".repeat(29));
    await run.dispose();
  }, { idleTimeoutMs: 100 });
});

Deno.test("an endless stream ends at deadlineMs, or at maxOutputChars", async (t) => {
  await t.step("always something new: the deadline ends it", async () => {
    let n = 0;
    const agent = fakeAgent({
      stream: (send, { every }) => {
        send(task("TASK_STATE_WORKING"));
        every(5, () => send(status("TASK_STATE_WORKING", `step ${++n}`)));
      },
    });
    await withProvider(agent, async (provider, parent) => {
      const run = provider.start({ prompt, parent });
      const result = await settleWithin(run);
      assert.equal(result.stopReason, "error");
      assert.match(result.why, /the run did not end within 200 ms \(deadlineMs\)/);
      assert.equal(result.error?.code, "TIMEOUT");
      assert.equal((result.error?.data as { option: string }).option, "deadlineMs");
      await run.dispose();
      assert.equal(agent.calls.at(-1), "CancelTask");
      await until(() => agent.openStreams === 0);
    }, { deadlineMs: 200 });
  });

  await t.step("output without end: held to maxOutputChars, what came first kept", async () => {
    const chunk = "x".repeat(10_000);
    const agent = fakeAgent({
      stream: (send, { every }) => {
        send(task("TASK_STATE_WORKING"));
        send(words(chunk, false));
        every(1, () => send(words(chunk, true)));
      },
    });
    await withProvider(agent, async (provider, parent) => {
      const run = provider.start({ prompt, parent });
      const result = await settleWithin(run);
      assert.equal(result.stopReason, "error");
      // Nine chunks: the tenth would pass the bound with the artifact's id ("out").
      assert.equal(result.text, chunk.repeat(9));
      assert.equal(result.error?.code, "OUTPUT_LIMIT");
      assert.match(
        result.why,
        /more output than this run holds \(100000 characters, maxOutputChars\); what came before is kept/,
      );
      await run.dispose();
      assert.equal(agent.calls.at(-1), "CancelTask");
      await until(() => agent.openStreams === 0);
    }, { maxOutputChars: 100_000 });
  });

  await t.step("files without end: their bytes count against maxOutputChars", async () => {
    const bytes = btoa("z".repeat(30_000));
    const agent = fakeAgent({
      stream: (send, { every }) => {
        send(task("TASK_STATE_WORKING"));
        every(2, () =>
          send({
            artifactUpdate: {
              taskId: TASK,
              contextId: CONTEXT,
              artifact: {
                artifactId: "out",
                parts: [{ raw: bytes, mediaType: "application/octet-stream" }],
              },
              append: true,
            },
          }));
      },
    });
    await withProvider(agent, async (provider, parent) => {
      const run = provider.start({ prompt, parent });
      const result = await settleWithin(run);
      assert.equal(result.error?.code, "OUTPUT_LIMIT", result.why);
      assert.ok(result.output.length <= 2, `${result.output.length} files held`);
      await run.dispose();
      assert.equal(agent.calls.at(-1), "CancelTask");
      await until(() => agent.openStreams === 0);
    }, { maxOutputChars: 100_000, deadlineMs: 3_000 });
  });

  await t.step(
    "what names the output counts too: artifact ids, media types, empty parts",
    async () => {
      const update = (artifactId: string, parts: unknown[], append: boolean) => ({
        artifactUpdate: {
          taskId: TASK,
          contextId: CONTEXT,
          artifact: { artifactId, parts },
          append,
        },
      });
      let n = 0;
      const floods: Record<string, () => Record<string, unknown>> = {
        "a new artifact each time, a long id and no parts": () =>
          update(`${++n}-${"i".repeat(5_000)}`, [], false),
        "empty images with long media types, appended": () =>
          update("out", [{ raw: "", mediaType: `image/${"p".repeat(1_000)}` }], true),
        "a new artifact each time, of empty text parts": () =>
          update(String(++n), Array.from({ length: 1_000 }, () => ({ text: "" })), false),
      };
      for (const [name, next] of Object.entries(floods)) {
        const agent = fakeAgent({
          stream: (send, { every }) => {
            send(task("TASK_STATE_WORKING"));
            every(1, () => {
              for (let i = 0; i < 20; i++) send(next());
            });
          },
        });
        await withProvider(agent, async (provider, parent) => {
          const run = provider.start({ prompt, parent });
          const result = await settleWithin(run);
          assert.equal(result.error?.code, "OUTPUT_LIMIT", `${name}: ${result.why}`);
          assert.ok(
            result.output.length <= 100_000,
            `${name}: ${result.output.length} pieces held`,
          );
          await run.dispose();
          assert.equal(agent.calls.at(-1), "CancelTask");
          await until(() => agent.openStreams === 0);
        }, { maxOutputChars: 100_000, deadlineMs: 3_000 });
      }
    },
  );

  await t.step("a GetTask answer larger than 4 × maxOutputChars bytes is refused", async () => {
    const agent = fakeAgent({
      streaming: false,
      getTask: () =>
        task("TASK_STATE_WORKING", {
          artifacts: [{ artifactId: "out", parts: [{ text: "y".repeat(50_000) }] }],
        }),
    });
    await withProvider(agent, async (provider, parent) => {
      const run = provider.start({ prompt, parent });
      const result = await settleWithin(run);
      assert.equal(result.stopReason, "error");
      assert.match(result.why, /\(GetTask\): .*answer is larger than 40000 bytes/);
      await run.dispose();
      assert.equal(agent.calls.at(-1), "CancelTask");
    }, { maxOutputChars: 10_000, pollIntervalMs: 5 });
  });
});

Deno.test("maxOutputChars does not count empty text chunks appended to an artifact: they hold nothing", async () => {
  // A streaming agent's empty deltas (a last chunk, a pause) merge into the text before them.
  const agent = fakeAgent({
    stream: (send) => {
      send(task("TASK_STATE_WORKING"));
      send(words("hi", false));
      for (let i = 0; i < 100; i++) send(words("", true));
      send(status("TASK_STATE_COMPLETED"));
    },
  });
  await withProvider(agent, async (provider, parent) => {
    const run = provider.start({ prompt, parent });
    const result = await settleWithin(run);
    assert.equal(result.stopReason, "completed", result.why);
    assert.equal(result.text, "hi");
    await run.dispose();
  }, { maxOutputChars: 50 });
});

/** A body without end, as fast as it is read (a remote that never stops answering). */
function endlessBody(): ReadableStream<Uint8Array> {
  const chunk = new TextEncoder().encode(" ".repeat(16_384));
  return new ReadableStream<Uint8Array>({ pull: (c) => c.enqueue(chunk) });
}

Deno.test("createA2AProvider() holds an answer that calls itself an event stream to 4 × maxOutputChars unless a stream was asked for", async (t) => {
  // `timeoutMs` far above the test's own pace: an unbounded read would run until it.
  const options = { timeoutMs: 20_000, maxOutputChars: 10_000 };
  await t.step("the agent card", async () => {
    const server = serveRaw(() =>
      new Response(endlessBody(), { headers: { "content-type": "text/event-stream" } })
    );
    try {
      await assert.rejects(
        createA2AProvider({ url: server.url, ...options }),
        /Cannot create A2A provider: the remote agent's answer is larger than 40000 bytes/,
      );
    } finally {
      await server.close();
    }
  });

  await t.step("a SendMessage answer", async () => {
    const agent = fakeAgent({
      streaming: false,
      intercept: (request) =>
        request.method === "POST"
          ? new Response(endlessBody(), { headers: { "content-type": "text/event-stream" } })
          : undefined,
    });
    await withProvider(agent, async (provider, parent) => {
      const run = provider.start({ prompt, parent });
      const result = await settleWithin(run);
      assert.equal(result.error?.code, "OUTPUT_LIMIT", result.why);
      assert.match(result.why, /\(SendMessage\): .*answer is larger than 40000 bytes/);
      await run.dispose();
    }, options);
  });
});

Deno.test("failureOf() clips the remote's own words in a run's error to 2,000 characters", async (t) => {
  const long = "y".repeat(1_000_000);
  const cases: [string, FakeAgentOptions, string][] = [
    ["a JSON-RPC error with a huge message", {
      raw: () => Response.json({ jsonrpc: "2.0", id: 1, error: { code: -32603, message: long } }),
    }, "START_FAILED"],
    ["a JSON-RPC error whose message has a surrogate pair across the clip", {
      raw: () =>
        Response.json({
          jsonrpc: "2.0",
          id: 1,
          error: { code: -32603, message: "y".repeat(1_999) + "\u{1F600}".repeat(1_000) },
        }),
    }, "START_FAILED"],
    ["an event of a task with a huge id", {
      stream: (send) => {
        send(task("TASK_STATE_WORKING"));
        send({
          statusUpdate: {
            taskId: long,
            contextId: CONTEXT,
            status: { state: "TASK_STATE_WORKING" },
          },
        });
      },
    }, "PROTOCOL_ERROR"],
  ];
  for (const [name, options, code] of cases) {
    await t.step(name, async () => {
      const logs = createMemoryLogger();
      const agent = fakeAgent(options);
      await withProvider(agent, async (provider, parent) => {
        const run = provider.start({ prompt, parent });
        const result = await settleWithin(run);
        assert.equal(result.error?.code, code);
        assert.match(result.why, /yyyy… \(\d+ more characters\)/);
        assert.ok(result.why.length < 2_200, `${result.why.length} characters`);
        assert.ok(result.why.isWellFormed(), "a lone surrogate in the message");
        assert.ok(logs.records.some((record) => record.message.includes("more characters")));
        assert.ok(logs.records.every((record) => record.message.length < 2_200));
        await run.dispose();
      }, { logger: logs.logger });
    });
  }
});

Deno.test("start() ends the run PROTOCOL_ERROR at a stream event the SDK client cannot read", async (t) => {
  const cases: [string, string, RegExp][] = [
    ["not JSON", "data: {not json\n\n", /Failed to parse SSE event data/],
    [
      "not JSON-RPC 2.0",
      `data: ${
        JSON.stringify({ jsonrpc: "1.0", id: 1, result: status("TASK_STATE_WORKING") })
      }\n\n`,
      /expected 'jsonrpc' to be exactly '2\.0'/,
    ],
    [
      "the answer to another request",
      `data: ${
        JSON.stringify({ jsonrpc: "2.0", id: 7, result: status("TASK_STATE_WORKING") })
      }\n\n`,
      /JSON-RPC response ID mismatch in SSE event\. Expected 1, got 7/,
    ],
    ["a line of more than 4 MiB", `data: ${"x".repeat(4 * 1024 * 1024 + 1)}`, /SSE line exceeded/],
  ];
  for (const [name, event, expected] of cases) {
    await t.step(name, async () => {
      const agent = fakeAgent({
        stream: (send, { raw }) => {
          send(task("TASK_STATE_WORKING"));
          raw(event);
        },
      });
      await withProvider(agent, async (provider, parent) => {
        const run = provider.start({ prompt, parent });
        const result = await settleWithin(run);
        assert.equal(result.error?.code, "PROTOCOL_ERROR", result.why);
        assert.match(result.why, expected);
        await run.dispose();
        assert.deepEqual(agent.calls, ["SendStreamingMessage", "CancelTask"]);
      });
    });
  }
});

/**
 * A v0.3 HTTP+JSON remote on loopback whose stream brings a WORKING task,
 * then `event` (SSE text); each request's path is in `calls`.
 */
function v03RestRemote(event: string): { url: string; calls: string[]; close(): Promise<void> } {
  const calls: string[] = [];
  const working = { id: TASK, contextId: CONTEXT, status: { state: "TASK_STATE_WORKING" } };
  const server = serveRaw((request) => {
    const { origin, pathname } = new URL(request.url);
    calls.push(pathname);
    if (pathname === "/.well-known/agent-card.json") {
      return Response.json({
        protocolVersion: "0.3.0",
        name: "v0.3 HTTP+JSON",
        description: "one event, then another",
        url: `${origin}/rest`,
        preferredTransport: "HTTP+JSON",
        version: "1.0.0",
        capabilities: { streaming: true },
        defaultInputModes: ["text"],
        defaultOutputModes: ["text"],
        skills: [],
      });
    }
    if (pathname === "/rest/v1/message:stream") {
      return new Response(`data: ${JSON.stringify({ task: working })}\n\n${event}`, {
        headers: { "content-type": "text/event-stream" },
      });
    }
    return Response.json({ ...working, status: { state: "TASK_STATE_CANCELLED" } });
  });
  return { url: server.url, calls, close: () => server.close() };
}

/** The result of one run against `remote`, disposed, and the remote closed. */
async function runAgainst(
  remote: { url: string; close(): Promise<void> },
): Promise<Settled> {
  const { root, parent } = parentScope();
  try {
    const provider = await createA2AProvider({ url: remote.url, timeoutMs: 2_000 });
    try {
      const run = provider.start({ prompt, parent });
      const result = await settleWithin(run);
      await run.dispose();
      return result;
    } finally {
      await provider.dispose();
    }
  } finally {
    await root.dispose();
    await remote.close();
  }
}

Deno.test("start() ends the run CHILD_FAILED at the error event of a v0.3 HTTP+JSON remote, not PROTOCOL_ERROR", async () => {
  // What the SDK's own v0.3 REST server writes when a stream fails mid-task:
  // `event: error` with `{code, message}`, here -32603, a code the client has
  // no class for (it throws a plain Error, "REST error: …").
  const remote = v03RestRemote(
    `event: error\ndata: ${
      JSON.stringify({ code: -32603, message: "the model backend crashed" })
    }\n\n`,
  );
  const result = await runAgainst(remote);
  assert.equal(result.error?.code, "CHILD_FAILED", result.why);
  assert.match(result.why, /REST error: the model backend crashed \(Code: -32603\)/);
  // Not re-attached, not polled: the remote said what happened.
  assert.deepEqual(remote.calls.slice(1), [
    "/rest/v1/message:stream",
    `/rest/v1/tasks/${TASK}:cancel`,
  ]);
});

Deno.test("start() ends the run PROTOCOL_ERROR at a v0.3 HTTP+JSON event without a payload", async () => {
  // The SDK client throws its own InvalidAgentResponseError at it, an A2A error.
  const remote = v03RestRemote("data: {}\n\n");
  const result = await runAgainst(remote);
  assert.equal(result.error?.code, "PROTOCOL_ERROR", result.why);
  assert.match(result.why, /v0\.3 StreamResponse has no payload/);
  assert.deepEqual(remote.calls.slice(1), [
    "/rest/v1/message:stream",
    `/rest/v1/tasks/${TASK}:cancel`,
  ]);
});

Deno.test("start() clips the remote's last word in the error of a task that failed to 2,000 characters", async () => {
  const agent = fakeAgent({
    stream: (send) => {
      send(task("TASK_STATE_WORKING"));
      send(words("partial", false));
      send(status("TASK_STATE_FAILED", "w".repeat(100_000)));
    },
  });
  await withProvider(agent, async (provider, parent) => {
    const run = provider.start({ prompt, parent });
    const result = await settleWithin(run);
    assert.equal(result.error?.code, "CHILD_FAILED");
    assert.match(
      result.why,
      /^the remote task ended in TASK_STATE_FAILED: www.*… \(\d+ more characters\)$/,
    );
    assert.ok(result.why.length < 2_200, `${result.why.length} characters`);
    assert.equal(result.text, "partial");
    await run.dispose();
  });
});

Deno.test("start() clips only the remote's last word in the error of a task waiting for input, not what it needs", async () => {
  const agent = fakeAgent({
    stream: (send) => {
      send(task("TASK_STATE_WORKING"));
      send(words("partial", false));
      send(status("TASK_STATE_INPUT_REQUIRED", "q".repeat(100_000)));
    },
  });
  await withProvider(agent, async (provider, parent) => {
    const run = provider.start({ prompt, parent });
    const result = await settleWithin(run);
    assert.equal(result.error?.code, "INPUT_REQUIRED");
    assert.match(
      result.why,
      /^the remote agent stopped in TASK_STATE_INPUT_REQUIRED: q{2000}… \(98000 more characters\): it needs more input to go on/,
    );
    // What it needs and what to do are the run's own words, after the remote's.
    assert.match(result.why, /install a handler with handleSubagentInput/);
    assert.match(result.why, /; resume\(\) answers it on the same task$/);
    assert.ok(result.why.length < 3_000, `${result.why.length} characters`);
    await run.dispose();
  });
});

Deno.test("the deadline holds before the task exists too", async () => {
  const agent = fakeAgent({ raw: (_request, hang) => hang() });
  await withProvider(agent, async (provider, parent) => {
    const run = provider.start({ prompt, parent });
    const result = await settleWithin(run);
    assert.equal(result.stopReason, "error");
    assert.equal(result.error?.code, "TIMEOUT");
    assert.match(
      result.why,
      /\(SendStreamingMessage\): the run did not end within 50 ms \(deadlineMs\)/,
    );
    await assert.rejects(run.started, /deadlineMs/);
    // The request itself stays bounded by timeoutMs (it may still name the task to cancel).
    await run.dispose();
  }, { deadlineMs: 50, timeoutMs: 1_000 });
});

Deno.test("redirects are not followed: the prompt never reaches another origin", async (t) => {
  const elsewhere: string[] = [];
  const other = serveRaw(async (request) => {
    elsewhere.push(await request.text());
    return new Response("taken", { status: 200 });
  });
  const redirecting = (to: (url: string) => string) =>
    fakeAgent({
      stream: (send) => send(task("TASK_STATE_COMPLETED")),
      intercept: (request, url) =>
        request.method === "POST" && new URL(request.url).pathname === "/"
          ? new Response(null, { status: 307, headers: { location: to(url) } })
          : undefined,
    });
  try {
    await t.step("307 to another port: refused, by default and with same-origin", async () => {
      for (const redirects of ["refuse", "same-origin"] as const) {
        const agent = redirecting(() => `${other.url}/steal`);
        await withProvider(agent, async (provider, parent) => {
          const run = provider.start({ prompt, parent });
          const result = await settleWithin(run);
          assert.equal(result.stopReason, "error");
          assert.match(
            result.why,
            new RegExp(
              `POST ${agent.url}/ answered HTTP 307, a redirect to ${other.url}/steal[;,] ${
                redirects === "refuse" ? "redirects are not followed" : "outside .*only same-origin"
              }`,
            ),
          );
          assert.equal(result.error?.code, "REDIRECT_REFUSED");
          assert.deepEqual(result.error?.data, {
            call: "SendStreamingMessage",
            status: 307,
            location: `${other.url}/steal`,
          });
          await assert.rejects(run.started);
          await run.dispose();
        }, { redirects });
      }
      assert.deepEqual(elsewhere, []);
    });

    await t.step(
      "a same-origin redirect: refused by default, followed with same-origin",
      async () => {
        let agentUrl = "";
        const agent = fakeAgent({
          stream: (send, { close }) => {
            send(task("TASK_STATE_WORKING"));
            send(words("moved", false));
            send(status("TASK_STATE_COMPLETED"));
            close();
          },
          card: (url) => ({
            name: "moving",
            supportedInterfaces: [{
              url: `${url}/old`,
              protocolBinding: "JSONRPC",
              protocolVersion: "1.0",
            }],
            capabilities: { streaming: true },
          }),
          intercept: (request, url) => {
            agentUrl = url;
            return new URL(request.url).pathname === "/old"
              ? new Response(null, { status: 308, headers: { location: "/" } })
              : undefined;
          },
        });
        const { root, parent } = parentScope();
        const refusing = await createA2AProvider({ url: agent.url, timeoutMs: 1_000 });
        const following = await createA2AProvider({
          url: agent.url,
          timeoutMs: 1_000,
          redirects: "same-origin",
        });
        try {
          const refused = await settleWithin(refusing.start({ prompt, parent }));
          assert.equal(refused.stopReason, "error");
          assert.match(refused.why, new RegExp(`HTTP 308, a redirect to ${agentUrl}/;`));
          const followed = following.start({ prompt, parent });
          const result = await settleWithin(followed);
          assert.equal(result.stopReason, "completed", result.why);
          assert.equal(result.text, "moved");
          await followed.dispose();
        } finally {
          await refusing.dispose();
          await following.dispose();
          await root.dispose();
          await agent.close();
        }
      },
    );

    await t.step("a redirected agent card is refused too", async () => {
      const agent = redirecting(() => `${other.url}/card.json`);
      const moved = fakeAgent({
        intercept: () =>
          new Response(null, { status: 302, headers: { location: `${other.url}/card.json` } }),
      });
      await assert.rejects(
        createA2AProvider({ url: moved.url, timeoutMs: 1_000 }),
        /Cannot create A2A provider: GET .* answered HTTP 302, a redirect to .*card\.json; redirects are not followed/,
      );
      await moved.close();
      await agent.close();
      assert.deepEqual(elsewhere, []);
    });
  } finally {
    await other.close();
  }
});

Deno.test("interface URLs from a card: only http(s), and only the card's origin when asked", async (t) => {
  const cardWith = (interfaces: { url: string; protocolBinding: string }[]) =>
    fakeAgent({
      card: () => ({
        name: "odd",
        supportedInterfaces: interfaces.map((i) => ({ ...i, protocolVersion: "1.0" })),
        capabilities: { streaming: true },
      }),
    });
  await t.step("a file: interface is refused at discovery, naming it", async () => {
    const agent = cardWith([{ url: "file:///etc/passwd", protocolBinding: "JSONRPC" }]);
    await assert.rejects(
      createA2AProvider({ url: agent.url }),
      /Cannot create A2A provider: the agent card at .* offers no interface this provider may reach: JSONRPC at file:\/\/\/etc\/passwd \(file: URL; only http: and https:\)/,
    );
    await agent.close();
  });

  await t.step("a file: interface first, an http one next: the http one is used", async () => {
    const agent = fakeAgent({
      stream: (send, { close }) => {
        send(task("TASK_STATE_COMPLETED", { artifacts: [{ parts: [{ text: "ok" }] }] }));
        close();
      },
      card: (url) => ({
        name: "mixed",
        supportedInterfaces: [
          { url: "file:///tmp/agent.sock", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
          { url: `${url}/`, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
        ],
        capabilities: { streaming: true },
      }),
    });
    await withProvider(agent, async (provider, parent) => {
      const run = provider.start({ prompt, parent });
      assert.equal((await settleWithin(run)).text, "ok");
      await run.dispose();
    });
  });

  await t.step("sameOriginInterfaces: an interface on another origin is refused", async () => {
    const agent = cardWith([{ url: "http://127.0.0.2:9/", protocolBinding: "JSONRPC" }]);
    const anywhere = await createA2AProvider({ url: agent.url });
    await anywhere.dispose();
    await assert.rejects(
      createA2AProvider({ url: agent.url, sameOriginInterfaces: true }),
      /JSONRPC at http:\/\/127\.0\.0\.2:9\/ \(not the card's origin http:\/\/127\.0\.0\.1:\d+; options\.sameOriginInterfaces\)/,
    );
    await agent.close();
  });
});

Deno.test("401 and 403 end the run naming the status and that authentication failed", async (t) => {
  await t.step("a seam gateway refusing the token (401)", async () => {
    const remote = startSpawnGateway("loopback", { auth: { tokens: { alice: "s3cret" } } });
    const { root, parent } = parentScope();
    try {
      // The card is public; the runs are not.
      const provider = await createA2AProvider({
        url: remote.url,
        token: "wrong",
        timeoutMs: 2_000,
      });
      try {
        const run = provider.start({ prompt: [{ type: "text", text: "@reply hi" }], parent });
        const result = await settleWithin(run);
        assert.equal(result.stopReason, "error");
        assert.match(
          result.why,
          /The A2A run failed \(SendStreamingMessage\): authentication failed: POST http:\/\/127\.0\.0\.1:\d+\/.* answered HTTP 401 Unauthorized \(Unauthenticated: the bearer token is not valid\); check options\.token or options\.fetch/,
        );
        assert.doesNotMatch(result.why, /unexpected error/);
        assert.deepEqual(result.error?.code, "AUTH_REQUIRED");
        assert.deepEqual(result.error?.data, {
          call: "SendStreamingMessage",
          status: 401,
          reason: "Unauthenticated: the bearer token is not valid",
        });
        await run.dispose();
      } finally {
        await provider.dispose();
      }
    } finally {
      await root.dispose();
      await remote.close();
    }
  });

  await t.step("403 from any agent, on discovery and on a run", async () => {
    const forbidding = (onCard: boolean) =>
      fakeAgent({
        stream: (send) => send(task("TASK_STATE_WORKING")),
        intercept: (request) =>
          onCard || request.method === "POST"
            ? Response.json({ error: { code: 403, message: "not for you" } }, { status: 403 })
            : undefined,
      });
    const closed = forbidding(true);
    await assert.rejects(
      createA2AProvider({ url: closed.url }),
      /Cannot create A2A provider: authentication failed \(access denied\): GET .* answered HTTP 403 Forbidden \(not for you\)/,
    );
    await closed.close();
    const agent = forbidding(false);
    await withProvider(agent, async (provider, parent) => {
      const result = await settleWithin(provider.start({ prompt, parent }));
      assert.equal(result.stopReason, "error");
      assert.match(
        result.why,
        /authentication failed \(access denied\): POST .* HTTP 403 Forbidden \(not for you\)/,
      );
    });
  });
});

Deno.test("a remote seam gateway shutting down ends the run error with its reason, not aborted", async () => {
  const remote = startSpawnGateway("loopback");
  const { root, parent } = parentScope();
  try {
    const provider = await createA2AProvider({ url: remote.url, timeoutMs: 2_000 });
    try {
      const run = provider.start({ prompt: [{ type: "text", text: "@hang" }], parent });
      await run.started;
      await remote.gateway.close();
      const result = await settleWithin(run);
      assert.equal(result.stopReason, "error");
      assert.match(
        result.why,
        /the remote run was aborted over there, not by this run: Canceled: the gateway shut down\./,
      );
      assert.equal(result.error?.code, "REMOTE_CANCELED");
      await run.dispose();
    } finally {
      await provider.dispose();
    }
  } finally {
    await root.dispose();
    await remote.close();
  }
});

Deno.test("a malformed input request from the remote ends the run PROTOCOL_ERROR; nothing is asked", async (t) => {
  const URI = "https://jsr.io/@seam/gateway/extensions/subagent/v1";
  const cases: Record<string, [unknown, RegExp]> = {
    "not an object": ["allow?", /input request that is not an object/],
    "no id": [{ kind: "question", message: "?" }, /input request with no id/],
    "an unknown kind": [{ id: "r", kind: "sudo", message: "?" }, /kind must be "permission"/],
    "a permission with no options": [
      { id: "r", kind: "permission", message: "?", toolCall: { name: "shell" } },
      /a permission request must offer options/,
    ],
    "a path of numbers": [
      { id: "r", kind: "question", message: "?", path: [1, 2] },
      /relay\.below must be 1 to 64 run ids/,
    ],
  };
  for (const [name, [inputRequest, complaint]] of Object.entries(cases)) {
    await t.step(name, async () => {
      const agent = fakeAgent({
        stream: (send) => {
          send(task("TASK_STATE_WORKING"));
          send({
            statusUpdate: {
              taskId: TASK,
              contextId: CONTEXT,
              status: {
                state: "TASK_STATE_INPUT_REQUIRED",
                message: {
                  messageId: "q",
                  role: "ROLE_AGENT",
                  parts: [{ text: "Allow?" }, { data: { [URI]: { inputRequest } } }],
                },
              },
            },
          });
        },
      });
      await withProvider(agent, async (provider, parent) => {
        let asked = 0;
        const stop = handleSubagentInput(parent.scope, () => {
          asked++;
          return { outcome: "refused", reason: "no" };
        });
        const run = provider.start({ prompt, parent });
        const result = await settleWithin(run);
        assert.equal(result.stopReason, "error");
        assert.equal(result.error?.code, "PROTOCOL_ERROR");
        assert.match(result.why, complaint);
        assert.equal(asked, 0, "nothing reached the handler");
        await run.dispose();
        assert.deepEqual(agent.calls, ["SendStreamingMessage", "CancelTask"]);
        await stop();
      });
    });
  }
});
