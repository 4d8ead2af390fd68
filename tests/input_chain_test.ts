// Questions and approvals travel up the tree across A2A, over real sockets:
// root host → A2A provider → gateway B (real HTTP on loopback) → a child
// that asks permission to run a command. B's task goes INPUT_REQUIRED, the
// root's handler sees the request with its full path, the answer flows back
// down, the child runs the command (a real process) and the result reaches
// the root. Then the rejected, refused, cancelled-while-pending and
// waiting-past-the-deadline variants, and answers given through run.respond
// (bad ones refused while the run keeps waiting).
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope, type Scope, textOf } from "@seam/host";
import {
  createSubagentService,
  handleSubagentInput,
  type SubagentInputAnswer,
  type SubagentInputHandler,
  type SubagentInputRequest,
  subagentInputRequired,
  subagentInputResolved,
  SubagentInputs,
  type SubagentProvider,
  type SubagentResultInput,
} from "@seam/subagent";
import { createA2AProvider } from "@seam/subagent-a2a";
import { type SpawnGateway, startSpawnGateway, until } from "./a2a_support.ts";
import { askingProvider } from "./asking_support.ts";

const OPTIONS = [
  { id: "allow", label: "Allow once", kind: "allow_once" },
  { id: "always", label: "Always allow", kind: "allow_always" },
  { id: "reject", label: "Reject", kind: "reject_once" },
] as const;

/**
 * B's child: asks permission to run the command its prompt names, runs it
 * (a real process) when allowed, says it did not otherwise.
 */
function shellProvider(): SubagentProvider & { ran: string[]; asked: SubagentInputRequest[] } {
  const ran: string[] = [];
  const asked: SubagentInputRequest[] = [];
  const provider = askingProvider("shell", async ({ request, ask, signal }) => {
    const off = request.parent.scope.on(subagentInputRequired, (r) => void asked.push(r));
    const command = textOf(request.prompt).trim();
    const answer = await ask({
      kind: "permission",
      message: `The child wants to run "${command}"`,
      toolCall: {
        name: "shell",
        title: `Run "${command}"`,
        kind: "execute",
        rawInput: { command },
      },
      options: OPTIONS,
    });
    await off();
    if (signal.aborted) return { output: "", stopReason: "aborted" };
    if (answer.outcome === "selected" && answer.optionId !== "reject") {
      const [program, ...args] = command.split(" ");
      const out = await new Deno.Command(program, { args, stdout: "piped", stderr: "null" })
        .output();
      ran.push(command);
      return {
        output: `ran "${command}": ${new TextDecoder().decode(out.stdout).trim()}`,
        stopReason: "completed",
      };
    }
    const why = answer.outcome === "refused"
      ? answer.reason
      : `option ${answer.outcome === "selected" ? answer.optionId : answer.text}`;
    return { output: `did not run "${command}" (${why})`, stopReason: "completed" };
  });
  return { ...provider, ran, asked };
}

interface Chain {
  readonly b: SpawnGateway;
  readonly shell: ReturnType<typeof shellProvider>;
  readonly root: Scope;
  readonly parent: { id: string; scope: Scope };
  readonly start: (prompt: string) => ReturnType<ReturnType<typeof createSubagentService>["start"]>;
  /** B's task as B tells it (JSON-RPC GetTask over the socket). */
  readonly remoteTask: (id: string) => Promise<{ status: { state: string } }>;
}

async function withChain(
  options: {
    streaming?: boolean;
    deadlineMs?: number;
    idleTimeoutMs?: number;
    taskTimeoutMs?: number;
  },
  body: (chain: Chain) => Promise<void>,
): Promise<void> {
  const shell = shellProvider();
  const b = startSpawnGateway("loopback", {
    defaultProvider: "shell",
    ...(options.taskTimeoutMs ? { limits: { taskTimeoutMs: options.taskTimeoutMs } } : {}),
    setup: (_host, subagents) => subagents.registerProvider(shell),
  });
  const root = createRootScope({ logger: createMemoryLogger().logger });
  try {
    const subagents = createSubagentService(root);
    let card: Record<string, unknown> | undefined;
    if (options.streaming === false) {
      // B streams; this client is told it does not, so it polls GetTask.
      const got = await (await fetch(`${b.url}/.well-known/agent-card.json`)).json();
      card = { ...got, capabilities: { ...got.capabilities, streaming: false } };
    }
    const a2a = await createA2AProvider({
      ...(card ? { card: card as never } : { url: b.url }),
      provider: "shell",
      pollIntervalMs: 10,
      ...(options.deadlineMs ? { deadlineMs: options.deadlineMs } : {}),
      ...(options.idleTimeoutMs ? { idleTimeoutMs: options.idleTimeoutMs } : {}),
    });
    subagents.registerProvider(a2a);
    const parent = { id: "root-agent", scope: root.child("root-agent") };
    const remoteTask = async (id: string) => {
      const response = await fetch(b.url, {
        method: "POST",
        headers: { "content-type": "application/json", "A2A-Version": "1.0" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id } }),
      });
      return (await response.json()).result;
    };
    await body({
      b,
      shell,
      root,
      parent,
      start: (prompt) => subagents.start("a2a", { prompt, parent }),
      remoteTask,
    });
    await a2a.dispose();
  } finally {
    await root.dispose();
    await b.close();
  }
}

