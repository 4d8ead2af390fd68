// A child's input request puts its task INPUT_REQUIRED (AUTH_REQUIRED); a
// follow-up message with the task's id answers it and the task works on.
import assert from "node:assert/strict";
import {
  type SubagentInputAnswer,
  type SubagentInputAsk,
  SubagentInputs,
  type SubagentProvider,
  type SubagentResultInput,
  type SubagentRunHandle,
} from "@seam/subagent";
import { SEAM_EXTENSION_URI } from "./mod.ts";
import { askingProvider } from "../tests/asking_support.ts";
import {
  describeFrame,
  frames,
  message,
  rpc,
  rpcRequest,
  tick,
  type Wire,
  withSetup,
} from "./_test_support.ts";

const PERMISSION: SubagentInputAsk = {
  kind: "permission",
  message: "The child wants to run a command",
  toolCall: { name: "shell", title: "Run rm -rf build", rawInput: { command: "rm -rf build" } },
  options: [
    { id: "allow", label: "Allow once", kind: "allow_once" },
    { id: "reject", label: "Reject", kind: "reject_once" },
  ],
};

/** A provider whose runs ask `ask` once, then end with what the answer was. */
function answerKeeper(
  asked: SubagentInputAsk,
): SubagentProvider & { answers: SubagentInputAnswer[] } {
  const answers: SubagentInputAnswer[] = [];
  const provider = askingProvider("asks", async (run) => {
    await tick();
    const answer = await run.ask(asked);
    answers.push(answer);
    if (run.cancelled) return { output: "", stopReason: "aborted" };
    return { output: JSON.stringify(answer), stopReason: "completed" };
  });
  return { ...provider, answers };
}

Deno.test("a permission request: INPUT_REQUIRED with the request, the answer by message", async (t) => {
  const provider = answerKeeper(PERMISSION);
  await withSetup([provider], {}, async (s) => {
    const sent = await rpc(s.gateway, "SendMessage", { message: message("go") });
    const task = sent.result.task;
    await t.step("a blocking SendMessage answers at the interrupted state", () => {
      assert.equal(task.status.state, "TASK_STATE_INPUT_REQUIRED");
      const [text, data] = task.status.message.parts;
      assert.match(text.text, /Run rm -rf build.*"allow" \(Allow once\), "reject" \(Reject\)/);
      const request = data.data[SEAM_EXTENSION_URI].inputRequest;
      assert.equal(request.toolCall.rawInput.command, "rm -rf build");
      assert.deepEqual(request.path, ["asks-1"]);
    });
    await t.step("an answer that fits no option is refused; the task still waits", async () => {
      const refused = await rpc(s.gateway, "SendMessage", {
        message: message("maybe later", { taskId: task.id }),
      });
      assert.equal(refused.error.code, -32602);
      assert.match(refused.error.message, /answer with one of "allow" \(Allow once\)/);
      const got = await rpc(s.gateway, "GetTask", { id: task.id });
      assert.equal(got.result.status.state, "TASK_STATE_INPUT_REQUIRED");
    });
    await t.step(
      "'allow' answers it: WORKING, then the child ends with what it was told",
      async () => {
        const answered = await rpc(s.gateway, "SendMessage", {
          message: message("allow", { taskId: task.id }),
        });
        assert.equal(answered.result.task.status.state, "TASK_STATE_COMPLETED");
        assert.deepEqual(provider.answers, [{ outcome: "selected", optionId: "allow" }]);
        const states = answered.result.task.history.map((m: { parts: { text: string }[] }) =>
          m.parts[0].text
        );
        assert.deepEqual(states, ["go", "allow"]);
      },
    );
  });
});

