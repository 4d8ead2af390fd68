import assert from "node:assert/strict";
import * as acp from "@agentclientprotocol/sdk";
import {
  type Agent,
  agentTurnStart,
  createHost,
  createMemoryLogger,
  createScriptedModel,
  type Host,
  type LogRecord,
} from "@seam/host";
import {
  type AcpServer,
  type AcpServerOptions,
  type AcpSessionInfo,
  createAcpAssistantSetup,
  createAcpPlanTool,
  serveAcpAgent,
} from "./mod.ts";

type Update = acp.SessionNotification;
type WireMessage = Record<string, unknown>;

/** A server and an SDK client over in-memory streams, with the server's output tapped. */
interface Harness {
  readonly host: Host;
  readonly server: AcpServer;
  readonly client: acp.ClientConnection;
  /** Every session/update the client received, in order. */
  readonly updates: Update[];
  /** Every message the server wrote, in wire order. */
  readonly wire: WireMessage[];
  readonly records: LogRecord[];
  /** What `setup` was called with. */
  readonly setups: AcpSessionInfo[];
  initialize(): Promise<acp.InitializeResponse>;
  newSession(): Promise<string>;
  prompt(sessionId: string, text: string, signal?: AbortSignal): Promise<acp.PromptResponse>;
  /** The next turn start of any agent. */
  turnStarted(): Promise<void>;
  /** The updates of one session, in order. */
  of(sessionId: string): acp.SessionUpdate[];
  /** Client EOF, then wait for both sides to finish, then dispose the host. */
  end(): Promise<void>;
}

async function harness(
  extra: Partial<AcpServerOptions> = {},
  setup?: (host: Host, agent: Agent, info: AcpSessionInfo) => void | Promise<void>,
): Promise<Harness> {
  const { logger, records } = createMemoryLogger();
  const host = createHost({ logger });
  host.models.register(host.scope, "scripted", createScriptedModel());
  const toServer = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const wire: WireMessage[] = [];
  const decoder = new TextDecoder();
  let pending = "";
  const tap = new TransformStream<Uint8Array, Uint8Array>({
    transform(chunk, controller) {
      pending += decoder.decode(chunk, { stream: true });
      let newline: number;
      while ((newline = pending.indexOf("\n")) !== -1) {
        wire.push(JSON.parse(pending.slice(0, newline)));
        pending = pending.slice(newline + 1);
      }
      controller.enqueue(chunk);
    },
  });
  const setups: AcpSessionInfo[] = [];
  const server = serveAcpAgent({
    host,
    model: "scripted",
    streams: { readable: toServer.readable, writable: toClient.writable },
    logger,
    setup: async (agent, info) => {
      setups.push(info);
      await setup?.(host, agent, info);
    },
    ...extra,
  });
  const updates: Update[] = [];
  const client = acp.client({ name: "test-client" })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      updates.push(params);
    })
    .connect(acp.ndJsonStream(toServer.writable, toClient.readable.pipeThrough(tap)));
  const h: Harness = {
    host,
    server,
    client,
    updates,
    wire,
    records,
    setups,
    initialize: () =>
      client.agent.request(acp.methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
      }),
    async newSession() {
      const { sessionId } = await client.agent.request(acp.methods.agent.session.new, {
        cwd: "/work/somewhere",
        mcpServers: [],
      });
      return sessionId;
    },
    prompt: (sessionId, text, signal) =>
      client.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [{ type: "text", text }],
      }, signal ? { cancellationSignal: signal } : {}),
    turnStarted: () =>
      new Promise<void>((resolve) => {
        const off = host.scope.on(agentTurnStart, () => {
          off();
          resolve();
        });
      }),
    of: (sessionId) => updates.filter((u) => u.sessionId === sessionId).map((u) => u.update),
    async end() {
      await toServer.writable.close().catch(() => {});
      await server.closed;
      await client.closed;
      await host.scope.dispose();
    },
  };
  await h.initialize();
  return h;
}