/** The id of B's one task, once it exists. */
async function onlyTaskId(b: SpawnGateway): Promise<string> {
  const response = await b.gateway.fetch(
    new Request("http://b.test/", {
      method: "POST",
      headers: { "content-type": "application/json", "A2A-Version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ListTasks", params: {} }),
    }),
  );
  const tasks = (await response.json()).result.tasks as { id: string }[];
  assert.equal(tasks.length, 1);
  return tasks[0].id;
}

for (const streaming of [true, false]) {
  Deno.test(`a permission request crosses A2A to the root's handler and back (${streaming ? "streaming" : "polling"})`, async (t) => {
    await withChain({ streaming }, async ({ b, shell, root, parent, start, remoteTask }) => {
      const seen: SubagentInputRequest[] = [];
      const announced: SubagentInputRequest[] = [];
      const offAnnounced = parent.scope.on(subagentInputRequired, (r) => void announced.push(r));
      const stop = handleSubagentInput(root, (request) => {
        seen.push(request);
        return { outcome: "selected", optionId: "allow" };
      });
      const run = start("echo hello from B");
      try {
        const result = await run.result;
        await t.step("the root's handler saw the request with its whole path", () => {
          assert.equal(seen.length, 1);
          const [request] = seen;
          assert.equal(request.kind, "permission");
          assert.equal(request.toolCall?.kind, "execute");
          assert.deepEqual(request.toolCall?.rawInput, { command: "echo hello from B" });
          assert.deepEqual(request.options, OPTIONS);
          // root-agent's run (the A2A run) → B's child (the run that asks).
          assert.deepEqual(request.path, [run.id, "shell-1"]);
          assert.equal(request.runId, "shell-1");
          assert.equal(request.id, `${run.id}/input-1`, "the id is the A2A run's, for run.respond");
          assert.deepEqual(announced, seen, "announced in the delegating parent's scope");
          assert.deepEqual(shell.asked[0].path, [run.id, "shell-1"], "B's own request, same path");
        });
        await t.step(
          "the answer flowed back: the child ran the command, the result is here",
          () => {
            assert.equal(result.stopReason, "completed", JSON.stringify(result.error));
            assert.equal(textOf(result.output), 'ran "echo hello from B": hello from B');
            assert.deepEqual(shell.ran, ["echo hello from B"]);
          },
        );
        await t.step("B's task went INPUT_REQUIRED and on to COMPLETED", async () => {
          const task = await remoteTask(await onlyTaskId(b));
          assert.equal(task.status.state, "TASK_STATE_COMPLETED");
        });
      } finally {
        await run.dispose();
        await stop();
        await offAnnounced();
      }
    });
  });
}

Deno.test("a rejected permission: the child does not run the command and says so", async () => {
  await withChain({}, async ({ shell, root, start }) => {
    const stop = handleSubagentInput(root, () => ({ outcome: "selected", optionId: "reject" }));
    const run = start("echo never");
    try {
      const result = await run.result;
      assert.equal(result.stopReason, "completed");
      assert.equal(textOf(result.output), 'did not run "echo never" (option reject)');
      assert.deepEqual(shell.ran, []);
    } finally {
      await run.dispose();
      await stop();
    }
  });
});

