import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { banner, exposureWarning, serveGateway } from "./serve.ts";
import { createGateway } from "./gateway.ts";

Deno.test("serveGateway() serves on loopback, prints the card URL and a request, shuts down", async () => {
  const root = createRootScope({ logger: createMemoryLogger().logger });
  createSubagentService(root);
  const lines: string[] = [];
  const served = serveGateway({ scope: root }, {
    hostname: "127.0.0.1",
    port: 0,
    log: (line) => lines.push(line),
  });
  try {
    assert.match(served.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    assert.equal(served.cardUrl, `${served.url}/.well-known/agent-card.json`);
    assert.deepEqual(lines, banner(served.url));
    assert.match(lines[3], /^curl -s http:\/\/127\.0\.0\.1:\d+\/ .*A2A-Version: 1\.0.*SendMessage/);
    const card = await (await fetch(served.cardUrl)).json();
    assert.equal(card.supportedInterfaces[0].url, `${served.url}/`);
  } finally {
    await served.shutdown();
    await root.dispose();
  }
});

Deno.test("serveGateway() refuses a port outside 0-65535", async () => {
  const root = createRootScope({ logger: createMemoryLogger().logger });
  createSubagentService(root);
  assert.throws(() => serveGateway({ scope: root }, { port: 70_000, quiet: true }), RangeError);
  await root.dispose();
});

Deno.test("serveGateway() warns loudly before serving without auth beyond loopback", async (t) => {
  const root = createRootScope({ logger: createMemoryLogger().logger });
  createSubagentService(root);
  try {
    await t.step("no warning on loopback", async () => {
      const warnings: string[] = [];
      const served = serveGateway({ scope: root }, {
        hostname: "127.0.0.1",
        port: 0,
        quiet: true,
        warn: (line) => warnings.push(line),
      });
      await served.shutdown();
      assert.deepEqual(warnings, []);
    });
    await t.step("a warning naming the address on any other interface", async () => {
      const warnings: string[] = [];
      let served: ReturnType<typeof serveGateway> | undefined;
      try {
        // The tests may listen on 127.0.0.1 only: serving is refused, the warning came first.
        served = serveGateway({ scope: root }, {
          hostname: "0.0.0.0",
          port: 0,
          quiet: true,
          warn: (line) => warnings.push(line),
        });
      } catch (error) {
        assert.ok(error instanceof Deno.errors.NotCapable, String(error));
      } finally {
        await served?.shutdown();
      }
      assert.equal(warnings.length, 1);
      assert.match(warnings[0], /^WARNING: serving the seam gateway on 0\.0\.0\.0 without auth/);
    });
    await t.step("exposureWarning(): auth on or a loopback name, no warning", () => {
      assert.equal(exposureWarning("0.0.0.0", true), undefined);
      assert.equal(exposureWarning("localhost", false), undefined);
      assert.equal(exposureWarning("::1", false), undefined);
      assert.equal(exposureWarning("127.1.2.3", false), undefined);
      assert.match(exposureWarning("192.0.2.1", false) ?? "", /without auth/);
      assert.match(exposureWarning("::", false) ?? "", /without auth/);
    });
  } finally {
    await root.dispose();
  }
});

/** A 0.3 `message/send` to `url` (no `A2A-Version`, as 0.3 clients send it). */
async function send03(url: string): Promise<{ error?: { code: number } }> {
  const response = await fetch(`${url}/`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "message/send",
      params: {
        message: {
          kind: "message",
          messageId: "m1",
          role: "user",
          parts: [{ kind: "text", text: "hi" }],
        },
      },
    }),
  });
  return await response.json();
}

