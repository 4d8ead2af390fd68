// The run inspector behind a load balancer, on a real PostgreSQL: two
// gateways in this process on one schema (each with its own connections).
// Each instance's list holds every task of the principal, marked where it
// runs, and never another principal's.
import assert from "node:assert/strict";
import { eventually, SKIP, startTask, type Wire, withGateways } from "./_test_support.ts";

const AUTH = { tokens: { alice: "alice-token", bob: "bob-token" } };
const as = (who: "alice" | "bob") => ({ authorization: `Bearer ${who}-token` });

Deno.test({
  name: "inspector list on PostgreSQL: each instance lists the principal's tasks of both",
  ignore: SKIP,
  fn: async () => {
    await withGateways(2, { gateway: () => ({ auth: AUTH, inspector: true }) }, async ([a, b]) => {
      const list = async (on: typeof a, who: "alice" | "bob"): Promise<Wire> => {
        const response = await on.gateway.fetch(
          new Request("http://gw.test/_inspect/tasks", { headers: as(who) }),
        );
        assert.equal(response.status, 200);
        return await response.json();
      };
      const onA = await startTask(a, as("alice"));
      const onB = await startTask(b, as("alice"));
      const bobs = await startTask(b, as("bob"));

      const fromB: Wire = Object.fromEntries(
        (await list(b, "alice")).tasks.map((t: Wire) => [t.id, t]),
      );
      assert.deepEqual(Object.keys(fromB).sort(), [onA.id, onB.id].sort());
      assert.equal(fromB[onA.id].where, "elsewhere");
      assert.equal(fromB[onB.id].where, "here");
      assert.equal(fromB[onA.id].title, "go");
      const fromA: Wire = Object.fromEntries(
        (await list(a, "alice")).tasks.map((t: Wire) => [t.id, t]),
      );
      assert.equal(fromA[onA.id].where, "here");
      assert.equal(fromA[onB.id].where, "elsewhere");
      assert.deepEqual((await list(a, "bob")).tasks.map((t: Wire) => t.id), [bobs.id]);

      onA.run.finish({ output: "done", stopReason: "completed" });
      await eventually("B lists A's task as ended", async () => {
        const t = (await list(b, "alice")).tasks.find((x: Wire) => x.id === onA.id);
        return t?.where === "ended" && t.state === "TASK_STATE_COMPLETED" || undefined;
      });
    });
  },
});