Deno.test("the seam extension's answer names the request and the option", async () => {
  const provider = answerKeeper(PERMISSION);
  await withSetup([provider], {}, async (s) => {
    const sent = await rpc(s.gateway, "SendMessage", { message: message("go") });
    const task = sent.result.task;
    const requestId = task.status.message.parts[1].data[SEAM_EXTENSION_URI].inputRequest.id;
    const wrong = await rpc(s.gateway, "SendMessage", {
      message: message("", {
        taskId: task.id,
        metadata: { [SEAM_EXTENSION_URI]: { answer: { requestId, optionId: "sure" } } },
      }),
    });
    assert.match(wrong.error.message, /option "sure" was not offered \(offered: allow, reject\)/);
    const right = await rpc(s.gateway, "SendMessage", {
      message: message("(structured)", {
        taskId: task.id,
        metadata: { [SEAM_EXTENSION_URI]: { answer: { requestId, optionId: "reject" } } },
      }),
    });
    assert.equal(right.result.task.status.state, "TASK_STATE_COMPLETED");
    assert.deepEqual(provider.answers, [{ outcome: "selected", optionId: "reject" }]);
  });
});

Deno.test("an authentication request puts the task in AUTH_REQUIRED", async () => {
  const provider = answerKeeper({ kind: "authentication", message: "Log in to the wiki" });
  await withSetup([provider], {}, async (s) => {
    const sent = await rpc(s.gateway, "SendMessage", { message: message("go") });
    assert.equal(sent.result.task.status.state, "TASK_STATE_AUTH_REQUIRED");
    const answered = await rpc(s.gateway, "SendMessage", {
      message: message("token-123", { taskId: sent.result.task.id }),
    });
    assert.equal(answered.result.task.status.state, "TASK_STATE_COMPLETED");
    assert.deepEqual(provider.answers, [{ outcome: "answered", text: "token-123" }]);
  });
});

Deno.test("cancelling an interrupted task refuses its request and ends it CANCELED", async () => {
  const provider = answerKeeper({ kind: "question", message: "Which branch?" });
  await withSetup([provider], {}, async (s) => {
    const sent = await rpc(s.gateway, "SendMessage", { message: message("go") });
    const cancelled = await rpc(s.gateway, "CancelTask", { id: sent.result.task.id });
    assert.equal(cancelled.result.status.state, "TASK_STATE_CANCELED");
    assert.equal(provider.answers[0].outcome, "refused");
    assert.match((provider.answers[0] as { reason: string }).reason, /cancelled/);
  });
});

Deno.test("a stream ends at the interrupted state; the answer's stream opens on the task working and carries the rest", async () => {
  const provider = answerKeeper({ kind: "question", message: "Which branch?" });
  await withSetup([provider], {}, async (s) => {
    const first = await frames(
      await s.gateway.fetch(rpcRequest("SendStreamingMessage", { message: message("go") })),
    );
    assert.deepEqual(first.map(describeFrame), [
      "task:SUBMITTED",
      "status:WORKING",
      "status:INPUT_REQUIRED",
    ]);
    const taskId = first[0].result.task.id;
    const second = await frames(
      await s.gateway.fetch(
        rpcRequest("SendStreamingMessage", { message: message("main", { taskId }) }),
      ),
    );
    assert.deepEqual(second.map(describeFrame), [
      "task:WORKING",
      'artifact:set:last:{"outcome":"answered","text":"main"}',
      "status:COMPLETED",
    ]);
  });
});

Deno.test("waiting for an answer does not count against the task's deadline", async () => {
  const provider = answerKeeper({ kind: "question", message: "Which branch?" });
  await withSetup([provider], { limits: { taskTimeoutMs: 60 } }, async (s) => {
    const sent = await rpc(s.gateway, "SendMessage", { message: message("go") });
    await new Promise((resolve) => setTimeout(resolve, 120)); // twice the deadline, waiting
    const got = await rpc(s.gateway, "GetTask", { id: sent.result.task.id });
    assert.equal(got.result.status.state, "TASK_STATE_INPUT_REQUIRED");
    const answered = await rpc(s.gateway, "SendMessage", {
      message: message("main", { taskId: sent.result.task.id }),
    });
    assert.equal(answered.result.task.status.state, "TASK_STATE_COMPLETED");
  });
});

