// `seam` as a real process against real gateways on loopback: the help, bad
// usage, send (streaming, input at the terminal, Ctrl-C, failures within
// their timeout), tasks, serve, mcp and acp.
import assert from "node:assert/strict";
import { createHost, createMemoryLogger, textOf } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createAcpProvider } from "@seam/subagent-acp";
import { COMMANDS } from "@seam/cli";
import { startSpawnGateway } from "../tests/a2a_support.ts";
import { fakeAgent, task } from "../tests/a2a_fake_agent.ts";
import { permissionAsker, runSeam, startSeam } from "./_test_support.ts";

Deno.test("seam --help lists every command of the table; each --help prints usage, starts nothing", async (t) => {
  const { code, stdout } = await runSeam(["--help"]);
  assert.equal(code, 0);
  for (const command of COMMANDS) assert.match(stdout, new RegExp(`\\n  ${command.name} +\\S`));
  for (const command of COMMANDS) {
    await t.step(`seam ${command.name} --help`, async () => {
      const { code, stdout, stderr } = await runSeam([command.name, "--help"], { PORT: "0" });
      assert.equal(code, 0, stderr);
      assert.match(stdout, new RegExp(`^usage: seam ${command.name} `));
      assert.match(stdout, /--help +print this help and exit/);
      assert.doesNotMatch(stdout + stderr, /listening/);
    });
  }
});

