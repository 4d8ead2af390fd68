// Three gateway processes on loopback and one PostgreSQL: any instance
// answers for any task, streams resume across instances, commands reach the
// owner, a killed owner's task ends FAILED, a restart keeps every task.
import assert from "node:assert/strict";
import {
  dropSchema,
  freshSchema,
  type InstanceProcess,
  openStream,
  rpc,
  SKIP,
  startInstance,
  stateOf,
  textOf,
  type Wire,
} from "./_test_support.ts";

const TTL = 1_000;

function send(text: string, extra: Record<string, unknown> = {}) {
  return {
    message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }], ...extra },
    configuration: { returnImmediately: true },
  };
}

async function eventually<T>(what: string, fn: () => Promise<T | undefined>): Promise<T> {
  const end = Date.now() + 10_000;
  for (;;) {
    const value = await fn();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`${what}: not within 10 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const consecutive = (ids: number[]) => ids.every((id, i) => i === 0 || id === ids[i - 1] + 1);

Deno.test({
  name: "three gateway instances on one PostgreSQL serve as one",
  ignore: SKIP,
  fn: async (t) => {
    const schema = freshSchema();
    const instances: InstanceProcess[] = [];
    const ids: string[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        instances.push(await startInstance(schema, { LEASE_TTL_MS: String(TTL) }));
      }
      const [a, b, c] = instances.map((i) => i.url);

      await t.step("a task sent to one instance is read and listed on the others", async () => {
        const sent = await rpc(a, "SendMessage", send("stream 3"));
        const id: string = sent.result.task.id;
        ids.push(id);
        const done = await eventually("COMPLETED on b", async () => {
          const got = await rpc(b, "GetTask", { id });
          return got.result.status.state === "TASK_STATE_COMPLETED" ? got.result : undefined;
        });
        assert.equal(done.artifacts[0].parts[0].text, "chunk 1 chunk 2 chunk 3 ");
        const listed = await rpc(c, "ListTasks", { pageSize: 10 });
        assert.deepEqual(listed.result.tasks.map((x: Wire) => x.id), [id]);
        assert.equal(listed.result.totalSize, 1);
      });

      await t.step(
        "SubscribeToTask replays then tails on any instance; Last-Event-ID resumes",
        async () => {
          const sent = await rpc(a, "SendMessage", send("stream 12"));
          const id: string = sent.result.task.id;
          ids.push(id);
          const first = await openStream(b, "SubscribeToTask", { id });
          const seen = await first.until((f) => textOf(f.data).includes("chunk 3"));
          await first.cancel(); // the client drops mid-stream
          const last = seen.at(-1)!.id;
          const resumed = await openStream(c, "SubscribeToTask", { id }, {
            "last-event-id": String(last),
          });
          const rest = await resumed.rest();
          const all = [...seen, ...rest];
          assert.equal(all[0].id, 1);
          assert.ok(
            consecutive(all.map((f) => f.id)),
            `no gap, no duplicate: ${all.map((f) => f.id)}`,
          );
          assert.equal(stateOf(all.at(-1)!.data), "TASK_STATE_COMPLETED");
          const text = all.filter((f) => !f.data.artifactUpdate?.lastChunk).map((f) =>
            textOf(f.data)
          )
            .join("");
          assert.equal(text, Array.from({ length: 12 }, (_, i) => `chunk ${i + 1} `).join(""));
        },
      );

      await t.step("CancelTask and steering on other instances reach the owner", async () => {
        const sent = await rpc(a, "SendMessage", send("stream forever"));
        const id: string = sent.result.task.id;
        ids.push(id);
        const watch = await openStream(c, "SubscribeToTask", { id });
        await watch.until((f) => textOf(f.data).includes("chunk 2"));
        const steered = await rpc(b, "SendMessage", send("over here", { taskId: id }));
        assert.equal(steered.result?.task?.id, id, JSON.stringify(steered));
        await watch.until((f) => textOf(f.data).includes("heard: over here"));
        const canceled = await rpc(c, "CancelTask", { id });
        assert.equal(
          canceled.result?.status?.state,
          "TASK_STATE_CANCELED",
          JSON.stringify(canceled),
        );
        const end = await watch.rest();
        assert.equal(stateOf(end.at(-1)!.data), "TASK_STATE_CANCELED");
      });

      await t.step(
        "the owner SIGKILLed mid-stream: another instance ends the task FAILED",
        async () => {
          const sent = await rpc(a, "SendMessage", send("stream forever"));
          const id: string = sent.result.task.id;
          ids.push(id);
          const watch = await openStream(b, "SubscribeToTask", { id });
          const before = await watch.until((f) => textOf(f.data).includes("chunk 3"));
          await instances[0].kill();
          const after = await watch.rest();
          const all = [...before, ...after];
          assert.ok(
            consecutive(all.map((f) => f.id)),
            `no gap, no duplicate: ${all.map((f) => f.id)}`,
          );
          const end = all.at(-1)!.data;
          assert.equal(stateOf(end), "TASK_STATE_FAILED");
          assert.match(
            end.statusUpdate.status.message.parts[0].text,
            /lost with its gateway instance/,
          );
          const got = await rpc(c, "GetTask", { id });
          assert.equal(got.result.status.state, "TASK_STATE_FAILED");
          assert.match(
            got.result.artifacts[0].parts[0].text,
            /^chunk 1 chunk 2 chunk 3 /,
            "committed text is kept",
          );
        },
      );

      await t.step("every instance restarted: every task is still there", async () => {
        for (const i of instances) await i.stop();
        instances.length = 0;
        for (let i = 0; i < 3; i++) instances.push(await startInstance(schema));
        for (const [n, id] of ids.entries()) {
          const got = await rpc(instances[n % 3].url, "GetTask", { id });
          assert.equal(got.result?.id, id, JSON.stringify(got));
          assert.match(got.result.status.state, /COMPLETED|CANCELED|FAILED/);
        }
        const listed = await rpc(instances[1].url, "ListTasks", { pageSize: 2 });
        assert.equal(listed.result.totalSize, ids.length);
        const next = await rpc(instances[2].url, "ListTasks", {
          pageSize: 10,
          pageToken: listed.result.nextPageToken,
        });
        assert.deepEqual(
          [...listed.result.tasks, ...next.result.tasks].map((x: Wire) => x.id).sort(),
          [...ids].sort(),
        );
      });
    } finally {
      for (const i of instances) await i.kill();
      await dropSchema(schema);
    }
  },
});
