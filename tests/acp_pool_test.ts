// createAcpProvider({ pool }): warm agents taken by runs, refilled, ended
// when idle, replaced when they die, bounded when they cannot start, and
// never outliving the host.
import assert from "node:assert/strict";
import { textOf } from "@seam/host";
import { createAcpProvider } from "@seam/subagent-acp";
import {
  liveMembers,
  startHostFixture,
  TEST_AGENT,
  testAgentConfig,
  until,
  untilGone,
  withAcpAgent,
} from "./acp_support.ts";

/** What the command line of the test agent's `--grandchild` holds. */
const GRANDCHILD = "process.on('SIGTERM'";

/** The pid the test agent answers `pid` with. */
function pidOf(text: string): number {
  const match = /^pid (\d+) sessions (\d+)$/.exec(text);
  assert.ok(match, `not a pid answer: ${text}`);
  return Number(match[1]);
}

Deno.test("createAcpProvider() with a pool runs on a warm agent and refills", async () => {
  await withAcpAgent([], { pool: { size: 1 } }, async ({ watch, provider, start }) => {
    assert.equal(await provider.whenWarm(), 1);
    await until(() => watch.pids.size === 1, "the warm agent's first stderr line");
    const [warmPid] = watch.pids;
    const run = start("pid");
    const result = await run.result;
    assert.equal(result.stopReason, "completed");
    assert.equal(pidOf(textOf(result.output)), warmPid, "the run did not take the warm agent");
    // The pool refilled in the background with a new process.
    assert.equal(await provider.whenWarm(), 1);
    await until(() => watch.pids.size === 2, "the replacement agent");
    const second = await start("pid").result;
    const secondPid = pidOf(textOf(second.output));
    assert.notEqual(secondPid, warmPid);
    assert.ok(watch.pids.has(secondPid));
  });
});

Deno.test("createAcpProvider() with a pool authenticates its warm agents before any run", async () => {
  await withAcpAgent(["--auth-env=SEAM_TEST_API_KEY"], {
    env: { SEAM_TEST_API_KEY: "sk-test" },
    pool: { size: 1 },
  }, async ({ watch, provider, start }) => {
    assert.equal(await provider.whenWarm(), 1);
    // No run yet: the pool signed the warm agent in.
    await until(
      () => watch.agentLines().includes("authenticate test-key"),
      "the warm agent's authenticate",
    );
    const [warmPid] = watch.pids;
    const result = await start("pid").result;
    assert.equal(result.stopReason, "completed", result.error?.message);
    assert.equal(pidOf(textOf(result.output)), warmPid, "the run did not take the warm agent");
  });
});