Deno.test("a refusal (here: no handler anywhere) reaches the child with its note", async () => {
  await withChain({}, async ({ shell, start }) => {
    const run = start("echo never");
    try {
      const result = await run.result;
      assert.equal(result.stopReason, "completed");
      assert.match(
        textOf(result.output),
        /did not run "echo never" \(no one handles input requests here: nothing answered "The child wants to run "echo never""/,
      );
      assert.deepEqual(shell.ran, []);
    } finally {
      await run.dispose();
    }
  });
});

Deno.test("cancelled while the request is pending: aborted, the request refused, B's task CANCELED", async () => {
  await withChain({}, async ({ b, shell, root, parent, start, remoteTask }) => {
    let handlerSignal: AbortSignal | undefined;
    const stop = handleSubagentInput(root, (_request, { signal }) => {
      handlerSignal = signal;
      return new Promise<undefined>((resolve) =>
        signal.addEventListener("abort", () => resolve(undefined))
      );
    });
    const resolved: SubagentInputAnswer[] = [];
    const off = parent.scope.on(subagentInputResolved, (info) => void resolved.push(info.answer));
    const run = start("echo never");
    try {
      await until(() => handlerSignal !== undefined);
      const taskId = await onlyTaskId(b);
      assert.equal((await remoteTask(taskId)).status.state, "TASK_STATE_INPUT_REQUIRED");
      run.cancel("the person went away");
      const result = await run.result;
      assert.equal(result.stopReason, "aborted");
      assert.equal(handlerSignal!.aborted, true, "the handler hears the request is gone");
      assert.equal(resolved.length, 1);
      assert.equal(resolved[0].outcome, "refused");
      assert.match((resolved[0] as { reason: string }).reason, /cancelled: the person went away/);
      await run.dispose();
      assert.equal((await remoteTask(taskId)).status.state, "TASK_STATE_CANCELED");
      assert.deepEqual(shell.ran, []);
      assert.equal(await b.liveChildren(), 0);
    } finally {
      await run.dispose();
      await stop();
      await off();
    }
  });
});

Deno.test("waiting for an answer does not count against the A2A run's deadline, its idle timeout, or B's task deadline", async () => {
  await withChain(
    { deadlineMs: 400, idleTimeoutMs: 400, taskTimeoutMs: 400 },
    async ({ shell, root, start }) => {
      const stop = handleSubagentInput(root, async () => {
        await new Promise((resolve) => setTimeout(resolve, 900)); // past every bound, waiting
        return { outcome: "selected", optionId: "always" };
      });
      const run = start("echo late but fine");
      try {
        const result = await run.result;
        assert.equal(result.stopReason, "completed", JSON.stringify(result.error));
        assert.equal(textOf(result.output), 'ran "echo late but fine": late but fine');
        assert.deepEqual(shell.ran, ["echo late but fine"]);
      } finally {
        await run.dispose();
        await stop();
      }
    },
  );
});

Deno.test("a handler that gives up answers a refusal: the child hears it, the run ends as the child says", async () => {
  await withChain({}, async ({ shell, root, start }) => {
    const handler: SubagentInputHandler = async (_request, { signal }) => {
      await new Promise((resolve) => setTimeout(resolve, 50));
      return signal.aborted
        ? undefined
        : { outcome: "refused", reason: "timed out waiting for a person" };
    };
    const stop = handleSubagentInput(root, handler);
    const run = start("echo never");
    try {
      const result = await run.result;
      assert.equal(result.stopReason, "completed");
      assert.equal(
        textOf(result.output),
        'did not run "echo never" (timed out waiting for a person)',
      );
      assert.deepEqual(shell.ran, []);
    } finally {
      await run.dispose();
      await stop();
    }
  });
});

Deno.test("run.respond on an A2A run: bad answers are refused and the run keeps waiting", async (t) => {
  await withChain({}, async ({ b, shell, root, parent, start, remoteTask }) => {
    // The root passes (undefined): the caller answers through the run.
    const stop = handleSubagentInput(
      root,
      (_r, { signal }) =>
        new Promise<undefined>((resolve) =>
          signal.addEventListener("abort", () => resolve(undefined))
        ),
    );
    const asked: SubagentInputRequest[] = [];
    const off = parent.scope.on(subagentInputRequired, (r) => void asked.push(r));
    const run = start("echo answered by respond");
    try {
      await until(() => asked.length === 1);
      const [request] = asked;
      const taskId = await onlyTaskId(b);
      const stillWaiting = async () => {
        assert.equal((await remoteTask(taskId)).status.state, "TASK_STATE_INPUT_REQUIRED");
        assert.deepEqual(shell.ran, []);
      };
      await t.step("an answer to an unknown request", async () => {
        assert.throws(
          () => run.respond!("nope/input-9", { outcome: "selected", optionId: "allow" }),
          /Cannot answer input request "nope\/input-9": no such request waits/,
        );
        await stillWaiting();
      });
      await t.step("a malformed answer", async () => {
        assert.throws(
          () => run.respond!(request.id, { outcome: "maybe" } as never),
          /a permission request is answered \{outcome: "selected", optionId\}/,
        );
        assert.throws(
          () => run.respond!(request.id, { outcome: "refused", reason: "" }),
          /a refusal needs a reason/,
        );
        assert.throws(
          () => run.respond!(request.id, "allow" as never),
          /must be an object|plain JSON/,
        );
        await stillWaiting();
      });
      await t.step("an option not offered", async () => {
        assert.throws(
          () => run.respond!(request.id, { outcome: "selected", optionId: "sudo" }),
          /option "sudo" was not offered \(offered: allow, always, reject\)/,
        );
        await stillWaiting();
      });
      await t.step("a message steering the run is refused while it waits", async () => {
        await assert.rejects(
          run.sendMessage!("do something else"),
          new RegExp(
            `Cannot send a message to run "${run.id}": its remote task waits for an answer to input request "${run.id}/input-1"; answer it with respond\\(\\)`,
          ),
        );
        await stillWaiting();
      });
      await t.step(
        "a valid answer: the run goes on and ends with the command's output",
        async () => {
          run.respond!(request.id, { outcome: "selected", optionId: "allow" });
          const result = await run.result;
          assert.equal(
            textOf(result.output),
            'ran "echo answered by respond": answered by respond',
          );
          assert.throws(
            () => run.respond!(request.id, { outcome: "selected", optionId: "allow" }),
            /no such request waits \(it was answered/,
            "a duplicate answer is refused",
          );
        },
      );
    } finally {
      await run.dispose();
      await stop();
      await off();
    }
  });
});

Deno.test("the remote task ends over there while the answer is awaited: the late answer is refused, the run ends error", async () => {
  await withChain({}, async ({ b, shell, root, start, remoteTask }) => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => release = resolve);
    let asked = false;
    const stop = handleSubagentInput(root, async () => {
      asked = true;
      await released;
      return { outcome: "selected", optionId: "allow" };
    });
    const run = start("echo never");
    try {
      await until(() => asked);
      const taskId = await onlyTaskId(b);
      // Someone else cancels B's task (another client, an operator).
      const response = await fetch(b.url, {
        method: "POST",
        headers: { "content-type": "application/json", "A2A-Version": "1.0" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "CancelTask",
          params: { id: taskId },
        }),
      });
      assert.equal((await response.json()).result.status.state, "TASK_STATE_CANCELED");
      release();
      const result = await run.result;
      assert.equal(result.stopReason, "error");
      assert.match(result.error!.message, /accepts no more messages/);
      assert.equal(result.error!.code, "CHILD_FAILED");
      assert.equal((await remoteTask(taskId)).status.state, "TASK_STATE_CANCELED");
      assert.deepEqual(shell.ran, []);
    } finally {
      await run.dispose();
      await stop();
    }
  });
});