const text = (updates: acp.SessionUpdate[]): string =>
  updates.map((u) =>
    u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : ""
  ).join("");

async function rejection(promise: Promise<unknown>): Promise<acp.RequestError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof acp.RequestError, `not a RequestError: ${error}`);
    return error;
  }
  assert.fail("expected a JSON-RPC error");
}

Deno.test("serveAcpAgent() answers initialize with honest capabilities", async () => {
  const h = await harness({ name: "my-agent", title: "My Agent", version: "9.9.9" });
  try {
    const answer = await h.initialize();
    assert.deepEqual(answer, {
      protocolVersion: 1,
      agentCapabilities: {
        loadSession: false,
        promptCapabilities: { image: true, audio: false, embeddedContext: true },
        mcpCapabilities: { http: false, sse: false },
        sessionCapabilities: { close: {} },
      },
      authMethods: [],
      agentInfo: { name: "my-agent", version: "9.9.9", title: "My Agent" },
    });
  } finally {
    await h.end();
  }
});

Deno.test("serveAcpAgent() runs a turn per prompt and streams its text before the answer", async (t) => {
  const h = await harness();
  try {
    const sessionId = await h.newSession();
    await t.step("the session's agent exists, with the session id", () => {
      const agent = h.host.agents.get(sessionId);
      assert.ok(agent);
      assert.equal(agent.options.model, "scripted");
      assert.deepEqual(h.setups, [{ sessionId, cwd: "/work/somewhere" }]);
    });

    await t.step("completed → end_turn, chunks first", async () => {
      const answer = await h.prompt(sessionId, "@reply hello from the child");
      assert.deepEqual(answer, { stopReason: "end_turn" });
      assert.equal(text(h.of(sessionId)), "hello from the child");
      // On the wire: every update of the turn precedes the answer.
      const answerAt = h.wire.findIndex((m) => "result" in m && isPromptAnswer(m));
      const lastUpdate = h.wire.findLastIndex((m) => m.method === "session/update");
      assert.ok(answerAt > lastUpdate, "an update was written after the prompt's answer");
      assert.ok(h.of(sessionId).length >= 4, "one chunk per word");
    });

    await t.step("the session keeps its conversation across prompts", async () => {
      h.updates.length = 0;
      const answer = await h.prompt(sessionId, "@reply again");
      assert.equal(answer.stopReason, "end_turn");
      assert.equal(text(h.of(sessionId)), "again");
      const events = h.host.agents.get(sessionId)!.session.events();
      assert.equal(events.filter((e) => e.type === "turn-start").length, 2);
    });

    await t.step("max-tokens → max_tokens, refusal → refusal", async () => {
      h.updates.length = 0;
      assert.equal(
        (await h.prompt(sessionId, "@max-tokens partial words")).stopReason,
        "max_tokens",
      );
      assert.equal(text(h.of(sessionId)), "partial words");
      assert.equal((await h.prompt(sessionId, "@refuse no")).stopReason, "refusal");
    });

    await t.step("a failed turn → a JSON-RPC error with the message", async () => {
      const error = await rejection(h.prompt(sessionId, "@fail boom"));
      assert.equal(error.code, -32603);
      assert.match(error.message, /^The agent's turn failed: .*boom/);
      assert.deepEqual(error.data, { reason: "error" });
      // The session is still usable.
      assert.equal((await h.prompt(sessionId, "@reply fine")).stopReason, "end_turn");
    });
  } finally {
    await h.end();
  }
});

function isPromptAnswer(message: WireMessage): boolean {
  const result = message.result as Record<string, unknown> | null;
  return result !== null && typeof result === "object" && "stopReason" in result;
}

Deno.test("serveAcpAgent() serves several sessions at once, each its own agent", async () => {
  const h = await harness();
  try {
    const [a, b] = await Promise.all([h.newSession(), h.newSession()]);
    assert.notEqual(a, b);
    assert.deepEqual(h.host.agents.list().map((agent) => agent.id).sort(), [a, b].sort());
    const [answerA, answerB] = await Promise.all([
      h.prompt(a, "@delay 20\n@reply one for a"),
      h.prompt(b, "@reply two for b"),
    ]);
    assert.equal(answerA.stopReason, "end_turn");
    assert.equal(answerB.stopReason, "end_turn");
    assert.equal(text(h.of(a)), "one for a");
    assert.equal(text(h.of(b)), "two for b");
  } finally {
    await h.end();
  }
});

Deno.test("serveAcpAgent() streams tool calls and plans", async (t) => {
  const h = await harness({}, (host, agent) => {
    host.tools.register(agent.scope, {
      name: "add",
      description: "Add two numbers",
      parameters: {
        type: "object",
        properties: { a: { type: "number" }, b: { type: "number" } },
        required: ["a", "b"],
      },
      execute: ({ a, b }: { a: number; b: number }) => ({ content: String(a + b) }),
    });
    host.tools.register(agent.scope, createAcpPlanTool());
  });
  try {
    const sessionId = await h.newSession();

    await t.step("tool_call, then tool_call_update with the result, then the text", async () => {
      const answer = await h.prompt(
        sessionId,
        '@call add {"a": 2, "b": 3}\n@reply sum {{results}}',
      );
      assert.equal(answer.stopReason, "end_turn");
      const updates = h.of(sessionId);
      const call = updates.find((u) => u.sessionUpdate === "tool_call");
      assert.ok(call && call.sessionUpdate === "tool_call");
      assert.equal(call.title, "add");
      assert.equal(call.status, "in_progress");
      assert.deepEqual(call.rawInput, { a: 2, b: 3 });
      const done = updates.find((u) => u.sessionUpdate === "tool_call_update");
      assert.ok(done && done.sessionUpdate === "tool_call_update");
      assert.equal(done.toolCallId, call.toolCallId);
      assert.equal(done.status, "completed");
      assert.deepEqual(done.content, [{ type: "content", content: { type: "text", text: "5" } }]);
      assert.ok(updates.indexOf(call) < updates.indexOf(done));
      assert.equal(text(updates.slice(updates.indexOf(done))), "sum 5");
    });

    await t.step("a failing tool call ends failed", async () => {
      h.updates.length = 0;
      await h.prompt(sessionId, '@call add {"a": "x"}\n@reply ok');
      const done = h.of(sessionId).find((u) => u.sessionUpdate === "tool_call_update");
      assert.ok(done && done.sessionUpdate === "tool_call_update");
      assert.equal(done.status, "failed");
      assert.deepEqual(done.rawOutput, { isError: true, code: "INVALID_ARGS" });
    });

    await t.step("createAcpPlanTool() reports a plan update", async () => {
      h.updates.length = 0;
      const entries = [
        { content: "Read the code", priority: "high", status: "completed" },
        { content: "Write the fix", priority: "medium", status: "in_progress" },
      ];
      await h.prompt(sessionId, `@call update_plan ${JSON.stringify({ entries })}\n@reply planned`);
      const plan = h.of(sessionId).find((u) => u.sessionUpdate === "plan");
      assert.ok(plan && plan.sessionUpdate === "plan");
      assert.deepEqual(plan.entries, entries);
    });
  } finally {
    await h.end();
  }
});

Deno.test("createAcpAssistantSetup() gives a session the plan tool and a prompt naming its cwd", async () => {
  const agents: Agent[] = [];
  const h = await harness({}, (host, agent, info) => {
    agents.push(agent);
    createAcpAssistantSetup(host)(agent, info);
  });
  try {
    const sessionId = await h.newSession();
    const entries = [{ content: "Look", priority: "high", status: "in_progress" }];
    await h.prompt(sessionId, `@call update_plan ${JSON.stringify({ entries })}\n@reply planned`);
    const plan = h.of(sessionId).find((u) => u.sessionUpdate === "plan");
    assert.ok(plan && plan.sessionUpdate === "plan");
    assert.deepEqual(plan.entries, entries);
    const prompt = h.host.prompts.render(agents[0].scope);
    assert.ok(prompt.includes(`The user's working directory is ${h.setups[0].cwd}.`), prompt);
  } finally {
    await h.end();
  }
});

Deno.test("serveAcpAgent() forwards only the session agent's own updates", async () => {
  const h = await harness({}, (host, agent) => {
    host.tools.register(agent.scope, {
      name: "delegate",
      description: "Run a nested agent",
      parameters: { type: "object" },
      async execute(_args, call) {
        const child = await host.agents.create({
          parentScope: call.agent.scope,
          options: { model: "scripted" },
        });
        try {
          child.send("@reply nested words");
          return { content: (await child.whenIdle()).reason };
        } finally {
          await child.dispose();
        }
      },
    });
  });
  try {
    const sessionId = await h.newSession();
    await h.prompt(sessionId, "@call delegate\n@reply outer {{results}}");
    assert.equal(text(h.of(sessionId)), "outer completed");
  } finally {
    await h.end();
  }
});

Deno.test("serveAcpAgent() answers cancelled on session/cancel", async (t) => {
  const h = await harness();
  try {
    const sessionId = await h.newSession();

    await t.step("session/cancel", async () => {
      const started = h.turnStarted();
      const answer = h.prompt(sessionId, "@hang");
      await started;
      await h.client.agent.notify(acp.methods.agent.session.cancel, { sessionId });
      assert.deepEqual(await answer, { stopReason: "cancelled" });
      assert.equal(h.host.agents.get(sessionId)!.state, "idle");
    });

    await t.step("the session takes the next prompt", async () => {
      assert.equal((await h.prompt(sessionId, "@reply after")).stopReason, "end_turn");
    });

    await t.step("$/cancel_request of the prompt cancels the turn too", async () => {
      const controller = new AbortController();
      const started = h.turnStarted();
      const answer = h.prompt(sessionId, "@hang", controller.signal);
      answer.catch(() => {});
      await started;
      const agent = h.host.agents.get(sessionId)!;
      const idle = agent.whenIdle();
      controller.abort();
      assert.equal((await idle).reason, "aborted");
      await answer.catch(() => {});
      assert.equal((await h.prompt(sessionId, "@reply again")).stopReason, "end_turn");
    });

    await t.step("a cancel with no prompt running is ignored", async () => {
      await h.client.agent.notify(acp.methods.agent.session.cancel, { sessionId });
      await h.client.agent.notify(acp.methods.agent.session.cancel, { sessionId: "nope" });
      assert.equal((await h.prompt(sessionId, "@reply still fine")).stopReason, "end_turn");
    });
  } finally {
    await h.end();
  }
});

Deno.test("serveAcpAgent() refuses bad requests with JSON-RPC errors", async (t) => {
  const h = await harness();
  try {
    const sessionId = await h.newSession();

    await t.step("a prompt for an unknown session → -32002", async () => {
      const error = await rejection(h.prompt("no-such-session", "@reply hi"));
      assert.equal(error.code, -32002);
      assert.match(error.message, /no session "no-such-session"/);
    });

    await t.step("a second prompt while one runs → -32600", async () => {
      const started = h.turnStarted();
      const first = h.prompt(sessionId, "@hang");
      await started;
      const error = await rejection(h.prompt(sessionId, "@reply two"));
      assert.equal(error.code, -32600);
      assert.match(error.message, /already running a prompt/);
      await h.client.agent.notify(acp.methods.agent.session.cancel, { sessionId });
      assert.equal((await first).stopReason, "cancelled");
    });

    await t.step("content it does not accept → -32602", async () => {
      const audio = await rejection(
        h.client.agent.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "audio", data: "AAAA", mimeType: "audio/wav" }],
        }),
      );
      assert.equal(audio.code, -32602);
      assert.match(audio.message, /audio is not accepted/);
      const blob = await rejection(
        h.client.agent.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "resource", resource: { uri: "file:///x.bin", blob: "AAAA" } }],
        }),
      );
      assert.equal(blob.code, -32602);
      assert.match(blob.message, /binary/);
    });

    await t.step("images, resource links and embedded text resources are taken", async () => {
      const answer = await h.client.agent.request(acp.methods.agent.session.prompt, {
        sessionId,
        prompt: [
          { type: "text", text: "@echo\nlook" },
          { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
          { type: "resource_link", uri: "file:///a.ts", name: "a.ts" },
          { type: "resource", resource: { uri: "file:///b.ts", text: "const b = 1;" } },
        ],
      });
      assert.equal(answer.stopReason, "end_turn");
      const message = h.host.agents.get(sessionId)!.session.events().findLast((e) =>
        e.type === "user-message"
      );
      assert.deepEqual(message?.type === "user-message" && message.content, [
        { type: "text", text: "@echo\nlook" },
        { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
        { type: "resource", uri: "file:///a.ts" },
        { type: "resource", uri: "file:///b.ts", text: "const b = 1;" },
      ]);
    });
  } finally {
    await h.end();
  }
});