Deno.test("seam refuses an unknown command, option, action or bad value, naming it, exit 2", async () => {
  const cases: [string[], RegExp][] = [
    [["sned"], /seam: unknown command "sned" \(known: serve, mcp, acp, send, tasks\)/],
    [["--verbose"], /seam: unknown option "--verbose"/],
    [
      ["send", "--tiemout", "5", "http://x", "hi"],
      /unknown option --tiemout \(known: --provider, /,
    ],
    [["send", "http://127.0.0.1:1"], /needs a URL and a prompt/],
    [["send", "ftp://x", "hi"], /<url> must be an http\(s\) URL, got "ftp:\/\/x"/],
    [["send", "--timeout", "soon", "http://x", "hi"], /--timeout must be a whole number/],
    [
      ["send", "--token-env", "NO_SUCH_VAR", "http://x", "hi"],
      /NO_SUCH_VAR: that variable is not set/,
    ],
    [["tasks", "http://x", "purge"], /unknown action "purge" \(known: list, get, cancel\)/],
    [["tasks", "http://x", "get"], /get needs a task id/],
    [["serve", "--port", "99999"], /--port must be a whole number from 0 to 65535, got "99999"/],
    [["serve", "--inspector=yes"], /--inspector takes no value/],
    [
      ["serve", "--database-url", "nope"],
      /--database-url must be a PostgreSQL URL \(postgres:\/\/user@host:5432\/db\), got no URL/,
    ],
    [["serve", "--database-url", "http://u:secret@x/db"], /got a URL of scheme "http:"; leave it/],
    [["acp", "--log-level", "loud"], /--log-level must be one of debug, info, warn, error, silent/],
    [
      ["serve", "--host", "999.1.1.1"],
      /--host must be an IP address or a host name of this machine, got "999\.1\.1\.1" \(no such name\); use 127\.0\.0\.1/,
    ],
    [
      ["serve", "--host", "192.0.2.1"],
      /--host "192\.0\.2\.1" is not an address of this machine; use/,
    ],
    [["serve", "--schema", "tasks"], /--schema needs a database: pass --database-url too/],
    [
      ["serve", "--database-url", "postgres://u@127.0.0.1:1/db", "--schema", "bad;name"],
      /--schema is refused: .*lowercase identifier.*got "bad;name"; use one such as "seam"/,
    ],
  ];
  for (const [args, message] of cases) {
    const { code, stderr } = await runSeam(args);
    assert.equal(code, 2, `${args.join(" ")}: ${stderr}`);
    assert.match(stderr, message);
    assert.doesNotMatch(stderr, /secret/, "a URL's password is never printed");
    assert.doesNotMatch(stderr, /\n +at /, `${args.join(" ")}: no stack`);
  }
  const portFromEnv = await runSeam(["serve"], { PORT: "99999" });
  assert.equal(portFromEnv.code, 2, portFromEnv.stderr);
  assert.match(portFromEnv.stderr, /PORT must be a whole number from 0 to 65535, got "99999"/);
  const fromEnv = await runSeam(["serve", "--port", "0"], { DATABASE_URL: "nope" });
  assert.equal(fromEnv.code, 2, fromEnv.stderr);
  assert.match(fromEnv.stderr, /DATABASE_URL must be a PostgreSQL URL/);
});

Deno.test("seam serve names the flag a start-up failure of the moment came from, exit 1", async () => {
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  try {
    const inUse = await runSeam(["serve", "--port", String(taken.addr.port)]);
    assert.equal(inUse.code, 1, inUse.stderr);
    assert.equal(
      inUse.stderr,
      `seam serve: --port ${taken.addr.port} is in use on 127.0.0.1: stop what listens there, or use another port (0: any free one)\n`,
    );
    const fromEnv = await runSeam(["serve"], { PORT: String(taken.addr.port) });
    assert.equal(fromEnv.code, 1, fromEnv.stderr);
    assert.match(fromEnv.stderr, /^seam serve: PORT \d+ is in use on 127\.0\.0\.1: /);
  } finally {
    taken.close();
  }
  const unreachable = await runSeam([
    "serve",
    "--port",
    "0",
    "--database-url",
    "postgres://u:secret@127.0.0.1:1/db",
  ]);
  assert.equal(unreachable.code, 1, unreachable.stderr);
  assert.match(
    unreachable.stderr,
    /^seam serve: --database-url names a database that could not be reached or set up: .*; check the URL and that PostgreSQL runs there, or leave it unset to keep tasks in memory\n$/,
  );
  assert.doesNotMatch(unreachable.stderr, /secret/);
});

Deno.test("seam send streams a gateway's answer and shows a progress line on long work", async () => {
  const gateway = startSpawnGateway("loopback");
  try {
    const quick = await runSeam(["send", gateway.url, "@reply hello from the gateway"]);
    assert.equal(quick.code, 0, quick.stderr);
    assert.equal(quick.stdout, "hello from the gateway\n");
    const slow = await runSeam([
      "send",
      "--progress",
      "200",
      gateway.url,
      "@delay 1200\n@reply done",
    ]);
    assert.equal(slow.code, 0, slow.stderr);
    assert.equal(slow.stdout, "done\n");
    assert.match(slow.stderr, /seam send: working, \d+s \(task \S+ on \S+/);
  } finally {
    await gateway.close();
  }
});

Deno.test("seam send gives up on a remote gone quiet after --idle-timeout, naming it, and cancels its task", async () => {
  // Accepts the task, then says nothing more on an open stream.
  const agent = fakeAgent({ stream: (send) => send(task("TASK_STATE_WORKING")) });
  try {
    const { code, stdout, stderr } = await runSeam([
      "send",
      "--idle-timeout",
      "300",
      "--progress",
      "0",
      agent.url,
      "hello?",
    ]);
    assert.equal(code, 1, stderr);
    assert.equal(stdout, "");
    assert.equal(
      stderr,
      "seam send: task task-1 on fake at " + agent.url +
        " ended error: The A2A run failed (SendStreamingMessage): the remote agent brought" +
        " nothing new for 300 ms (idleTimeoutMs) (TIMEOUT); to wait longer, raise --idle-timeout (in ms)\n",
    );
    assert.deepEqual(agent.calls, ["SendStreamingMessage", "CancelTask"]);
  } finally {
    await agent.close();
  }
});

Deno.test("seam send asks the human at the terminal when the remote needs input", async (t) => {
  const gateway = startSpawnGateway("loopback", {
    setup: (_host, subagents) => subagents.registerProvider(permissionAsker()),
  });
  try {
    await t.step("an option by its number", async () => {
      const seam = startSeam(["send", "--provider", "asking", gateway.url, "delete the logs"]);
      await seam.waitFor(/answer 1-2 \(empty refuses\): $/);
      assert.match(
        seam.stderr(),
        /\? permission: May I delete the logs\?\n {2}tool: delete the logs \{"command":"delete the logs"\}\n {2}\[1\] Allow once/,
      );
      await seam.writeLine("1");
      assert.equal(await seam.exited(), 0, seam.stderr());
      assert.equal(seam.stdout(), "chose allow\n");
    });
    await t.step("a wrong answer is asked again; end of input refuses", async () => {
      const seam = startSeam(["send", "--provider", "asking", gateway.url, "reboot"]);
      await seam.waitFor(/answer 1-2/);
      await seam.writeLine("7");
      await seam.waitFor(/"7" is not one of the options/);
      await seam.closeStdin();
      assert.equal(await seam.exited(), 0, seam.stderr());
      assert.match(seam.stdout(), /refused: .*no answer at the terminal \(input closed\)/);
    });
  } finally {
    await gateway.close();
  }
});

Deno.test("seam send: Ctrl-C cancels the remote task and exits 130", async () => {
  const gateway = startSpawnGateway("loopback");
  try {
    const seam = startSeam(["send", "--progress", "100", gateway.url, "@hang"]);
    await seam.waitFor(/working, \d+s \(task (\S+)/);
    const taskId = /task (\S+) on/.exec(seam.stderr())![1];
    seam.child.kill("SIGINT");
    assert.equal(await seam.exited(), 130, seam.stderr());
    assert.match(seam.stderr(), new RegExp(`cancelled task ${taskId}`));
    const shown = await runSeam(["tasks", gateway.url, "get", taskId]);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, new RegExp(`^${taskId} +CANCELED`));
  } finally {
    await gateway.close();
  }
});

Deno.test("seam send fails within its timeout, naming the URL: dead, wrong token, silent", async (t) => {
  await t.step("a dead URL", async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const port = listener.addr.port;
    listener.close(); // nothing listens there now
    const { code, stderr } = await runSeam(["send", `http://127.0.0.1:${port}`, "hi"], {}, 10_000);
    assert.equal(code, 1);
    assert.match(stderr, new RegExp(`Cannot reach the A2A agent at http://127.0.0.1:${port}`));
  });
  await t.step("a wrong token", async () => {
    const gateway = startSpawnGateway("loopback", { auth: { tokens: { alice: "right" } } });
    try {
      const { code, stderr } = await runSeam(["send", gateway.url, "@reply hi"], {
        SEAM_TOKEN: "wrong",
      });
      assert.equal(code, 1);
      assert.match(stderr, /401/);
      assert.match(stderr, /reads the bearer token from SEAM_TOKEN/);
      const right = await runSeam(["send", gateway.url, "@reply hi"], { SEAM_TOKEN: "right" });
      assert.equal(right.code, 0, right.stderr);
      assert.equal(right.stdout, "hi\n");
    } finally {
      await gateway.close();
    }
  });
  await t.step("a remote that accepts connections and never answers", async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const held: Deno.Conn[] = [];
    const accepting = (async () => {
      for await (const conn of listener) held.push(conn);
    })();
    try {
      const url = `http://127.0.0.1:${listener.addr.port}`;
      const started = Date.now();
      const { code, stderr } = await runSeam(["send", "--timeout", "700", url, "hi"], {}, 10_000);
      assert.equal(code, 1);
      assert.match(stderr, new RegExp(`at ${url}: .*did not arrive within 700 ms`));
      assert.ok(Date.now() - started < 8_000);
    } finally {
      listener.close();
      await accepting.catch(() => {});
      for (const conn of held) conn.close();
    }
  });
});