Deno.test("serveGateway() answers A2A 0.3 clients unless a2a03 is false (issue 37)", async (t) => {
  for (const [a2a03, served03] of [[undefined, true], [false, false]] as const) {
    await t.step(`a2a03: ${a2a03}`, async () => {
      const root = createRootScope({ logger: createMemoryLogger().logger });
      createSubagentService(root);
      const served = serveGateway({ scope: root, a2a03 }, { port: 0, quiet: true });
      try {
        const answer = await send03(served.url);
        // With no provider registered a 0.3 send is refused for that, not as an unknown method.
        if (served03) assert.notEqual(answer.error?.code, -32601, JSON.stringify(answer));
        else assert.equal(answer.error?.code, -32601, JSON.stringify(answer));
        const card = await (await fetch(served.cardUrl)).json();
        assert.equal(card.protocolVersion === "0.3", served03, JSON.stringify(card));
      } finally {
        await served.shutdown();
        await root.dispose();
      }
    });
  }
});

Deno.test("serveGateway() takes its public URL from SEAM_PUBLIC_URL", async () => {
  const root = createRootScope({ logger: createMemoryLogger().logger });
  createSubagentService(root);
  Deno.env.set("SEAM_PUBLIC_URL", "https://agents.example.test/");
  let served;
  try {
    served = serveGateway({ scope: root }, { port: 0, quiet: true });
    const response = await fetch(served.cardUrl, { headers: { "a2a-version": "1.0" } });
    const card = await response.json();
    assert.equal(card.supportedInterfaces[0].url, "https://agents.example.test/");
    assert.match(response.headers.get("cache-control") ?? "", /^public/);
  } finally {
    Deno.env.delete("SEAM_PUBLIC_URL");
    await served?.shutdown();
    await root.dispose();
  }
});

Deno.test("createGateway() and serveGateway() refuse unknown options, naming the known ones", async () => {
  const root = createRootScope({ logger: createMemoryLogger().logger });
  createSubagentService(root);
  try {
    assert.throws(
      () => createGateway({ scope: root, maxResumeableRuns: 1 } as never),
      (error: Error) =>
        error instanceof TypeError &&
        /^Cannot create gateway: unknown option maxResumeableRuns \(known: scope, subagents, .*keptRunIdleMs.*mounts\)$/
          .test(error.message),
    );
    assert.throws(
      () => createGateway({ scope: root, limits: { maxLiveTask: 3 } } as never),
      /unknown option limits\.maxLiveTask \(known: maxLiveTasks, /,
    );
    assert.throws(
      () => serveGateway({ scope: root, bodylimit: 5 } as never, { port: 0, quiet: true }),
      /Cannot create gateway: unknown option bodylimit/,
    );
    assert.throws(
      () => serveGateway({ scope: root }, { port: 0, quiet: true, host: "0.0.0.0" } as never),
      /^TypeError: Cannot serve the gateway: unknown option host \(known: hostname, port, signal, quiet, log, warn\)$/,
    );
  } finally {
    await root.dispose();
  }
});

Deno.test("createGateway() refuses an unknown option of auth, cors, card, extendedCard, push and inspector", async () => {
  const root = createRootScope({ logger: createMemoryLogger().logger });
  createSubagentService(root);
  const tokens = { alice: "a-token-long-enough-to-pass" };
  const bad: [Record<string, unknown>, RegExp][] = [
    [
      { auth: { token: tokens } },
      /^TypeError: Cannot create gateway: unknown option auth\.token \(known: tokens, verify\)$/,
    ],
    [
      { cors: { origins: "*" } },
      /unknown option cors\.origins \(known: origin, maxAge, credentials\)$/,
    ],
    [
      { card: { title: "x" } },
      /unknown option card\.title \(known: name, description, version, provider, /,
    ],
    [
      { auth: { tokens }, extendedCard: { skill: [] } },
      /unknown option extendedCard\.skill \(known: description, skills\)$/,
    ],
    [
      { push: { maxConfigPerTask: 1 } },
      /unknown option push\.maxConfigPerTask \(known: allowWebhook, maxConfigsPerTask, /,
    ],
    [{ inspector: { maxRun: 1 } }, /unknown option inspector\.maxRun \(known: /],
  ];
  try {
    for (const [options, complaint] of bad) {
      assert.throws(() => createGateway({ scope: root, ...options } as never), TypeError);
      assert.throws(() => createGateway({ scope: root, ...options } as never), complaint);
    }
  } finally {
    await root.dispose();
  }
});
