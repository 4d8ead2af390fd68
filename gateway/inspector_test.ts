// The run inspector's server side: off, nothing is served or heard; on, the
// page is served, its data needs the gateway's auth, each principal sees
// only its own tasks, answers reach the waiting request (and a stale one is
// refused in words), and everything it keeps is bounded. The page itself
// runs in a real browser in tests/inspector_browser_test.ts.
import assert from "node:assert/strict";
import {
  subagentProgress,
  type SubagentProvider,
  type SubagentRunInfo,
  subagentStart,
} from "@seam/subagent";
import {
  controlledProvider,
  message,
  rpc,
  type Setup,
  tick,
  untilEnded,
  type Wire,
  withSetup,
} from "./_test_support.ts";
import { createRootScope } from "@seam/host";
import { askingProvider } from "../tests/asking_support.ts";
import { FLUSH_MS } from "./inspector/_inspector_batch.ts";
import { createGateway, type GatewayOptions, SEAM_EXTENSION_URI } from "./mod.ts";

const AUTH = { tokens: { alice: "alice-token", bob: "bob-token" } };
const as = (who: "alice" | "bob") => ({ authorization: `Bearer ${who}-token` });

function get(s: Setup, path: string, headers: Record<string, string> = {}): Promise<Response> {
  return s.gateway.fetch(new Request(`http://gw.test${path}`, { headers }));
}