Deno.test("an answer for a task that waits on nothing is refused", async () => {
  const provider = answerKeeper({ kind: "question", message: "?" });
  await withSetup([provider], {}, async (s) => {
    const sent = await rpc(s.gateway, "SendMessage", { message: message("go") });
    const taskId = sent.result.task.id;
    await rpc(s.gateway, "SendMessage", { message: message("x", { taskId }) });
    const done = await rpc(s.gateway, "SendMessage", {
      message: message("y", {
        taskId,
        metadata: { [SEAM_EXTENSION_URI]: { answer: { text: "late" } } },
      }),
    });
    assert.equal(done.error.code, -32004); // the task ended: it takes no messages
  });
});

Deno.test("the caller's run path in the seam extension leads the request's path", async (t) => {
  const provider = answerKeeper({ kind: "question", message: "Which branch?" });
  await withSetup([provider], {}, async (s) => {
    await t.step("its runs' requests carry the caller's path, then their own run id", async () => {
      const sent = await rpc(s.gateway, "SendMessage", {
        message: message("go", {
          metadata: { [SEAM_EXTENSION_URI]: { depth: 2, path: ["root-run", "a2a-7"] } },
        }),
      });
      const request = sent.result.task.status.message.parts[1].data[SEAM_EXTENSION_URI]
        .inputRequest;
      assert.deepEqual(request.path, ["root-run", "a2a-7", request.runId]);
      await rpc(s.gateway, "CancelTask", { id: sent.result.task.id });
    });
    for (
      const [what, path, complaint] of [
        ["not an array", "root-run", /path must be an array of at most 64 run ids/],
        ["too long", Array.from({ length: 65 }, (_, i) => `r${i}`), /at most 64 run ids/],
        ["an empty id", ["root", ""], /path\[1\] must be a non-empty string/],
        ["a non-string id", ["root", 7], /path\[1\] must be a non-empty string/],
        ["an id too long", ["x".repeat(257)], /path\[0\] must be .* at most 256 characters/],
      ] as const
    ) {
      await t.step(`a path that is ${what} is refused (-32602), nothing starts`, async () => {
        const before = provider.answers.length;
        const sent = await rpc(s.gateway, "SendMessage", {
          message: message("go", { metadata: { [SEAM_EXTENSION_URI]: { path } } }),
        });
        assert.equal(sent.error?.code, -32602);
        assert.match(sent.error.message, complaint);
        assert.equal(provider.answers.length, before);
      });
    }
  });
});

/**
 * A provider whose runs each ask one question and resume into a new run
 * that asks again; `atOnce` asks synchronously, inside start() and
 * resume(), before the task exists.
 */
function resumingAsker(prefix: string, atOnce: boolean): SubagentProvider {
  let n = 0;
  return {
    name: "asks",
    capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
    inheritsParentContext: false,
    start(request) {
      const run = (): SubagentRunHandle => {
        const id = `${prefix}-${++n}`;
        const inputs = new SubagentInputs(request.parent.scope, id);
        const ask = () => inputs.ask({ kind: "question", message: `Which branch (${id})?` });
        const result = (atOnce ? ask() : tick().then(ask)).then(
          (answer): SubagentResultInput => ({
            output: JSON.stringify(answer),
            stopReason: "completed",
          }),
        );
        return {
          id,
          started: Promise.resolve(),
          result,
          respond: (requestId, answer) => inputs.respond(requestId, answer),
          cancel: () => inputs.cancelAll("cancelled"),
          dispose: () => result.then(() => {}, () => {}),
          resume: () => run(),
        };
      };
      return run();
    },
  };
}

Deno.test("a continuation from another caller's run: the kept run's next requests carry that caller's path", async () => {
  const resumable = resumingAsker("asks", false);
  await withSetup([resumable], {}, async (s) => {
    const pathOf = (
      task: {
        status: {
          message: { parts: { data: Record<string, { inputRequest: { path: string[] } }> }[] };
        };
      },
    ) => task.status.message.parts[1].data[SEAM_EXTENSION_URI].inputRequest.path;
    const first = await rpc(s.gateway, "SendMessage", {
      message: message("go", { metadata: { [SEAM_EXTENSION_URI]: { path: ["root", "a2a-1"] } } }),
    });
    const task = first.result.task;
    assert.deepEqual(pathOf(task), ["root", "a2a-1", "asks-1"]);
    const done = await rpc(s.gateway, "SendMessage", {
      message: message("main", { taskId: task.id }),
    });
    assert.equal(done.result.task.status.state, "TASK_STATE_COMPLETED");
    const next = await rpc(s.gateway, "SendMessage", {
      message: message("again", {
        contextId: task.contextId,
        metadata: { [SEAM_EXTENSION_URI]: { path: ["root", "a2a-2"] } },
      }),
    });
    assert.equal(next.result.task.status.state, "TASK_STATE_INPUT_REQUIRED");
    assert.deepEqual(pathOf(next.result.task), ["root", "a2a-2", "asks-2"]);
    await rpc(s.gateway, "CancelTask", { id: next.result.task.id });
  });
});