Deno.test("serveAcpAgent() quotes a client's unknown session id cut to 200 characters", async () => {
  const h = await harness();
  try {
    const long = "s".repeat(5_000);
    const prompted = await rejection(h.prompt(long, "@reply hi"));
    // The SDK's client takes a close of an unknown session as done: read the wire.
    await h.client.agent.request(acp.methods.agent.session.close, { sessionId: long });
    const closed = h.wire.findLast((m) => "error" in m)?.error as acp.RequestError;
    for (const error of [prompted, closed]) {
      assert.equal(error.code, -32002);
      assert.equal(error.message, `Resource not found: no session "${"s".repeat(200)}…"`);
      assert.deepEqual(error.data, { sessionId: `${"s".repeat(200)}…` });
    }
    await h.client.agent.notify(acp.methods.agent.session.cancel, { sessionId: long });
    await h.newSession(); // the notification was handled before this answer
    const ignored = h.records.find((r) => r.message.startsWith("Ignored session/cancel"));
    assert.equal(
      ignored?.message,
      `Ignored session/cancel for "${"s".repeat(200)}…": no prompt is running`,
    );
  } finally {
    await h.end();
  }
});

Deno.test("serveAcpAgent() fails session/new when setup throws, and ignores MCP servers loudly", async () => {
  const h = await harness({}, (_host, _agent, info) => {
    if (info.cwd === "/bad") throw new Error("no tools for /bad");
  });
  try {
    const error = await rejection(
      h.client.agent.request(acp.methods.agent.session.new, { cwd: "/bad", mcpServers: [] }),
    );
    assert.equal(error.code, -32603);
    assert.match(error.message, /Cannot create the session's agent: .*no tools for \/bad/);
    assert.equal(h.host.agents.list().length, 0);

    const { sessionId } = await h.client.agent.request(acp.methods.agent.session.new, {
      cwd: "/ok",
      mcpServers: [{ name: "fs", command: "mcp-fs", args: [], env: [] }],
    });
    assert.ok(h.host.agents.get(sessionId));
    assert.ok(
      h.records.some((r) => r.level === "warn" && /Ignored 1 MCP server/.test(r.message)),
    );
  } finally {
    await h.end();
  }
});

Deno.test("serveAcpAgent() closes a session on session/close", async () => {
  const h = await harness();
  try {
    const [a, b] = await Promise.all([h.newSession(), h.newSession()]);
    const agentA = h.host.agents.get(a)!;
    const started = h.turnStarted();
    const running = h.prompt(a, "@hang");
    await started;
    await h.client.agent.request(acp.methods.agent.session.close, { sessionId: a });
    assert.deepEqual(await running, { stopReason: "cancelled" });
    assert.equal(agentA.state, "disposed");
    assert.equal(h.host.agents.get(a), undefined);
    assert.equal((await rejection(h.prompt(a, "@reply hi"))).code, -32002);
    // The other session is untouched.
    assert.equal((await h.prompt(b, "@reply still here")).stopReason, "end_turn");
  } finally {
    await h.end();
  }
});

Deno.test("serveAcpAgent() holds a connection to maxSessions sessions; session/close frees one", async (t) => {
  // Each setup waits at a gate, so every session/new is under way at once.
  let open!: () => void;
  const gate = new Promise<void>((resolve) => open = resolve);
  const h = await harness({ maxSessions: 3 }, () => gate);
  try {
    const expectRefusal = async (request: Promise<unknown>) => {
      const error = await rejection(request);
      assert.equal(error.code, -32603);
      assert.equal(
        error.message,
        "Cannot open a session: this connection holds 3 sessions already, the most it may (maxSessions); close one with session/close first",
      );
      assert.deepEqual(error.data, { reason: "maxSessions", maxSessions: 3 });
    };
    let ids: string[] = [];
    await t.step("five at once: three open, two refused, no agent made for them", async () => {
      const requests = Array.from({ length: 5 }, () => h.newSession());
      await Promise.all(requests.slice(3).map(expectRefusal));
      open();
      ids = await Promise.all(requests.slice(0, 3));
      assert.equal(h.host.agents.list().length, 3);
      assert.equal(h.setups.length, 3);
      await expectRefusal(h.newSession());
    });
    await t.step("session/close frees a slot for the next session/new", async () => {
      await h.client.agent.request(acp.methods.agent.session.close, { sessionId: ids[0] });
      const next = await h.newSession();
      assert.equal((await h.prompt(next, "@reply hi")).stopReason, "end_turn");
      await expectRefusal(h.newSession());
    });
    await t.step("a session/new that failed frees its slot", async () => {
      let failures = 2;
      const one = await harness({ maxSessions: 1 }, () => {
        if (failures-- > 0) throw new Error("no tools today");
      });
      try {
        assert.match((await rejection(one.newSession())).message, /no tools today/);
        assert.match((await rejection(one.newSession())).message, /no tools today/);
        await one.newSession();
        assert.deepEqual((await rejection(one.newSession())).data, {
          reason: "maxSessions",
          maxSessions: 1,
        });
      } finally {
        await one.end();
      }
    });
  } finally {
    open();
    await h.end();
  }
});

Deno.test("serveAcpAgent() holds 64 sessions a connection by default", async () => {
  const h = await harness();
  try {
    const ids = await Promise.all(Array.from({ length: 64 }, () => h.newSession()));
    assert.equal(new Set(ids).size, 64);
    const error = await rejection(h.newSession());
    assert.equal(error.code, -32603);
    assert.match(error.message, /holds 64 sessions already, the most it may \(maxSessions\)/);
    assert.equal(h.host.agents.list().length, 64);
  } finally {
    await h.end();
  }
});

Deno.test("serveAcpAgent() stops on EOF, disposing every session agent", async () => {
  const h = await harness();
  const [a, b] = await Promise.all([h.newSession(), h.newSession()]);
  const agents = [h.host.agents.get(a)!, h.host.agents.get(b)!];
  const started = h.turnStarted();
  const running = h.prompt(a, "@hang");
  running.catch(() => {});
  await started;
  await h.end(); // closes the client's end, awaits server.closed and client.closed
  assert.deepEqual(agents.map((agent) => agent.state), ["disposed", "disposed"]);
  assert.equal(h.host.agents.list().length, 0);
  await assert.rejects(running); // the connection closed before an answer
});

Deno.test("serveAcpAgent() close() stops serving and ends the client's stream", async () => {
  const h = await harness();
  const sessionId = await h.newSession();
  const agent = h.host.agents.get(sessionId)!;
  await h.server.close();
  assert.equal(agent.state, "disposed");
  await h.client.closed; // the server closed its output: EOF on the client's side
  assert.equal(h.server.close(), h.server.closed);
  await h.end();
});

Deno.test("serveAcpAgent() stops when its parent scope is disposed", async () => {
  const h = await harness();
  const sessionId = await h.newSession();
  const agent = h.host.agents.get(sessionId)!;
  await h.host.scope.dispose();
  await h.server.closed;
  assert.equal(agent.state, "disposed");
  await h.client.closed;
  await h.end();
});

Deno.test("serveAcpAgent() rejects bad options naming them", () => {
  const host = createHost({ logger: createMemoryLogger().logger });
  const streams = { readable: new ReadableStream(), writable: new WritableStream() };
  const cases: [Partial<AcpServerOptions> | undefined, RegExp][] = [
    [undefined, /options must be an object/],
    [{ streams, model: "m" }, /options\.host must be a Host/],
    [{ host, model: "m" }, /options\.streams must hold/],
    [{ host, streams, model: "" }, /options\.model must be a non-empty string/],
    [{ host, streams, model: "m", setup: 1 as never }, /options\.setup must be a function/],
    [{ host, streams, model: "m", name: "" }, /options\.name must be a non-empty string/],
    [
      { host, streams, model: "m", maxSessions: 0 },
      /options\.maxSessions must be an integer from 1 to 1000000, got 0/,
    ],
    [{ host, streams, model: "m", maxSessions: 2.5 }, /options\.maxSessions must be an integer/],
    [
      { host, streams, model: "m", maxSessions: "many" as never },
      /options\.maxSessions must be an integer from 1 to 1000000, got many/,
    ],
    [{ host, streams, model: "m", logger: {} as never }, /options\.logger must be a Logger/],
    [
      { host, streams, model: "m", maxSesions: 2 } as never,
      /Cannot serve an ACP agent: unknown option maxSesions \(known: host, streams, model, maxTokens, maxSessions, setup, parentScope, name, title, version, logger\)/,
    ],
  ];
  for (const [options, message] of cases) {
    assert.throws(
      () => serveAcpAgent(options as AcpServerOptions),
      (e: unknown) => e instanceof TypeError && message.test(e.message),
      String(message),
    );
  }
});

Deno.test("serveAcpAgent() ignores a client's answer to no request, logging its id cut", async () => {
  const { logger, records } = createMemoryLogger();
  const host = createHost({ logger });
  const toServer = new TransformStream<Uint8Array, Uint8Array>();
  const toClient = new TransformStream<Uint8Array, Uint8Array>();
  const server = serveAcpAgent({
    host,
    model: "scripted",
    streams: { readable: toServer.readable, writable: toClient.writable },
    logger,
  });
  const printed: unknown[][] = [];
  const consoleError = console.error;
  console.error = (...args: unknown[]) => printed.push(args);
  try {
    const input = toServer.writable.getWriter();
    const send = (message: WireMessage) =>
      input.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
    await send({ jsonrpc: "2.0", id: "r".repeat(5_000), result: {} });
    await send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } });
    const answer = JSON.parse(
      new TextDecoder().decode((await toClient.readable.getReader().read()).value),
    );
    assert.equal(answer.id, 1); // still serving
    assert.deepEqual(printed, []);
    assert.ok(
      records.some((r) =>
        r.message === `Ignored an ACP client's answer to no request: id "${"r".repeat(200)}…"`
      ),
    );
    await input.close();
    await server.closed;
  } finally {
    console.error = consoleError;
    await host.scope.dispose();
  }
});

Deno.test("createAcpPlanTool() refuses an unknown option, naming the known ones", () => {
  assert.throws(
    () => createAcpPlanTool({ nmae: "plan" } as never),
    new TypeError(
      "Cannot create the ACP plan tool: unknown option nmae (known: name, description)",
    ),
  );
});
