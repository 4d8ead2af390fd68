// Steering a task on PostgreSQL: two gateways in this process, each on its
// own store (its own connections) over one schema, as two instances.
import assert from "node:assert/strict";
import { message, rpc as call } from "../gateway/_test_support.ts";
import { SKIP, startTask, type Wire, withGateways } from "./_test_support.ts";

Deno.test({
  name: "a steering message the run takes as its task ends is stored on PostgreSQL",
  ignore: SKIP,
  fn: () =>
    withGateways(2, { provider: { steer: true } }, async (instances) => {
      const b = instances[1].gateway;
      const { id, run } = await startTask(instances[0]);
      // The run takes the message only once it has ended and that end is
      // committed: the race that lost it.
      run.onSend = async () => {
        run.finish({ output: [{ type: "text", text: "done" }], stopReason: "completed" });
        while ((await instances[0].store.get(id))?.task.status.state !== "TASK_STATE_COMPLETED") {
          await new Promise((r) => setTimeout(r, 10));
        }
        await new Promise((r) => setTimeout(r, 50));
      };
      const steered = await call(b, "SendMessage", {
        message: message("one more thing", { taskId: id }),
        configuration: { returnImmediately: true },
      });
      assert.equal(steered.result?.task?.id, id, JSON.stringify(steered));
      assert.deepEqual(run.sent, [[{ type: "text", text: "one more thing" }]]);
      const got = await call(b, "GetTask", { id });
      assert.equal(got.result.status.state, "TASK_STATE_COMPLETED");
      assert.deepEqual(got.result.history.map((m: Wire) => m.parts[0].text), [
        "go",
        "one more thing",
      ]);
      const log = await instances[1].store.read(id, 0, 100);
      assert.equal(
        JSON.stringify(log.at(-1)!.event.task),
        JSON.stringify(got.result),
        "the last entry is the task as it now is",
      );
    }),
});