Deno.test("a kept run that asks at once when resumed: its question goes to the new task", async () => {
  const eager = resumingAsker("eager", true);
  await withSetup([eager], {}, async (s) => {
    const first = await rpc(s.gateway, "SendMessage", { message: message("go") });
    const task = first.result.task;
    assert.equal(task.status.state, "TASK_STATE_INPUT_REQUIRED");
    assert.match(task.status.message.parts[0].text, /eager-1/);
    const done = await rpc(s.gateway, "SendMessage", {
      message: message("main", { taskId: task.id }),
    });
    assert.equal(done.result.task.status.state, "TASK_STATE_COMPLETED");
    const next = await rpc(s.gateway, "SendMessage", {
      message: message("again", { contextId: task.contextId }),
    });
    const resumed = next.result.task;
    assert.equal(resumed.status.state, "TASK_STATE_INPUT_REQUIRED", JSON.stringify(resumed.status));
    assert.notEqual(resumed.id, task.id);
    assert.match(resumed.status.message.parts[0].text, /eager-2/);
    const answered = await rpc(s.gateway, "SendMessage", {
      message: message("release", { taskId: resumed.id }),
    });
    assert.equal(answered.result.task.status.state, "TASK_STATE_COMPLETED");
  });
});

Deno.test("past maxPendingInputsPerTask waiting, a task's next requests are refused at once; the waiting ones stay answerable", async () => {
  let inputs: SubagentInputs | undefined;
  const provider: SubagentProvider = {
    name: "floods",
    capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
    inheritsParentContext: false,
    start(request) {
      inputs = new SubagentInputs(request.parent.scope, "floods-1");
      const asking = inputs;
      const result = (async (): Promise<SubagentResultInput> => {
        await tick();
        const answers = await Promise.all(
          Array.from({ length: 5 }, (_, i) => asking.ask({ kind: "question", message: `Q${i}?` })),
        );
        return { output: JSON.stringify(answers), stopReason: "completed" };
      })();
      return {
        id: "floods-1",
        started: Promise.resolve(),
        result,
        respond: (requestId, answer) => asking.respond(requestId, answer),
        cancel: () => asking.cancelAll("the run was cancelled"),
        dispose: () => result.then(() => {}),
      };
    },
  };
  await withSetup([provider], { limits: { maxPendingInputsPerTask: 3 } }, async (s) => {
    const sent = await rpc(s.gateway, "SendMessage", { message: message("go") });
    const task = sent.result.task;
    assert.equal(task.status.state, "TASK_STATE_INPUT_REQUIRED");
    assert.equal(inputs!.pending.length, 3, "the two beyond do not wait");
    const warned = s.warnings().filter((m) => m.includes("maxPendingInputsPerTask"));
    assert.equal(warned.length, 1, "one warning per task");
    assert.match(warned[0], /waits on 3 input requests: refusing more/);
    let last: Wire | undefined;
    for (const request of inputs!.pending) {
      last = await rpc(s.gateway, "SendMessage", {
        message: message("", {
          taskId: task.id,
          metadata: { [SEAM_EXTENSION_URI]: { answer: { requestId: request.id, text: "ok" } } },
        }),
      });
    }
    assert.equal(last!.result.task.status.state, "TASK_STATE_COMPLETED");
    const answers = JSON.parse(last!.result.task.artifacts[0].parts[0].text);
    assert.deepEqual(answers.slice(0, 3), Array(3).fill({ outcome: "answered", text: "ok" }));
    for (const answer of answers.slice(3)) {
      assert.equal(answer.outcome, "refused");
      assert.match(
        answer.reason,
        /^too many input requests: task "[^"]+" waits on 3 \(maxPendingInputsPerTask\)$/,
      );
    }
  });
});