Deno.test("createAcpProvider() with a pool ends idle agents after maxIdleMs", async () => {
  await withAcpAgent([], { pool: { size: 2, maxIdleMs: 200 } }, async ({ watch, provider }) => {
    assert.equal(await provider.whenWarm(), 2);
    await until(() => watch.pids.size === 2, "two warm agents");
    await until(
      () => watch.messages("debug").filter((m) => m.includes("pool.maxIdleMs")).length === 2,
      "both idle agents ended",
    );
    const deadline = performance.now() + 10_000;
    while ((await watch.live()).length > 0 && performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual(await watch.live(), [], "idle agents still running");
    // Not refilled until a run asks.
    assert.equal(watch.pids.size, 2);
  });
});

Deno.test("createAcpProvider() with a pool replaces an agent that dies while idle", async () => {
  await withAcpAgent([], { pool: { size: 1 } }, async ({ watch, provider, start }) => {
    await provider.whenWarm();
    await until(() => watch.pids.size === 1, "the warm agent");
    const [doomed] = watch.pids;
    Deno.kill(doomed, "SIGKILL"); // a process this test's provider started
    await until(
      () => watch.messages("warn").some((m) => m.includes("died while idle")),
      "the death logged",
    );
    await until(() => watch.pids.size === 2, "a replacement");
    assert.equal(await provider.whenWarm(), 1);
    const result = await start("pid").result;
    assert.equal(result.stopReason, "completed");
    const pid = pidOf(textOf(result.output));
    assert.notEqual(pid, doomed);
  });
});

Deno.test("createAcpProvider() with a pool stops refilling an agent that cannot start", async () => {
  await withAcpAgent(
    ["--exit-at-start"],
    { pool: { size: 1 } },
    async ({ watch, provider, start }) => {
      assert.equal(await provider.whenWarm(), 0);
      const failed = () => watch.messages("warn").filter((m) => m.includes("failed to start"));
      assert.equal(failed().length, 3, failed().join("\n"));
      assert.ok(failed()[2].includes("3 failures in a row"));
      // A run is not broken by the pool: it starts its own process and fails on its own terms.
      const result = await start("complete hi").result;
      assert.equal(result.stopReason, "error");
      // The run let the pool try once more, and no more.
      assert.equal(await provider.whenWarm(), 0);
      assert.equal(failed().length, 4);
    },
  );
});

Deno.test("createAcpProvider() with a pool keeps one run's failure from another's", async () => {
  await withAcpAgent([], { pool: { size: 2 } }, async ({ provider, start }) => {
    assert.equal(await provider.whenWarm(), 2);
    const crashing = start("crash");
    const fine = start("complete still here");
    const [crashed, completed] = await Promise.all([crashing.result, fine.result]);
    assert.equal(crashed.stopReason, "error");
    assert.equal(completed.stopReason, "completed");
    assert.equal(textOf(completed.output), "still here");
  });
});

Deno.test("createAcpProvider() refuses a bad pool option, naming it", () => {
  const config = testAgentConfig();
  const cases: Array<[unknown, RegExp, ErrorConstructor]> = [
    [{ size: 1, maxIdle: 5 }, /unknown option pool\.maxIdle \(known: size, maxIdleMs\)/, TypeError],
    [{ size: 0 }, /config\.pool\.size must be an integer from 1 to 64, got 0/, RangeError],
    [{ size: 1.5 }, /config\.pool\.size/, RangeError],
    [{ size: 65 }, /config\.pool\.size/, RangeError],
    [{ size: "2" }, /config\.pool\.size/, TypeError],
    [{ maxIdleMs: -1 }, /config\.pool\.maxIdleMs/, RangeError],
    [{ maxIdleMs: Infinity }, /config\.pool\.maxIdleMs/, RangeError],
    [[], /config\.pool must be an object/, TypeError],
    [null, /config\.pool must be an object/, TypeError],
  ];
  for (const [pool, message, kind] of cases) {
    assert.throws(
      // deno-lint-ignore no-explicit-any
      () => createAcpProvider({ ...config, pool: pool as any }),
      (error: Error) => error instanceof kind && message.test(error.message),
      `pool ${JSON.stringify(pool)}`,
    );
  }
  assert.throws(
    () => createAcpProvider({ ...config, reuseProcess: true, pool: { size: 1 } }),
    /config\.pool must be absent with reuseProcess/,
  );
});

Deno.test("createAcpProvider() with a pool leaves no warm agent behind when the host is killed", async () => {
  // Each agent starts a grandchild in its group that traps SIGTERM and never
  // ends on its own (the agent itself dies of its stderr's broken pipe when
  // the host goes): only the supervisors of the groups can end them.
  const { host, text, pids, stop } = await startHostFixture(["--seam-pool=2", "--grandchild"]);
  const agents = [...text.matchAll(/^agent (\d+)$/gm)].map((m) => Number(m[1]));
  try {
    assert.equal(
      agents.length,
      3,
      `one running agent and two warm ones; the host printed: ${text}`,
    );
    assert.equal((await liveMembers(agents, [TEST_AGENT])).length, 3);
    const deadline = performance.now() + 10_000;
    while ((await liveMembers(agents, [GRANDCHILD])).length < 3) {
      assert.ok(performance.now() < deadline, "no grandchild in each agent's group");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    host.kill("SIGKILL");
    await host.status;
    assert.deepEqual(
      await untilGone(agents, [TEST_AGENT, GRANDCHILD]),
      [],
      "agents or their groups outlived their host",
    );
  } finally {
    for (const pid of await liveMembers([...agents, ...pids], [TEST_AGENT, GRANDCHILD])) {
      Deno.kill(pid, "SIGKILL");
    }
    await stop();
  }
});
