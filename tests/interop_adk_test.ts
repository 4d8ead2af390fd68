// Interop with Google's Agent Development Kit as it is (issue 37 item 6, ADK):
// `@google/adk` 2.0.0's own A2A server (`toA2a`, on Express) behind seam's
// A2A provider, and its own client (`RemoteA2AAgent` in an ADK runner) in
// front of `serveGateway`, all on loopback. ADK runs in a process of its own
// (`testdata/adk_peer.ts` says why: it cannot load under these tests'
// permissions), on a model answering from a script; everything else is ADK's
// own code. Each step asserts what the seam side does.
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope, textOf } from "@seam/host";
import {
  createSubagentService,
  handleSubagentInput,
  type SubagentInputAnswer,
  type SubagentInputRequest,
  type SubagentProvider,
} from "@seam/subagent";
import { type A2AAgentCard, createA2AProvider } from "@seam/subagent-a2a";
import { SEAM_EXTENSION_URI } from "../gateway/mod.ts";
import { serveGateway } from "../gateway/serve.ts";
import { spawnDenoScript } from "./spawn_support.ts";
import { askingProvider } from "./asking_support.ts";

const PEER = new URL("./testdata/adk_peer.ts", import.meta.url).pathname;
/** Far above what any step takes: a peer that hangs fails the test instead of holding it. */
const PEER_BOUND_MS = 60_000;

/** ADK in a child process: JSON lines in on stdin, `@@ `-marked JSON lines out on stdout. */
class AdkPeer {
  readonly #child: Deno.ChildProcess;
  readonly #lines: AsyncIterator<string>;
  readonly #stdin: WritableStreamDefaultWriter<Uint8Array>;
  readonly #stderr: Promise<string>;
  readonly #said: string[] = [];