Deno.test("an answer naming only its context goes to the task waiting there (issue 37)", async (t) => {
  await t.step("one task waits: the context-only message answers it", async () => {
    const provider = answerKeeper(PERMISSION);
    await withSetup([provider], {}, async (s) => {
      const sent = await rpc(s.gateway, "SendMessage", { message: message("go") });
      const task = sent.result.task;
      assert.equal(task.status.state, "TASK_STATE_INPUT_REQUIRED");
      const answered = await rpc(s.gateway, "SendMessage", {
        message: message("allow", { contextId: task.contextId }),
      });
      assert.equal(answered.result.task.id, task.id, "a new task was started");
      assert.equal(answered.result.task.status.state, "TASK_STATE_COMPLETED");
      assert.deepEqual(provider.answers, [{ outcome: "selected", optionId: "allow" }]);
      const list = await rpc(s.gateway, "ListTasks", { contextId: task.contextId });
      assert.equal(list.result.tasks.length, 1, "one task in the context");
    });
  });

  await t.step("several wait: refused naming them, and both still wait", async () => {
    const provider = answerKeeper(PERMISSION);
    await withSetup([provider], {}, async (s) => {
      const contextId = crypto.randomUUID();
      const both = await Promise.all([1, 2].map(() =>
        rpc(s.gateway, "SendMessage", {
          message: message("go", { contextId }),
          configuration: { returnImmediately: true },
        })
      ));
      const ids: string[] = both.map((sent) => sent.result.task.id);
      for (const id of ids) {
        for (let i = 0; i < 200; i++) {
          const got = await rpc(s.gateway, "GetTask", { id });
          if (got.result.status.state === "TASK_STATE_INPUT_REQUIRED") break;
          await tick();
        }
      }
      const refused = await rpc(s.gateway, "SendMessage", {
        message: message("allow", { contextId }),
      });
      assert.equal(refused.error.code, -32602);
      assert.match(refused.error.message, /has tasks waiting for input/);
      for (const id of ids) assert.ok(refused.error.message.includes(id), refused.error.message);
      assert.deepEqual(provider.answers, []);
      for (const id of ids) {
        const got = await rpc(s.gateway, "GetTask", { id });
        assert.equal(got.result.status.state, "TASK_STATE_INPUT_REQUIRED");
      }
      for (const id of ids) await rpc(s.gateway, "CancelTask", { id });
    });
  });

  await t.step("an answer that finds no task waiting is refused; no task starts", async () => {
    const provider = answerKeeper(PERMISSION);
    await withSetup([provider], {}, async (s) => {
      const contextId = crypto.randomUUID();
      const refused = await rpc(s.gateway, "SendMessage", {
        message: message("late", {
          contextId,
          metadata: { [SEAM_EXTENSION_URI]: { answer: { text: "late" } } },
        }),
      });
      assert.equal(refused.error?.code, -32602, JSON.stringify(refused));
      assert.match(refused.error.message, /no task in context ".*" waits for input/);
      assert.match(refused.error.message, /needs the taskId/);
      const list = await rpc(s.gateway, "ListTasks", { contextId });
      assert.equal(list.result.tasks.length, 0, "a fresh task was started");
      assert.deepEqual(provider.answers, []);
    });
  });

  await t.step("another principal's waiting task in that context is not answered", async () => {
    const provider = answerKeeper(PERMISSION);
    const auth = { tokens: { alice: "token-a", bob: "token-b" } };
    await withSetup([provider], { auth }, async (s) => {
      const alice = { authorization: "Bearer token-a" };
      const bob = { authorization: "Bearer token-b" };
      const contextId = crypto.randomUUID();
      const sent = await rpc(s.gateway, "SendMessage", {
        message: message("go", { contextId }),
      }, alice);
      assert.equal(sent.result.task.status.state, "TASK_STATE_INPUT_REQUIRED");
      const other = await rpc(s.gateway, "SendMessage", {
        message: message("allow", { contextId }),
        configuration: { returnImmediately: true },
      }, bob);
      assert.notEqual(other.result.task.id, sent.result.task.id);
      const got = await rpc(s.gateway, "GetTask", { id: sent.result.task.id }, alice);
      assert.equal(got.result.status.state, "TASK_STATE_INPUT_REQUIRED");
      await rpc(s.gateway, "CancelTask", { id: sent.result.task.id }, alice);
      await rpc(s.gateway, "CancelTask", { id: other.result.task.id }, bob);
    });
  });
});

