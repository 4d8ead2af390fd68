// A message sent to a gateway that does not run its task, on a shared
// storage: the owner may take it as the answer to an input request the
// sender could not yet see, and the sender's blocking answer then waits for
// what the answer led to.
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope, type Scope } from "@seam/host";
import {
  createSubagentService,
  SubagentInputs,
  type SubagentProvider,
  type SubagentResultInput,
} from "@seam/subagent";
import { faulty, rpc } from "./cluster/_cluster_test_support.ts";
import { message } from "./_test_support.ts";
import { createGateway, createMemoryTaskStore, type Gateway, type TaskStorage } from "./mod.ts";

/** A provider whose one run asks a question once `ask()` is called, then ends once `finish()` is. */
function askOnCue() {
  const cued = Promise.withResolvers<void>();
  const finished = Promise.withResolvers<void>();
  const answers: unknown[] = [];
  const provider: SubagentProvider = {
    name: "cued",
    capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
    inheritsParentContext: false,
    start(request) {
      const inputs = new SubagentInputs(request.parent.scope, "cued-1");
      const result = (async (): Promise<SubagentResultInput> => {
        await cued.promise;
        const answer = await inputs.ask({ kind: "question", message: "Which branch?" });
        answers.push(answer);
        await finished.promise;
        return { output: "done", stopReason: "completed" };
      })();
      return {
        id: "cued-1",
        started: Promise.resolve(),
        result,
        respond: (requestId, answer) => inputs.respond(requestId, answer),
        // Steerable, so the message is taken whichever phase it finds the run in.
        sendMessage: () => Promise.resolve(),
        cancel() {
          inputs.cancelAll("the run was cancelled");
          finished.resolve();
        },
        dispose: () => result.then(() => {}),
      };
    },
  };
  return { provider, ask: () => cued.resolve(), finish: () => finished.resolve(), answers };
}

Deno.test("a message forwarded to the owner that answers an input request it asked meanwhile: the blocking answer is what came after", async () => {
  const store = createMemoryTaskStore({ shared: true, leaseTtlMs: 10_000 });
  const child = askOnCue();
  let beforeDelivery: (() => Promise<void>) | undefined;
  // The storage as both gateways see it, whose commands wait for `beforeDelivery`.
  const storage: TaskStorage = {
    ...faulty(store, (change, append) => Promise.resolve(append(change))),
    send: async (instance, command, timeoutMs) => {
      await beforeDelivery?.();
      return store.send(instance, command, timeoutMs);
    },
  };
  const roots: Scope[] = [];
  const gateways: Gateway[] = [];
  for (const providers of [[child.provider], []]) {
    const root = createRootScope({ logger: createMemoryLogger().logger });
    roots.push(root);
    const service = createSubagentService(root);
    for (const p of providers) service.registerProvider(p);
    gateways.push(createGateway({ scope: root, taskStore: storage }));
  }
  const [owner, other] = gateways;
  try {
    const started = await rpc(owner, "SendMessage", {
      message: message("work"),
      configuration: { returnImmediately: true },
    });
    const taskId = started.result.task.id;
    // The message reaches the owner only once its run asked, and that is
    // stored; the other gateway read the task WORKING before.
    beforeDelivery = async () => {
      beforeDelivery = undefined;
      child.ask();
      while ((await store.get(taskId))?.task.status.state !== "TASK_STATE_INPUT_REQUIRED") {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    };
    const sent = rpc(other, "SendMessage", { message: message("main", { taskId }) });
    while (child.answers.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    assert.deepEqual(child.answers, [{ outcome: "answered", text: "main" }]);
    child.finish();
    const answer = await sent;
    assert.equal(answer.result.task.status.state, "TASK_STATE_COMPLETED");
  } finally {
    child.finish();
    for (const g of gateways) await g.close();
    for (const root of roots) await root.dispose();
  }
});