Deno.test("an authentication request: B's task AUTH_REQUIRED, the root's text answer reaches the child", async () => {
  const login: SubagentProvider = {
    name: "login",
    capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
    inheritsParentContext: false,
    start(request) {
      const inputs = new SubagentInputs(request.parent.scope, "login-1");
      const result = (async (): Promise<SubagentResultInput> => {
        const answer = await inputs.ask({
          kind: "authentication",
          message: "Log in to the wiki",
          authentication: { url: "https://wiki.example/login" },
        });
        return {
          output: answer.outcome === "answered" ? `token: ${answer.text}` : "no token",
          stopReason: "completed",
        };
      })();
      return {
        id: "login-1",
        started: Promise.resolve(),
        result,
        respond: (id, answer) => inputs.respond(id, answer),
        cancel: () => inputs.cancelAll("cancelled"),
        dispose: () => result.then(() => {}),
      };
    },
  };
  let state: string | undefined;
  const b = startSpawnGateway("loopback", {
    setup: (_host, subagents) => subagents.registerProvider(login),
  });
  const root = createRootScope({ logger: createMemoryLogger().logger });
  try {
    const subagents = createSubagentService(root);
    const a2a = await createA2AProvider({ url: b.url, provider: "login" });
    subagents.registerProvider(a2a);
    const seen: SubagentInputRequest[] = [];
    handleSubagentInput(root, async (request) => {
      seen.push(request);
      state = (await b.gateway.fetch(
        new Request("http://b.test/", {
          method: "POST",
          headers: { "content-type": "application/json", "A2A-Version": "1.0" },
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ListTasks", params: {} }),
        }),
      ).then((r) => r.json())).result.tasks[0].status.state;
      return { outcome: "answered", text: "token-123" };
    });
    const run = subagents.start("a2a", { prompt: "go", parent: { id: "p", scope: root } });
    try {
      const result = await run.result;
      assert.equal(textOf(result.output), "token: token-123");
      assert.equal(state, "TASK_STATE_AUTH_REQUIRED");
      assert.equal(seen[0].kind, "authentication");
      assert.deepEqual(seen[0].authentication, { url: "https://wiki.example/login" });
      assert.deepEqual(seen[0].path, [run.id, "login-1"]);
    } finally {
      await run.dispose();
    }
    await a2a.dispose();
  } finally {
    await root.dispose();
    await b.close();
  }
});