Deno.test("seam tasks lists, gets and cancels a gateway's tasks", async () => {
  const gateway = startSpawnGateway("loopback");
  try {
    const sent = await runSeam(["send", gateway.url, "@reply listed"]);
    assert.equal(sent.code, 0, sent.stderr);
    const list = await runSeam(["tasks", gateway.url]);
    assert.equal(list.code, 0, list.stderr);
    const [id] = list.stdout.trim().split(/\s+/);
    assert.match(list.stdout, /COMPLETED .* @reply listed/);
    const got = await runSeam(["tasks", gateway.url, "get", id, "--json"]);
    assert.equal(got.code, 0, got.stderr);
    assert.equal(JSON.parse(got.stdout).id, id);
    const missing = await runSeam(["tasks", gateway.url, "cancel", "no-such-task"]);
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /Cannot cancel task no-such-task at http:\/\/127\.0\.0\.1:\d+: /);
  } finally {
    await gateway.close();
  }
});

Deno.test("seam serve serves spawn and fork as deno task start did; --port beats PORT", async () => {
  const seam = startSeam(["serve", "--port", "0"], { PORT: "1" });
  try {
    await seam.waitFor(/providers: spawn, fork/);
    const url = /listening on (http:\/\/\S+)/.exec(seam.stdout())![1];
    const sent = await runSeam(["send", url, "@reply Hello!"]);
    assert.equal(sent.code, 0, sent.stderr);
    assert.equal(sent.stdout, "Hello!\n");
  } finally {
    try {
      seam.child.kill("SIGTERM");
    } catch { /* it exited: the assertion below says how */ }
    assert.equal(await seam.exited(), 0, seam.stderr());
  }
});