function post(
  s: Setup,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return s.gateway.fetch(
    new Request(`http://gw.test${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
    }),
  );
}

/** The events of an inspector stream, one at a time. */
class Events {
  readonly #reader: ReadableStreamDefaultReader<string>;
  #buffer = "";
  /** Events of a batch frame not read yet. */
  readonly #queued: Wire[] = [];

  constructor(response: Response) {
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    this.#reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  }

  async next(): Promise<Wire> {
    for (;;) {
      if (this.#queued.length > 0) return this.#queued.shift()!;
      const end = this.#buffer.indexOf("\n\n");
      if (end !== -1) {
        const frame = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        const event = JSON.parse(frame.slice("data: ".length));
        // Changes come coalesced, a frame per flush: read them one by one.
        if (event.type === "batch") this.#queued.push(...event.events);
        else return event;
        continue;
      }
      const { value, done } = await this.#reader.read();
      if (done) throw new Error("the stream ended");
      this.#buffer += value;
    }
  }

  /** The next event that `match` accepts (at most 100 read). */
  async until(match: (event: Wire) => boolean): Promise<Wire> {
    for (let i = 0; i < 100; i++) {
      const event = await this.next();
      if (match(event)) return event;
    }
    throw new Error("no such event in 100");
  }

  /** Whether the stream ended (the next read says done). */
  async ended(): Promise<boolean> {
    const { done } = await this.#reader.read();
    return done;
  }

  cancel(): Promise<void> {
    return this.#reader.cancel();
  }
}

async function send(s: Setup, text: string, who?: "alice" | "bob"): Promise<Wire> {
  const sent = await rpc(s.gateway, "SendMessage", {
    message: message(text),
    configuration: { returnImmediately: true },
  }, who ? as(who) : {});
  assert.ok(sent.result?.task, JSON.stringify(sent));
  return sent.result.task;
}

Deno.test("inspector off: /_inspect is an unknown path and no run event is listened to", async () => {
  const heard: boolean[] = [];
  const provider = controlledProvider({ auto: true });
  const start = provider.start;
  const listening: SubagentProvider = {
    ...provider,
    start(request) {
      heard.push(request.parent.scope.hasListeners(subagentStart));
      return start(request);
    },
  };
  await withSetup([listening], {}, async (s) => {
    const unknown = await get(s, "/_nothing_here");
    for (const path of ["/_inspect", "/_inspect/app.js", "/_inspect/events"]) {
      const response = await get(s, path);
      assert.equal(response.status, unknown.status, path);
      assert.notEqual(response.headers.get("content-type"), "text/html; charset=utf-8");
      await response.body?.cancel();
    }
    await unknown.body?.cancel();
    await untilEnded(s.gateway, (await send(s, "hi")).id);
    assert.deepEqual(heard, [false]);
  });
  heard.length = 0;
  await withSetup([listening], { inspector: true }, async (s) => {
    await untilEnded(s.gateway, (await send(s, "hi")).id);
    assert.deepEqual(heard, [true], "on, the inspector listens in the task's scope");
  });
});

Deno.test("inspector on: the page and its module are served; the data needs the bearer token", async () => {
  await withSetup([controlledProvider({ auto: true })], {
    inspector: true,
    auth: AUTH,
    basePath: "/a2a",
  }, async (s) => {
    const page = await get(s, "/a2a/_inspect");
    assert.equal(page.status, 200);
    assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
    assert.match(page.headers.get("content-security-policy")!, /script-src 'self'/);
    const html = await page.text();
    assert.match(html, /<script type="module" src="\/a2a\/_inspect\/app.js">/);
    assert.match(html, /data-auth="true"/);
    const module = await get(s, "/a2a/_inspect/app.js");
    assert.equal(module.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.match(await module.text(), /\/events/);
    const view = await get(s, "/a2a/_inspect/view.js");
    assert.equal(view.headers.get("content-type"), "text/javascript; charset=utf-8");
    assert.match(await view.text(), /export function renderAll/);
    for (const path of ["/a2a/_inspect/events", "/a2a/_inspect/tasks/x"]) {
      const refused = await get(s, path);
      assert.equal(refused.status, 401, path);
      assert.match((await refused.json()).error.message, /Unauthenticated/);
    }
    const wrong = await post(s, "/a2a/_inspect/tasks/x/cancel", {}, { authorization: "Bearer no" });
    assert.equal(wrong.status, 401);
    await wrong.body?.cancel();
    const bare = await s.gateway.fetch(
      new Request("http://gw.test/a2a/_inspect/tasks/x/cancel", {
        method: "POST",
        headers: as("alice"),
      }),
    );
    assert.equal(bare.status, 415, "a POST that is not JSON (no CORS preflight) is refused");
    assert.match((await bare.json()).error.message, /none given; send the inspector's actions as/);
    const malformed = await get(s, "/a2a/_inspect/tasks/%E0%A4%A", as("alice"));
    assert.equal(malformed.status, 400);
    assert.match((await malformed.json()).error.message, /task id is not a valid escape/);
    const missing = await get(s, "/a2a/_inspect/nothing", as("alice"));
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
    const method = await post(s, "/a2a/_inspect/events", {}, as("alice"));
    assert.equal(method.status, 405);
    await method.body?.cancel();
  });
});

Deno.test("the inspector stream shows each principal only its own tasks, runs and text", async () => {
  const provider = controlledProvider();
  await withSetup([provider], { inspector: true, auth: AUTH }, async (s) => {
    const alice = new Events(await get(s, "/_inspect/events", as("alice")));
    const bob = new Events(await get(s, "/_inspect/events", as("bob")));
    const first = await alice.next();
    assert.equal(first.type, "snapshot");
    assert.deepEqual(first.tasks, []);
    await bob.next();
    const task = await send(s, "hello", "alice");
    const seen = await alice.until((e) => e.type === "task");
    assert.equal(seen.task.id, task.id);
    const run = provider.runs[0];
    run.ready();
    const started = await alice.until((e) => e.type === "run");
    assert.equal(started.run.runId, run.id);
    assert.equal(started.run.provider, "ctl");
    assert.equal(started.run.depth, 1);
    run.request.parent.scope.emit(subagentProgress, { runId: run.id, kind: "text", text: "Hel" });
    const text = await alice.until((e) => e.type === "text");
    assert.deepEqual([text.runId, text.text], [run.id, "Hel"]);
    run.finish({ output: [{ type: "text", text: "Hello" }], stopReason: "completed" });
    const ended = await alice.until((e) => e.type === "run" && e.run.status === "completed");
    assert.equal(ended.run.usage.partial, true);
    await alice.until((e) => e.type === "task" && e.task.state === "TASK_STATE_COMPLETED");

    // Bob's stream heard nothing of it, and his snapshot and history hold none of it.
    const later = new Events(await get(s, "/_inspect/events", as("bob")));
    assert.deepEqual((await later.next()).tasks, []);
    await later.cancel();
    const history = await get(s, `/_inspect/tasks/${task.id}`, as("bob"));
    assert.equal(history.status, 404);
    await history.body?.cancel();
    const cancel = await post(s, `/_inspect/tasks/${task.id}/cancel`, {}, as("bob"));
    assert.equal(cancel.status, 404);
    await cancel.body?.cancel();
    const mine = await (await get(s, `/_inspect/tasks/${task.id}`, as("alice"))).json();
    assert.equal(mine.task.history[0].parts[0].text, "hello");
    assert.equal(mine.runs[0].text, "Hel");
    await alice.cancel();
    await bob.cancel();
  });
});

Deno.test("a task started under a budget carries it", async () => {
  await withSetup([controlledProvider({ auto: true, capabilities: { budget: true } })], {
    inspector: true,
  }, async (s) => {
    const events = new Events(await get(s, "/_inspect/events"));
    await events.next();
    const sent = await rpc(s.gateway, "SendMessage", {
      message: message("hi", { metadata: { [SEAM_EXTENSION_URI]: { budget: { tokens: 500 } } } }),
    });
    assert.ok(sent.result.task, JSON.stringify(sent));
    const seen = await events.until((e) => e.type === "task");
    assert.deepEqual(seen.task.budget, { tokens: 500 });
    // Its run too, with the budget it started under (subagent/start's).
    const run = await events.until((e) => e.type === "run" && e.run.budget !== undefined);
    assert.deepEqual(run.run.budget, { tokens: 500 });
    await events.cancel();
  });
});

Deno.test("a task that came from another seam run shows the caller's place (the remote hop)", async () => {
  await withSetup([controlledProvider({ auto: true })], { inspector: true }, async (s) => {
    const events = new Events(await get(s, "/_inspect/events"));
    await events.next();
    await rpc(s.gateway, "SendMessage", {
      message: message("hi", {
        metadata: { [SEAM_EXTENSION_URI]: { depth: 2, path: ["root-run", "remote-7"] } },
      }),
    });
    const seen = await events.until((e) => e.type === "task");
    assert.deepEqual(seen.task.from, { depth: 2, path: ["root-run", "remote-7"] });
    assert.equal(seen.task.budget, undefined);
    await events.cancel();
  });
});

/** A provider whose runs ask one question, then end with the answer. */
function branchAsker(): SubagentProvider {
  return askingProvider("asks", async ({ ask }) => {
    await tick();
    const answer = await ask({ kind: "question", message: "Which branch?" });
    return { output: JSON.stringify(answer), stopReason: "completed" };
  });
}

Deno.test("an answer from the inspector reaches the waiting request; a stale one is refused in words", async () => {
  await withSetup([branchAsker()], { inspector: true }, async (s) => {
    const events = new Events(await get(s, "/_inspect/events"));
    const task = await send(s, "go");
    const waiting = await events.until((e) => e.type === "task" && e.task.inputs.length === 1);
    const request = waiting.task.inputs[0];
    assert.equal(request.message, "Which branch?");
    assert.equal(request.kind, "question");

    const bad = [
      [{}, /requestId must name the pending request/],
      [{ requestId: request.id }, /exactly one of optionId, text and refuse/],
      [{ requestId: request.id, text: "a", optionId: "b" }, /exactly one of/],
      [{ requestId: request.id, text: "  " }, /text must be non-empty/],
    ] as const;
    for (const [body, complaint] of bad) {
      const refused = await post(s, `/_inspect/tasks/${task.id}/answer`, body);
      assert.equal(refused.status, 400);
      assert.match((await refused.json()).error.message, complaint);
    }
    const answered = await post(s, `/_inspect/tasks/${task.id}/answer`, {
      requestId: request.id,
      text: "main",
    });
    assert.equal(answered.status, 200);
    await answered.body?.cancel();
    const done = await untilEnded(s.gateway, task.id);
    assert.equal(done.result.status.state, "TASK_STATE_COMPLETED");
    assert.equal(done.result.artifacts[0].parts[0].text, '{"outcome":"answered","text":"main"}');
    assert.deepEqual(done.result.history.map((m: Wire) => m.parts[0].text), ["go", "main"]);

    const stale = await post(s, `/_inspect/tasks/${task.id}/answer`, {
      requestId: request.id,
      text: "again",
    });
    assert.equal(stale.status, 409);
    assert.match(
      (await stale.json()).error.message,
      /Request ".+" is no longer pending: task .+ is completed now .*nothing was sent/,
    );
    await events.cancel();
  });
});

Deno.test("a run's waits for input are kept for the timeline: open while it asks, closed once answered", async () => {
  await withSetup([branchAsker()], { inspector: true }, async (s) => {
    const events = new Events(await get(s, "/_inspect/events"));
    const task = await send(s, "go");
    const waiting = await events.until((e) => e.type === "task" && e.task.inputs.length === 1);
    const asking = waiting.task.inputs[0].runId;
    const open = await (await get(s, `/_inspect/tasks/${task.id}`)).json();
    const run = open.runs.find((r: Wire) => r.runId === asking);
    assert.equal(run.waits.length, 1);
    assert.equal(run.waits[0].until, undefined, "it waits now");
    assert.ok(run.waits[0].from >= run.startedAt);
    const answered = await post(s, `/_inspect/tasks/${task.id}/answer`, {
      requestId: waiting.task.inputs[0].id,
      text: "main",
    });
    await answered.body?.cancel();
    await untilEnded(s.gateway, task.id);
    const closed = await (await get(s, `/_inspect/tasks/${task.id}`)).json();
    const [wait] = closed.runs.find((r: Wire) => r.runId === asking).waits;
    assert.equal(typeof wait.until, "number", "closed once the request was answered");
    assert.ok(wait.until >= wait.from);
    await events.cancel();
  });
});

Deno.test("the inspector keeps at most its bounds: tasks per principal, text per run, runs per task", async () => {
  const provider = controlledProvider();
  await withSetup([provider], {
    inspector: { maxTasksPerPrincipal: 2, maxTextPerRun: 5, maxRunsPerTask: 1 },
  }, async (s) => {
    const ids: string[] = [];
    for (const text of ["a", "b", "c"]) ids.push((await send(s, text)).id);
    const run = provider.runs[2];
    run.ready();
    await tick();
    const scope = run.request.parent.scope;
    scope.emit(subagentProgress, { runId: run.id, kind: "text", text: "0123" });
    scope.emit(subagentProgress, { runId: run.id, kind: "text", text: "456789" });
    // A second run in the same task's tree: beyond maxRunsPerTask, counted once (by its start).
    scope.emit(subagentStart, { runId: "grandchild" } as SubagentRunInfo);
    scope.emit(subagentProgress, { runId: "grandchild", kind: "text", text: "x" });
    scope.emit(subagentProgress, { runId: "grandchild", kind: "text", text: "y" });
    const events = new Events(await get(s, "/_inspect/events"));
    const snapshot = await events.next();
    assert.deepEqual(snapshot.tasks.map((t: Wire) => t.id), ids.slice(1));
    const kept = snapshot.runs.find((r: Wire) => r.runId === run.id);
    assert.equal(kept.text, "56789");
    assert.equal(kept.clipped, true);
    assert.equal(snapshot.runs.some((r: Wire) => r.runId === "grandchild"), false);
    assert.equal(snapshot.tasks[1].runsDropped, 1);
    assert.deepEqual(snapshot.limits.maxTextPerRun, 5);
    for (const r of provider.runs) r.finish({ output: [], stopReason: "completed" });
    await events.cancel();
  });
});

Deno.test("the inspector keeps at most maxPrincipals principals; one with an open page stays", async () => {
  const tokens = { alice: "alice-token", bob: "bob-token", carol: "carol-token" };
  await withSetup([controlledProvider({ auto: true })], {
    inspector: { maxPrincipals: 2 },
    auth: { tokens },
  }, async (s) => {
    const alice = new Events(await get(s, "/_inspect/events", as("alice")));
    assert.equal((await alice.next()).type, "snapshot");
    const headers = (who: keyof typeof tokens) => ({ authorization: `Bearer ${tokens[who]}` });
    for (const who of ["alice", "bob", "carol"] as const) {
      const sent = await rpc(s.gateway, "SendMessage", { message: message(who) }, headers(who));
      assert.ok(sent.result.task);
    }
    const snapshot = async (who: keyof typeof tokens) => {
      const events = new Events(await get(s, "/_inspect/events", headers(who)));
      const first = await events.next();
      await events.cancel();
      return first.tasks.map((t: Wire) => t.id).length;
    };
    // Bob, without a page, went when carol came; alice, whose page is open, stayed.
    assert.equal(await snapshot("alice"), 1);
    assert.equal(await snapshot("carol"), 1);
    assert.equal(await snapshot("bob"), 0);
    await alice.cancel();
  });
});

/** Principals p0…p{n-1}, each with its own token. */
function principals(
  n: number,
): { tokens: Record<string, string>; as: (p: number) => Record<string, string> } {
  const tokens: Record<string, string> = {};
  for (let p = 0; p < n; p++) tokens[`p${p}`] = `p${p}-token`;
  return { tokens, as: (p) => ({ authorization: `Bearer p${p}-token` }) };
}

/** What `headers`' principal sees kept now: the first frame of a page. */
async function keptFor(s: Setup, headers: Record<string, string>): Promise<Wire> {
  const events = new Events(await get(s, "/_inspect/events", headers));
  const snapshot = await events.next();
  await events.cancel();
  return snapshot;
}

/** One task of `headers`' principal whose run streams `text`, then ends (unless `live`). */
async function streamed(
  s: Setup,
  provider: ReturnType<typeof controlledProvider>,
  headers: Record<string, string>,
  text: string,
  live = false,
): Promise<string> {
  const sent = await rpc(s.gateway, "SendMessage", {
    message: message("go"),
    configuration: { returnImmediately: true },
  }, headers);
  assert.ok(sent.result?.task, JSON.stringify(sent));
  const run = provider.runs.at(-1)!;
  run.ready();
  await tick();
  run.request.parent.scope.emit(subagentProgress, { runId: run.id, kind: "text", text });
  if (!live) {
    run.finish({ output: [], stopReason: "completed" });
    await untilEndedAs(s, sent.result.task.id, headers);
  }
  return sent.result.task.id;
}

async function untilEndedAs(s: Setup, id: string, headers: Record<string, string>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const got = await rpc(s.gateway, "GetTask", { id }, headers);
    if (/COMPLETED|FAILED|CANCELED|REJECTED/.test(got.result.status.state)) return;
    await tick();
  }
  throw new Error(`Task "${id}" did not end`);
}

Deno.test("the inspector keeps at most maxRuns runs of all principals: the oldest ended tasks go, a watched principal's last", async () => {
  const provider = controlledProvider();
  const { tokens, as } = principals(5);
  await withSetup([provider], { inspector: { maxRuns: 3 }, auth: { tokens } }, async (s) => {
    // p0 watches: its ended task goes only once no principal without a page has one.
    const page = new Events(await get(s, "/_inspect/events", as(0)));
    await page.next();
    const ids: string[] = [];
    for (let p = 0; p < 5; p++) ids.push(await streamed(s, provider, as(p), `text of p${p}`));
    // Each principal is far within its own bounds (one task, one run); together they are not.
    const kept = await Promise.all([0, 1, 2, 3, 4].map((p) => keptFor(s, as(p))));
    assert.deepEqual(kept.map((k) => k.tasks.map((t: Wire) => t.id)), [
      [ids[0]],
      [],
      [],
      [ids[3]],
      [ids[4]],
    ]);
    assert.equal(kept.reduce((n, k) => n + k.runs.length, 0), 3);
    assert.equal(kept[0].limits.maxRuns, 3);
    // The page heard its principal's task kept, and no other principal's drop.
    const heard = await page.until((e) =>
      e.type === "task" && e.task.state === "TASK_STATE_COMPLETED"
    );
    assert.equal(heard.task.id, ids[0]);
    // Live tasks come: the unwatched ended ones go first, then p0's (its page hears the drop).
    for (const p of [1, 2, 3]) await streamed(s, provider, as(p), "live", true);
    const now = await Promise.all([0, 1, 2, 3, 4].map((p) => keptFor(s, as(p))));
    assert.deepEqual(now.map((k) => k.tasks.length), [0, 1, 1, 1, 0]);
    assert.ok(now.every((k) => k.tasks.every((t: Wire) => t.state === "TASK_STATE_WORKING")));
    assert.equal((await page.until((e) => e.type === "drop")).taskId, ids[0]);
    for (const run of provider.runs.slice(5)) run.finish({ output: [], stopReason: "completed" });
    await page.cancel();
  });
});

Deno.test("the inspector keeps at most maxText characters of all runs: the oldest ended tasks make room", async () => {
  const provider = controlledProvider();
  const { tokens, as } = principals(4);
  await withSetup([provider], { inspector: { maxText: 12 }, auth: { tokens } }, async (s) => {
    for (let p = 0; p < 4; p++) await streamed(s, provider, as(p), `abcd${p}`);
    const kept = await Promise.all([0, 1, 2, 3].map((p) => keptFor(s, as(p))));
    assert.deepEqual(kept.map((k) => k.runs.map((r: Wire) => r.text)), [[], [], ["abcd2"], [
      "abcd3",
    ]]);
    assert.equal(kept[2].runs[0].clipped, false, "room was made: nothing of the kept run was cut");
    assert.deepEqual(kept.map((k) => k.tasks.length), [0, 0, 1, 1]);
  });
});

Deno.test("past the overall bounds with only live tasks, none is dropped: a run is counted, text keeps its newest", async () => {
  const provider = controlledProvider();
  const { tokens, as } = principals(3);
  await withSetup([provider], {
    inspector: { maxRuns: 2, maxText: 8 },
    auth: { tokens },
  }, async (s) => {
    const first = await streamed(s, provider, as(0), "abcdef", true);
    await streamed(s, provider, as(1), "0123456789", true);
    await streamed(s, provider, as(2), "hello", true);
    let kept = await Promise.all([0, 1, 2].map((p) => keptFor(s, as(p))));
    assert.deepEqual(kept.map((k) => k.tasks.length), [1, 1, 1], "every live task is kept");
    assert.deepEqual(kept.map((k) => k.runs.map((r: Wire) => r.text)), [["abcdef"], ["89"], []]);
    assert.equal(kept[1].runs[0].clipped, true);
    assert.equal(kept[2].tasks[0].runsDropped, 1, "the run past maxRuns is counted, once");

    // Once a task ends, it makes room: p1's run grows again and p2's is kept.
    const [run0, run1, run2] = provider.runs;
    run0.finish({ output: [], stopReason: "completed" });
    await untilEndedAs(s, first, as(0));
    run1.request.parent.scope.emit(subagentProgress, { runId: run1.id, kind: "text", text: "XY" });
    run2.request.parent.scope.emit(subagentProgress, {
      runId: run2.id,
      kind: "text",
      text: "world",
    });
    kept = await Promise.all([0, 1, 2].map((p) => keptFor(s, as(p))));
    assert.deepEqual(kept.map((k) => k.runs.map((r: Wire) => r.text)), [[], ["89XY"], ["orld"]]);
    assert.deepEqual(kept.map((k) => k.tasks.length), [0, 1, 1]);
    assert.equal(kept[2].tasks[0].runsDropped, 1, "its text counted nothing more");
    for (const run of [run1, run2]) run.finish({ output: [], stopReason: "completed" });
  });
});

Deno.test("an open page's copy of a run's text stays the record's when maxText clips it", async () => {
  const provider = controlledProvider();
  await withSetup([provider], { inspector: { maxText: 4 } }, async (s) => {
    const page = new Events(await get(s, "/_inspect/events"));
    assert.equal((await page.next()).type, "snapshot");
    const sent = await rpc(s.gateway, "SendMessage", {
      message: message("go"),
      configuration: { returnImmediately: true },
    });
    const run = provider.runs[0];
    run.ready();
    await tick();
    // The page's rule (_inspector_module.ts): append, keep the newest `keep` characters.
    let copy = "";
    const hear = async (text: string) => {
      run.request.parent.scope.emit(subagentProgress, { runId: run.id, kind: "text", text });
      for (let event = await page.next();; event = await page.next()) {
        if (event.type !== "text") continue;
        const joined = copy + event.text;
        copy = joined.slice(Math.max(0, joined.length - Math.min(4_096, event.keep)));
        return;
      }
    };
    await hear("abcdef");
    await hear("ghij");
    const kept = (await keptFor(s, {})).runs.find((r: Wire) => r.runId === run.id);
    assert.equal(kept.text, "ghij");
    assert.equal(copy, kept.text, "the page holds what the record holds");
    run.finish({ output: [], stopReason: "completed" });
    await untilEnded(s.gateway, sent.result.task.id);
    await page.cancel();
  });
});

Deno.test("a principal that goes gives back its runs to the overall bound", async () => {
  const provider = controlledProvider();
  const { tokens, as } = principals(3);
  await withSetup([provider], {
    inspector: { maxPrincipals: 2, maxRuns: 2 },
    auth: { tokens },
  }, async (s) => {
    for (let p = 0; p < 3; p++) await streamed(s, provider, as(p), `p${p}`);
    // p0 went when p2 came, and with it its run: p1's ended task did not have to.
    // (Only the two kept are read: a page of a third principal would make one go.)
    assert.deepEqual((await keptFor(s, as(1))).runs.map((r: Wire) => r.text), ["p1"]);
    assert.deepEqual((await keptFor(s, as(2))).runs.map((r: Wire) => r.text), ["p2"]);
  });
});

Deno.test("an open page hears changes coalesced: a run's pieces of one turn as one", async () => {
  const provider = controlledProvider();
  await withSetup([provider], { inspector: true }, async (s) => {
    const events = new Events(await get(s, "/_inspect/events"));
    await events.next();
    const task = await send(s, "hello");
    const run = provider.runs[0];
    run.ready();
    await tick();
    for (const text of ["one ", "two ", "three"]) {
      run.request.parent.scope.emit(subagentProgress, { runId: run.id, kind: "text", text });
    }
    // The three pieces came in one turn, so one flush carries them, as one.
    const seen: Wire[] = [];
    while (seen.at(-1)?.type !== "text") seen.push(await events.next());
    assert.equal(seen.at(-1)!.text, "one two three");
    const run1 = seen.find((e) => e.type === "run")!;
    assert.equal(run1.run.runId, run.id);
    assert.equal(run1.run.text, undefined, "a run comes without its text");
    assert.ok(seen.some((e) => e.type === "task" && e.task.id === task.id));
    run.finish({ output: [], stopReason: "completed" });
    await events.until((e) => e.type === "task" && e.task.state === "TASK_STATE_COMPLETED");
    await events.cancel();
  });
});

Deno.test("a page that stops reading has its stream closed with an error event; the run goes on", async () => {
  const provider = controlledProvider();
  await withSetup([provider], {
    inspector: true,
    limits: { maxStreamBufferBytes: 1_024 },
  }, async (s) => {
    const response = await get(s, "/_inspect/events");
    const task = await send(s, "hello");
    const run = provider.runs[0];
    run.ready();
    await tick();
    // Nobody reads: 200 pieces of 100 characters are far beyond 1 KiB.
    for (let i = 0; i < 200; i++) {
      run.request.parent.scope.emit(subagentProgress, {
        runId: run.id,
        kind: "text",
        text: "x".repeat(100),
      });
    }
    // The pages hear it at the next flush; nobody has read the snapshot yet.
    await new Promise((resolve) => setTimeout(resolve, FLUSH_MS * 2));
    const text = await response.text();
    const last = JSON.parse(text.trim().split("\n\n").at(-1)!.slice("data: ".length));
    assert.equal(last.type, "error");
    assert.match(last.message, /the client is not reading it \(more than 1024 bytes wait unread\)/);
    assert.ok(text.length < 8_000, `the stream held ${text.length} characters`);
    run.finish({ output: [{ type: "text", text: "done" }], stopReason: "completed" });
    const done = await untilEnded(s.gateway, task.id);
    assert.equal(done.result.status.state, "TASK_STATE_COMPLETED");
  });
});

Deno.test("the inspector caps open pages per principal, and close() ends them", async () => {
  await withSetup([controlledProvider({ auto: true })], {
    inspector: { maxStreamsPerPrincipal: 1 },
  }, async (s) => {
    const open = new Events(await get(s, "/_inspect/events"));
    await open.next();
    const refused = await get(s, "/_inspect/events");
    assert.equal(refused.status, 429);
    assert.match((await refused.json()).error.message, /Too many inspector pages: 1 are open/);
    await s.gateway.close();
    assert.equal(await open.ended(), true);
  });
});

Deno.test("createGateway() checks the inspector option", async () => {
  const root = createRootScope();
  const bad: [unknown, RegExp][] = [
    ["yes", /inspector must be a boolean or an object of bounds, got "yes"/],
    [[1], /inspector must be a boolean or an object/],
    [{ maxRun: 1 }, /unknown option inspector\.maxRun \(known: .*maxRuns, maxText\)/],
    [{ maxRuns: 0 }, /inspector.maxRuns must be an integer of at least 1, got 0/],
    [{ maxRuns: 1.5 }, /inspector.maxRuns must be an integer of at least 1, got 1.5/],
    [{ maxText: -1 }, /inspector.maxText must be a non-negative integer, got -1/],
    [{ maxText: "1mb" }, /inspector.maxText must be a non-negative integer, got "1mb"/],
    [
      { maxTasksPerPrincipal: 0 },
      /inspector.maxTasksPerPrincipal must be an integer of at least 1/,
    ],
    [{ maxTextPerRun: -1 }, /inspector.maxTextPerRun must be a non-negative integer/],
  ];
  for (const [inspector, complaint] of bad) {
    assert.throws(
      () => createGateway({ scope: root, inspector } as unknown as GatewayOptions),
      complaint,
    );
  }
  await root.dispose();
});

Deno.test("the API's CORS does not reach the inspector: other sites can neither read nor act", async () => {
  await withSetup([controlledProvider({ auto: true })], {
    inspector: true,
    cors: { origin: "*" },
  }, async (s) => {
    const from = { origin: "https://elsewhere.example" };
    const card = await get(s, "/.well-known/agent-card.json", from);
    await card.body?.cancel();
    assert.equal(card.headers.get("access-control-allow-origin"), "*", "the API is shared");
    const events = await get(s, "/_inspect/events", from);
    assert.equal(events.headers.get("access-control-allow-origin"), null);
    await events.body?.cancel();
    const preflight = await s.gateway.fetch(
      new Request("http://gw.test/_inspect/tasks/x/cancel", {
        method: "OPTIONS",
        headers: { ...from, "access-control-request-method": "POST" },
      }),
    );
    await preflight.body?.cancel();
    assert.equal(preflight.headers.get("access-control-allow-origin"), null);
    assert.equal(preflight.headers.get("access-control-allow-methods"), null);
  });
});

Deno.test("the inspector's first frame stays within the stream's bound: each run's text shares it", async () => {
  const provider = controlledProvider();
  await withSetup([provider], {
    inspector: { maxTextPerRun: 4_096 },
    limits: { maxStreamBufferBytes: 8_192 },
  }, async (s) => {
    for (const text of ["a", "b", "c"]) await send(s, text);
    for (const run of provider.runs) {
      run.ready();
      await tick();
      run.request.parent.scope.emit(subagentProgress, {
        runId: run.id,
        kind: "text",
        text: `${run.id}:` + "x".repeat(5_000),
      });
    }
    const events = new Events(await get(s, "/_inspect/events"));
    const snapshot = await events.next();
    assert.equal(snapshot.type, "snapshot", "the page got its snapshot, not an overflow");
    assert.equal(snapshot.runs.length, 3);
    for (const run of snapshot.runs) {
      assert.ok(run.text.length <= 1_366, `a share of the 4,096 of room, got ${run.text.length}`);
      assert.ok(run.text.length >= 256);
      assert.equal(run.clipped, true);
    }
    for (const r of provider.runs) r.finish({ output: [], stopReason: "completed" });
    await events.cancel();
  });
});

Deno.test("an open page hears at most maxTextPerRun of a run's text per flush, the newest", async () => {
  const provider = controlledProvider();
  await withSetup([provider], { inspector: { maxTextPerRun: 10 } }, async (s) => {
    await send(s, "go");
    const run = provider.runs[0];
    run.ready();
    await tick();
    const events = new Events(await get(s, "/_inspect/events"));
    await events.next();
    const scope = run.request.parent.scope;
    scope.emit(subagentProgress, { runId: run.id, kind: "text", text: "a".repeat(50) });
    scope.emit(subagentProgress, { runId: run.id, kind: "text", text: "0123456789XY" });
    const text = await events.until((e) => e.type === "text");
    assert.equal(text.text, "23456789XY");
    run.finish({ output: [], stopReason: "completed" });
    await events.cancel();
  });
});