Deno.test("a question answered by data parts: the run gets answer.data; a wrong shape is refused and the task waits", async (t) => {
  const provider = answerKeeper({ kind: "question", message: "Result of approve_expense?" });
  await withSetup([provider], {}, async (s) => {
    const ask = async () =>
      (await rpc(s.gateway, "SendMessage", { message: message("go") })).result.task;
    const answer = (taskId: string, parts: unknown[], extra: Record<string, unknown> = {}) =>
      rpc(s.gateway, "SendMessage", { message: { ...message("", { taskId }), parts, ...extra } });
    await t.step("a data part alone: answer.data, its words the text", async () => {
      const task = await ask();
      const done = await answer(task.id, [{ data: { status: "approved" } }]);
      assert.equal(done.result.task.status.state, "TASK_STATE_COMPLETED");
      assert.deepEqual(provider.answers.at(-1), {
        outcome: "answered",
        text: '{"status":"approved"}',
        data: { status: "approved" },
      });
    });
    await t.step("words and a data part: both", async () => {
      const task = await ask();
      await answer(task.id, [{ text: "approved, see data" }, { data: { amount: 120 } }]);
      assert.deepEqual(provider.answers.at(-1), {
        outcome: "answered",
        text: "approved, see data",
        data: { amount: 120 },
      });
    });
    await t.step("ADK's function_response part: its response is the data", async () => {
      const task = await ask();
      await answer(task.id, [{
        data: { id: "call-1", name: "approve_expense", response: { status: "approved" } },
        metadata: { adk_type: "function_response" },
      }]);
      assert.deepEqual(provider.answers.at(-1), {
        outcome: "answered",
        text: '{"status":"approved"}',
        data: { status: "approved" },
      });
    });
    await t.step("the seam extension's answer carries data", async () => {
      const task = await ask();
      const requestId = task.status.message.parts[1].data[SEAM_EXTENSION_URI].inputRequest.id;
      await answer(task.id, [{ text: "(structured)" }], {
        metadata: { [SEAM_EXTENSION_URI]: { answer: { requestId, data: { branch: "main" } } } },
      });
      assert.deepEqual(provider.answers.at(-1), {
        outcome: "answered",
        text: '{"branch":"main"}',
        data: { branch: "main" },
      });
    });
    await t.step("a wrong shape: -32602 naming it, and the task still waits", async () => {
      const task = await ask();
      const before = provider.answers.length;
      const wrong: [unknown[], RegExp][] = [
        [[{ data: [1, 2] }], /answer\.data must be a JSON object/],
        [[{ data: "approved" }], /answer\.data must be a JSON object/],
        [[{ data: { a: 1 } }, { data: { b: 2 } }], /one data part at most/],
        [[{
          data: { name: "approve_expense", response: "approved" },
          metadata: { adk_type: "function_response" },
        }], /answer\.data must be a JSON object/],
        [[{ text: "   " }], /the answer needs text or data/],
      ];
      for (const [parts, problem] of wrong) {
        const refused = await answer(task.id, parts);
        assert.equal(refused.error?.code, -32602, JSON.stringify(refused));
        assert.match(refused.error.message, problem);
      }
      const got = await rpc(s.gateway, "GetTask", { id: task.id });
      assert.equal(got.result.status.state, "TASK_STATE_INPUT_REQUIRED");
      assert.equal(provider.answers.length, before, "nothing reached the run");
      await answer(task.id, [{ data: { status: "approved" } }]);
      assert.deepEqual(provider.answers.at(-1)?.outcome, "answered");
    });
  });
});