  constructor(args: string[]) {
    this.#child = spawnDenoScript(
      PEER,
      ["--allow-env", "--allow-read", "--allow-sys", "--allow-net=127.0.0.1"],
      args,
    );
    this.#lines = this.#child.stdout.pipeThrough(new TextDecoderStream()).pipeThrough(
      splitLines(),
    )[Symbol.asyncIterator]();
    this.#stdin = this.#child.stdin.getWriter();
    this.#stderr = new Response(this.#child.stderr).text();
  }

  /** The peer's next `@@` line, parsed (its other lines are kept for a failure's message). */
  async next(): Promise<Record<string, unknown>> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(this.#why("no answer in time"))), PEER_BOUND_MS);
    });
    try {
      for (;;) {
        const line = await Promise.race([this.#lines.next(), late]);
        if (line.done) throw new Error(this.#why("the ADK peer ended"));
        if (line.value.startsWith("@@ ")) return JSON.parse(line.value.slice(3));
        this.#said.push(line.value);
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /** Send one line; answer the peer's next. */
  async ask(value: Record<string, unknown>): Promise<Record<string, unknown>> {
    await this.#stdin.write(new TextEncoder().encode(`${JSON.stringify(value)}\n`));
    return await this.next();
  }

  /** End its stdin and wait for it to exit (killed past the bound). */
  async close(): Promise<void> {
    await this.#stdin.close().catch(() => {});
    const timer = setTimeout(() => this.#child.kill("SIGKILL"), PEER_BOUND_MS);
    try {
      for (;;) if ((await this.#lines.next()).done) break;
      const status = await this.#child.status;
      const stderr = await this.#stderr;
      assert.equal(status.code, 0, `the ADK peer failed:\n${stderr}`);
    } finally {
      clearTimeout(timer);
    }
  }

  #why(what: string): string {
    return `${what} (its other output: ${this.#said.join("\n").slice(-2_000)})`;
  }
}

/** A stream of text cut into lines. */
function splitLines(): TransformStream<string, string> {
  let rest = "";
  return new TransformStream({
    transform(chunk, controller) {
      const parts = (rest + chunk).split("\n");
      rest = parts.pop()!;
      for (const line of parts) controller.enqueue(line);
    },
    flush(controller) {
      if (rest !== "") controller.enqueue(rest);
    },
  });
}

/** A `fetch` that notes each JSON-RPC method it sends. */
function recordingFetch(methods: string[]): typeof fetch {
  return (input, init) => {
    if (typeof init?.body === "string") {
      const method = (JSON.parse(init.body) as { method?: string }).method;
      if (method) methods.push(method);
    }
    return fetch(input, init);
  };
}

Deno.test("seam's A2A provider in front of ADK's own A2A server (toA2a)", async (t) => {
  const peer = new AdkPeer(["serve"]);
  const adk = { url: String((await peer.next()).url) };
  const { logger, records } = createMemoryLogger();
  const root = createRootScope({ logger });
  const subagents = createSubagentService(root);
  const parent = { id: "main", scope: root.child("main") };
  const methods: string[] = [];
  try {
    subagents.registerProvider(
      await createA2AProvider({
        url: adk.url,
        name: "adk",
        timeoutMs: 10_000,
        fetch: recordingFetch(methods),
      }),
    );
    const run = async (prompt: string, provider = "adk") => {
      const started = subagents.start(provider, { prompt, parent });
      try {
        return await started.result;
      } finally {
        await started.dispose();
      }
    };

    await t.step("stream: ADK's chunks are the run's output, over message/stream", async () => {
      methods.length = 0;
      const result = await run("echo hello there");
      assert.equal(result.stopReason, "completed", JSON.stringify(result));
      assert.equal(textOf(result.output), "echo: hello there");
      assert.deepEqual(methods, ["message/stream"]);
    });

    await t.step(
      "send, then get: a card that does not stream is followed by tasks/get",
      async () => {
        const card = await (await fetch(`${adk.url}/.well-known/agent-card.json`)).json();
        const unary: string[] = [];
        subagents.registerProvider(
          await createA2AProvider({
            card: {
              ...card,
              capabilities: { ...card.capabilities, streaming: false },
            } as A2AAgentCard,
            name: "adk-unary",
            timeoutMs: 10_000,
            reconnect: { delayMs: 5 },
            fetch: recordingFetch(unary),
          }),
        );
        const result = await run("echo sent once", "adk-unary");
        assert.equal(result.stopReason, "completed", JSON.stringify(result));
        assert.equal(textOf(result.output), "echo: sent once");
        assert.equal(unary[0], "message/send");
        assert.ok(unary.includes("tasks/get"), JSON.stringify(unary));
      },
    );

    await t.step("HTTP+JSON: the card's other binding streams the same answer", async () => {
      subagents.registerProvider(
        await createA2AProvider({
          url: adk.url,
          name: "adk-rest",
          binding: "HTTP+JSON",
          timeoutMs: 10_000,
        }),
      );
      const result = await run("echo over rest", "adk-rest");
      assert.equal(result.stopReason, "completed", JSON.stringify(result));
      assert.equal(textOf(result.output), "echo: over rest");
    });

    await t.step("multi-turn: resume() continues ADK's session (its contextId)", async () => {
      const first = subagents.start("adk", { prompt: "count", parent });
      try {
        assert.equal(textOf((await first.result).output), "turn 1");
        const second = first.resume!("count");
        try {
          const result = await second.result;
          assert.equal(result.stopReason, "completed", JSON.stringify(result));
          assert.equal(textOf(result.output), "turn 2");
        } finally {
          await second.dispose();
        }
      } finally {
        await first.dispose();
      }
    });

    await t.step(
      "a long-running function call: a question in words, answered with data as its function_response",
      async () => {
        const asked: SubagentInputRequest[] = [];
        const removeHandler = handleSubagentInput(root, (request) => {
          asked.push(request);
          return {
            outcome: "answered",
            text: "Ada approved it",
            data: { status: "approved", by: "Ada" },
          };
        });
        try {
          const result = await run("expense please");
          assert.equal(result.stopReason, "completed", JSON.stringify(result));
          // ADK took the data as the call's response, and the model said it.
          assert.equal(textOf(result.output), 'expense {"status":"approved","by":"Ada"}');
          // The call itself is ADK's tool traffic, not the agent's words.
          assert.doesNotMatch(JSON.stringify(result.output), /"args"/);
          assert.equal(asked.length, 1);
          assert.equal(asked[0].kind, "question");
          assert.match(asked[0].message, /calls "approve_expense" with \{"amount":120\}/);
          assert.deepEqual(asked[0].toolCall, {
            name: "approve_expense",
            kind: "function_call",
            rawInput: { amount: 120 },
          });
        } finally {
          await removeHandler();
        }
      },
    );

    await t.step(
      "cancel refused: ADK answers CancelTask with an error and goes on; the run ends aborted saying so",
      async () => {
        records.length = 0;
        const running = subagents.start("adk", { prompt: "wait", parent });
        try {
          await running.started;
          running.cancel("changed my mind");
          const result = await running.result;
          assert.equal(result.stopReason, "aborted");
          assert.equal(result.error?.code, "REMOTE_CANCEL_REFUSED", JSON.stringify(result));
          const remoteCancel = (result.error?.data as { remoteCancel: Record<string, unknown> })
            .remoteCancel;
          assert.equal(remoteCancel.refused, true);
          assert.equal(remoteCancel.code, -32603);
          assert.match(String(remoteCancel.message), /not supported/i);
          assert.ok(
            records.some((r) =>
              r.level === "warn" && /refused CancelTask .*its task may still run/.test(r.message)
            ),
            JSON.stringify(records),
          );
        } finally {
          await running.dispose();
        }
        // It did go on: let it finish before the server closes.
        assert.deepEqual(await peer.ask({ open: true }), { waited: true });
      },
    );

    await t.step("an agent that throws: the run ends error, ADK's words kept", async () => {
      const result = await run("throw");
      assert.equal(result.stopReason, "error", JSON.stringify(result));
      assert.equal(result.error?.code, "CHILD_FAILED");
      assert.match(JSON.stringify(result), /the model fell over/);
    });
  } finally {
    await root.dispose();
    await peer.close();
  }
});

/**
 * The seam side for ADK's client: a provider whose runs, by the prompt's
 * first word, `echo` the rest, say which `count` turn this is (a resumed run
 * is the next turn), `ask` a question and answer what they were told, or
 * `fail`. It notes every prompt and answer.
 */
function deskProvider(): SubagentProvider & {
  prompts: string[];
  answers: SubagentInputAnswer[];
} {
  const prompts: string[] = [];
  const answers: SubagentInputAnswer[] = [];
  const provider = askingProvider("desk", async ({ request, turn, ask, signal }) => {
    const prompt = textOf(request.prompt);
    prompts.push(prompt);
    await Promise.resolve();
    const [verb, ...rest] = prompt.split(" ");
    switch (verb) {
      case "echo":
        return { output: rest.join(" "), stopReason: "completed" };
      case "count":
        return { output: `turn ${turn}`, stopReason: "completed" };
      case "ask": {
        const answer = await ask({ kind: "question", message: "Which branch?" });
        answers.push(answer);
        if (signal.aborted || answer.outcome !== "answered") {
          return { output: "", stopReason: "aborted" };
        }
        return { output: `branch ${answer.text}`, stopReason: "completed" };
      }
      default:
        return {
          output: "the desk fell over",
          stopReason: "error",
          error: { code: "CHILD_FAILED", message: "the desk failed on purpose" },
        };
    }
  }, { resumable: true });
  return { ...provider, prompts, answers };
}

Deno.test("ADK's RemoteA2AAgent in front of serveGateway (A2A 0.3, on by default)", async (t) => {
  const root = createRootScope({ logger: createMemoryLogger().logger });
  const desk = deskProvider();
  createSubagentService(root).registerProvider(desk);
  const served = serveGateway({ scope: root }, { port: 0, quiet: true });
  const peer = new AdkPeer(["client", served.url]);
  /** One user turn in ADK's session: what ADK's events said, and any error. */
  const say = async (session: string, text: string) =>
    await peer.ask({ session, say: text }) as { said: string; error: string };
  const session = async () => String((await peer.ask({ session: true })).session);
  /** The gateway's tasks, newest first (ListTasks over its own fetch). */
  const tasks = async () => {
    const response = await served.gateway.fetch(
      new Request(served.url, {
        method: "POST",
        headers: { "content-type": "application/json", "a2a-version": "1.0" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ListTasks", params: {} }),
      }),
    );
    return (await response.json()).result.tasks as {
      id: string;
      contextId: string;
      status: { state: string };
      metadata?: Record<string, { resumedFrom?: string }>;
    }[];
  };
  try {
    await t.step("send: the gateway runs the message and ADK hears the output", async () => {
      const { said, error } = await say(await session(), "echo hello from ADK");
      assert.equal(error, "");
      assert.match(said, /hello from ADK/);
      assert.equal(desk.prompts.at(-1), "echo hello from ADK");
      assert.equal((await tasks())[0].status.state, "TASK_STATE_COMPLETED");
    });

    await t.step("multi-turn: ADK's next message in the context resumes the kept run", async () => {
      const id = await session();
      assert.match((await say(id, "count")).said, /turn 1/);
      assert.match((await say(id, "count")).said, /turn 2/);
      const [second, first] = await tasks();
      assert.equal(second.contextId, first.contextId);
      assert.equal(second.metadata?.[SEAM_EXTENSION_URI]?.resumedFrom, first.id);
    });

    await t.step(
      "input required: ADK answers by context only, and the waiting task takes it",
      async () => {
        const id = await session();
        const before = desk.prompts.length;
        const asked = await say(id, "ask");
        assert.match(asked.said, /Which branch\?/);
        const [waiting] = await tasks();
        assert.equal(waiting.status.state, "TASK_STATE_INPUT_REQUIRED");
        const answered = await say(id, "main");
        assert.equal(answered.error, "");
        assert.match(answered.said, /branch main/);
        // The answer went to the waiting run: no new run, no task left waiting.
        assert.equal(desk.prompts.length, before + 1);
        assert.deepEqual(desk.answers.at(-1), { outcome: "answered", text: "main" });
        const after = await tasks();
        assert.equal(
          after.find((task) => task.id === waiting.id)?.status.state,
          "TASK_STATE_COMPLETED",
        );
        assert.ok(after.every((task) => task.status.state !== "TASK_STATE_INPUT_REQUIRED"));
      },
    );

    await t.step("an error: the task fails and ADK hears the child's words", async () => {
      const { said, error } = await say(await session(), "fail now");
      assert.match(said + error, /the desk f/);
      assert.equal((await tasks())[0].status.state, "TASK_STATE_FAILED");
    });
  } finally {
    await peer.close();
    await served.shutdown();
    await root.dispose();
  }
});
