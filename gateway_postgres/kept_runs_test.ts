// A follow-up by contextId on PostgreSQL that reaches another instance than
// the one keeping the finished run: two gateways in this process, each on its
// own store (its own connections) over one schema, as two instances.
import assert from "node:assert/strict";
import { SEAM_EXTENSION_URI } from "@seam/gateway";
import { message, rpc as call, rpcRequest as request } from "../gateway/_test_support.ts";
import { Frames, SKIP, type Wire, withGateways } from "./_test_support.ts";

Deno.test({
  name:
    "a follow-up by contextId on another instance resumes the run the first keeps, on PostgreSQL",
  ignore: SKIP,
  fn: () =>
    withGateways(2, { provider: { resume: true, auto: true } }, async (instances) => {
      const [a, b] = instances.map((i) => i.gateway);
      const providers = instances.map((i) => i.provider);
      const first = (await call(a, "SendMessage", { message: message("first") })).result.task;
      assert.equal(first.status.state, "TASK_STATE_COMPLETED");

      const second = await call(b, "SendMessage", {
        message: message("second", { contextId: first.contextId }),
      });
      const task = second.result?.task;
      assert.equal(task?.status.state, "TASK_STATE_COMPLETED", JSON.stringify(second));
      assert.equal(task.metadata[SEAM_EXTENSION_URI].resumedFrom, first.id);
      assert.deepEqual(providers[0].runs[0].resumedWith, [[{ type: "text", text: "second" }]]);
      assert.equal(providers[1].runs.length, 0, "no fresh run where the follow-up arrived");

      // Streamed: the task and its updates, read from the log on the instance asked.
      const frames = new Frames(
        await b.fetch(request("SendStreamingMessage", {
          message: message("third", { contextId: first.contextId }),
        })),
      );
      const states: string[] = [];
      let head: Wire | undefined;
      for (let frame = await frames.next(); frame; frame = await frames.next()) {
        head ??= frame.data;
        if (frame.data.statusUpdate) states.push(frame.data.statusUpdate.status.state);
      }
      assert.equal(head?.task.metadata[SEAM_EXTENSION_URI].resumedFrom, task.id);
      assert.equal(states.at(-1), "TASK_STATE_COMPLETED");
      assert.deepEqual(providers[0].runs[1].resumedWith, [[{ type: "text", text: "third" }]]);
      assert.equal(providers[1].runs.length, 0);
    }),
});

Deno.test({
  name:
    "a follow-up by contextId whose keeper stopped, its lease lapsed: a fresh run at once, not after a command's timeout, on PostgreSQL",
  ignore: SKIP,
  fn: () =>
    withGateways(
      2,
      { leaseTtlMs: 200, provider: { resume: true, auto: true } },
      async (instances) => {
        const [a, b] = instances.map((i) => i.gateway);
        const providers = instances.map((i) => i.provider);
        const first = (await call(a, "SendMessage", { message: message("first") })).result.task;
        assert.equal(first.status.state, "TASK_STATE_COMPLETED");
        await a.close();
        // Its lease lapses (200 ms); a sender waits cancelTimeoutMs + 2 s (7 s) for a reply.
        await new Promise((resolve) => setTimeout(resolve, 400));

        const started = Date.now();
        const second = await call(b, "SendMessage", {
          message: message("second", { contextId: first.contextId }),
        });
        const took = Date.now() - started;
        const task = second.result?.task;
        assert.equal(task?.status.state, "TASK_STATE_COMPLETED", JSON.stringify(second));
        assert.equal(task.metadata[SEAM_EXTENSION_URI].resumedFrom, undefined);
        assert.equal(providers[1].runs.length, 1, "a fresh run where the follow-up arrived");
        assert.ok(took < 2_000, `the follow-up took ${took} ms: it waited for an instance gone`);
      },
    ),
});

Deno.test({
  name:
    "a follow-up by contextId whose keeper is shutting down: a fresh run where it arrived, not a 503, on PostgreSQL",
  ignore: SKIP,
  fn: () =>
    withGateways(2, { provider: { resume: true, auto: true } }, async (instances) => {
      const [a, b] = instances.map((i) => i.gateway);
      const providers = instances.map((i) => i.provider);
      const first = (await call(a, "SendMessage", { message: message("first") })).result.task;
      assert.equal(first.status.state, "TASK_STATE_COMPLETED");
      // Its shutdown waits on the kept run's disposal: it still answers commands, its
      // kept runs already cleared.
      let release!: () => void;
      const disposing = new Promise<void>((resolve) => release = resolve);
      providers[0].runs[0].dispose.mock.mockImplementation(() => disposing);
      const closing = a.close();
      try {
        const second = await call(b, "SendMessage", {
          message: message("second", { contextId: first.contextId }),
        });
        const task = second.result?.task;
        assert.equal(task?.status.state, "TASK_STATE_COMPLETED", JSON.stringify(second));
        assert.equal(task.metadata[SEAM_EXTENSION_URI].resumedFrom, undefined);
        assert.equal(providers[1].runs.length, 1, "a fresh run where the follow-up arrived");
        assert.ok(
          instances[1].log.records.some((r) => /no longer keeps it/.test(r.message)),
          JSON.stringify(instances[1].log.records),
        );
      } finally {
        release();
        await closing;
      }
    }),
});