Deno.test("seam acp serves a host agent over ACP that createAcpProvider drives", async () => {
  const host = createHost({ logger: createMemoryLogger().logger });
  const subagents = createSubagentService(host.scope);
  subagents.registerProvider(createAcpProvider({
    command: Deno.execPath(),
    args: ["run", "--allow-all", new URL("./main.ts", import.meta.url).pathname, "acp"],
    env: { DEEPSEEK_API_KEY: "", OPENAI_API_KEY: "" },
  }));
  const run = subagents.start("acp", {
    prompt: "@reply hello over ACP",
    parent: { id: "main", scope: host.scope },
  });
  try {
    const result = await run.result;
    assert.equal(result.stopReason, "completed", JSON.stringify(result.error));
    assert.equal(textOf(result.output), "hello over ACP");
  } finally {
    await run.dispose();
    await host.scope.dispose();
  }
});

Deno.test("seam tasks fails within its timeout, naming the URL: dead, wrong token, silent", async (t) => {
  await t.step("a dead URL", async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const url = `http://127.0.0.1:${listener.addr.port}`;
    listener.close();
    const { code, stderr } = await runSeam(["tasks", url], {}, 10_000);
    assert.equal(code, 1);
    assert.match(stderr, new RegExp(`seam tasks: Cannot reach the A2A agent at ${url}: `));
  });
  await t.step("a wrong token", async () => {
    const gateway = startSpawnGateway("loopback", { auth: { tokens: { alice: "right" } } });
    try {
      const { code, stderr } = await runSeam(["tasks", gateway.url], { SEAM_TOKEN: "wrong" });
      assert.equal(code, 1);
      assert.match(
        stderr,
        /answered HTTP 401: the token was refused \(the bearer token is read from SEAM_TOKEN/,
      );
      const right = await runSeam(["tasks", gateway.url], { SEAM_TOKEN: "right" });
      assert.equal(right.code, 0, right.stderr);
      assert.equal(right.stdout, "no tasks\n");
    } finally {
      await gateway.close();
    }
  });
  await t.step("a remote that accepts connections and never answers", async () => {
    const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
    const held: Deno.Conn[] = [];
    const accepting = (async () => {
      for await (const conn of listener) held.push(conn);
    })();
    try {
      const url = `http://127.0.0.1:${listener.addr.port}`;
      const { code, stderr } = await runSeam(["tasks", "--timeout", "700", url], {}, 10_000);
      assert.equal(code, 1);
      assert.match(stderr, /did not answer within 700 ms \(--timeout\)/);
    } finally {
      listener.close();
      await accepting.catch(() => {});
      for (const conn of held) conn.close();
    }
  });
});

Deno.test("the README's seam section keeps each inline code span on one line (copyable)", async () => {
  const readme = await Deno.readTextFile(new URL("../README.md", import.meta.url));
  const start = readme.indexOf("## One command: `seam`");
  const section = readme.slice(start, readme.indexOf("\n## ", start + 1));
  let fenced = false;
  for (const line of section.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    else if (!fenced) {
      assert.equal(line.split("`").length % 2, 1, `a code span broken across lines at: ${line}`);
    }
  }
});
