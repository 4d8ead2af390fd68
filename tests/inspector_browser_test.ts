// The run inspector in a real browser: Debian's Chromium (headless, driven
// by playwright-core) loads the page from a gateway on loopback and follows
// a delegation tree live, shows a budget, answers a child's approval and a
// question, sees a stale answer refused in the page, cancels a hanging run,
// and follows a child on another gateway from both pages. Screenshots go to
// tests/.out/.
import assert from "node:assert/strict";
import { createHost, createMemoryLogger, createScriptedModel } from "@seam/host";
import { createSubagentService, type SubagentProvider, type SubagentService } from "@seam/subagent";
import { createA2AProvider } from "@seam/subagent-a2a";
import { createSpawnProvider } from "@seam/subagent-spawn";
import { installSubagentTool } from "@seam/tool-subagent";
import {
  createGateway,
  createMemoryTaskStore,
  SEAM_EXTENSION_URI,
  type TaskStore,
} from "../gateway/mod.ts";
import { Browser, CHROMIUM, hasChromium } from "./browser_support.ts";
import { askingProvider } from "./asking_support.ts";

const inCi = Deno.env.get("CI") === "true";
const ALICE = "alice-token";

interface Inspected {
  readonly url: string;
  /**
   * Start a task as the first token's principal on `tenant` (default: spawn),
   * the seam extension's `seam` with it; its id.
   */
  send(prompt: string, seam?: Record<string, unknown>, tenant?: string): Promise<string>;
  /** The commands `run_command` ran. */
  readonly ran: string[];
  close(): Promise<void>;
}

/**
 * A gateway with the inspector on, served on loopback, in front of spawn
 * (scripted model; the `subagent` tool and a `run_command` tool that needs
 * approval) and of whatever `more` registers (an A2A provider).
 */
async function inspectedGateway(
  tokens: Record<string, string>,
  more?: (subagents: SubagentService) => Promise<void> | void,
  taskStore?: TaskStore,
): Promise<Inspected> {
  const host = createHost({ logger: createMemoryLogger().logger });
  host.models.register(host.scope, "scripted", createScriptedModel());
  const subagents = createSubagentService(host.scope);
  subagents.registerProvider(createSpawnProvider());
  await more?.(subagents);
  installSubagentTool(host.scope, { provider: "spawn" });
  const ran: string[] = [];
  host.tools.register(host.scope, {
    name: "run_command",
    description: "Run a shell command",
    parameters: {
      type: "object",
      properties: { command: { type: "string" } },
      required: ["command"],
    },
    requiresApproval: true,
    kind: "execute",
    title: ({ command }: { command: string }) => `Run "${command}"`,
    execute: ({ command }: { command: string }) => {
      ran.push(command);
      return { content: `ran ${command}` };
    },
  });
  const gateway = createGateway({
    scope: host.scope,
    agentOptions: { model: "scripted" },
    auth: { tokens },
    inspector: true,
    taskStore,
  });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (request) => gateway.fetch(request),
  );
  const url = `http://127.0.0.1:${server.addr.port}`;
  const token = Object.values(tokens)[0];
  let n = 0;
  const send = async (
    prompt: string,
    seam?: Record<string, unknown>,
    tenant?: string,
  ): Promise<string> => {
    const response = await fetch(`${url}/`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "a2a-version": "1.0",
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: ++n,
        method: "SendMessage",
        params: {
          ...(tenant ? { tenant } : {}),
          message: {
            messageId: `m${n}`,
            role: "ROLE_USER",
            parts: [{ text: prompt }],
            ...(seam ? { metadata: { [SEAM_EXTENSION_URI]: seam } } : {}),
          },
          configuration: { returnImmediately: true },
        },
      }),
    });
    const body = await response.json();
    assert.ok(body.result?.task, `the task started: ${JSON.stringify(body)}`);
    return body.result.task.id;
  };
  return {
    url,
    send,
    ran,
    close: async () => {
      await gateway.close();
      await server.shutdown();
      await host.scope.dispose();
    },
  };
}

if (!hasChromium() && !inCi) {
  console.warn(
    `inspector_browser_test: ${CHROMIUM} is missing, so the browser tests are skipped (outside CI only: .ci/run installs Debian's chromium, and in CI they fail without it)`,
  );
}

/** The body of a test that needs Chromium: ignored only outside CI when it is missing. */
function inBrowser(fn: (t: Deno.TestContext) => Promise<void>) {
  return {
    ignore: !hasChromium() && !inCi,
    fn: async (t: Deno.TestContext) => {
      if (!hasChromium()) {
        throw new Error(`${CHROMIUM} is missing; .ci/run installs Debian's chromium package`);
      }
      await Deno.mkdir("tests/.out", { recursive: true });
      await fn(t);
    },
  };
}

/** A provider whose runs ask one question, then end with the answer. */
function branchAsker(): SubagentProvider {
  return askingProvider("asks", async ({ ask }) => {
    await Promise.resolve();
    const answer = await ask({ kind: "question", message: "Which branch?" });
    return { output: JSON.stringify(answer), stopReason: "completed" };
  });
}

const task = (id: string) => `[data-task-id="${id}"]`;

Deno.test({
  name:
    "the inspector page shows runs live, answers an approval and a question, and cancels a run in Chromium",
  ...inBrowser(async (t) => {
    const { url, send, ran, close } = await inspectedGateway(
      { alice: ALICE, bob: "bob-token" },
      (subagents) => void subagents.registerProvider(branchAsker()),
    );
    try {
      const browser = await Browser.launch();
      try {
        await browser.goto(`${url}/_inspect#token=${ALICE}`);
        await browser.waitFor('#conn[data-state="live"]');

        await t.step("a child and its grandchild appear, stream and complete", async () => {
          const id = await send(
            '@call subagent {"description": "count to three", "prompt": "@reply one two three"}\n@delay 1500\n@reply done: {{results}}',
          );
          await browser.waitFor(`${task(id)} .run .run pre:has-text("one two three")`);
          // The grandchild's text is on the page while its task still works.
          assert.equal(await browser.text(`${task(id)} .task-head .badge`), "working");
          assert.match(await browser.text(`${task(id)} .run .run .run-head`), /spawn.*depth 2/);
          await browser.waitFor(`${task(id)}[data-state="completed"]`);
          await browser.waitFor(
            `${task(id)} > ul > li[data-status="completed"] > pre:has-text("done: one two three")`,
          );
          assert.match(await browser.text(`${task(id)} > ul > li .usage`), /model calls/);
          await browser.click(`${task(id)} .task-head .id`);
          await browser.waitFor(`#detail h2:has-text("${id}")`);
          assert.match(await browser.text("#detail"), /@call subagent/);
          await browser.screenshot("tests/.out/inspector-tree.png");
        });

        await t.step(
          "a task's budget shows what it has left; one that runs out says so",
          async () => {
            const id = await send("@reply under a budget", {
              budget: { tokens: 1000, toolCalls: 3 },
            });
            await browser.waitFor(`${task(id)}[data-state="completed"] .budget:has-text("tokens")`);
            assert.match(
              await browser.text(`${task(id)} > .budget`),
              /^budget left: tokens \d{3} of 1000 · toolCalls 3 of 3$/,
            );
            // The run shows its own budget too (subagent/start carries it).
            assert.match(
              await browser.text(`${task(id)} .run-head .budget`),
              /^budget left: tokens \d{3} of 1000 · toolCalls 3 of 3$/,
            );
            const out = await send(
              '@call subagent {"description": "d", "prompt": "@reply hi"}\n@reply {{results}}',
              { budget: { toolCalls: 0 } },
            );
            await browser.waitFor(
              `${task(out)}[data-state="failed"] li[data-status="budget-exhausted"]`,
            );
            assert.match(await browser.text(`${task(out)} > .budget`), /toolCalls 0 of 0/);
            assert.match(await browser.text(`${task(out)} .run-head`), /BUDGET_EXHAUSTED/);
          },
        );

        await t.step("an approval is answered in the page and the child resumes", async () => {
          const id = await send('@call run_command {"command": "deno test"}\n@reply {{results}}');
          await browser.waitFor(
            `${task(id)}[data-state="input_required"] button[data-option-id="allow_once"]`,
          );
          assert.match(await browser.text(`${task(id)} .input`), /Run "deno test"/);
          await browser.screenshot("tests/.out/inspector-approval.png");
          await browser.click(`${task(id)} button[data-option-id="allow_once"]`);
          await browser.waitFor(`${task(id)}[data-state="completed"]`);
          await browser.waitFor(`${task(id)} pre:has-text("ran deno test")`);
          assert.deepEqual(ran, ["deno test"]);
          assert.equal(await browser.count(`${task(id)} .input`), 0);
        });

        await t.step("an answer to a request no longer pending gets a clear message", async () => {
          const id = await send('@call run_command {"command": "make"}\n@reply {{results}}');
          const box = `${task(id)} .input`;
          await browser.waitFor(`${box} button[data-option-id="reject_once"]`);
          // Keep the page's view of the request, then let someone else answer it.
          await browser.evaluate(
            `window.__stale = document.querySelector(${JSON.stringify(box)}).outerHTML`,
          );
          await browser.evaluate(
            `fetch(${
              JSON.stringify(`${url}/`)
            }, {method: "POST", headers: {"content-type": "application/json", "a2a-version": "1.0", authorization: "Bearer ${ALICE}"}, body: JSON.stringify({jsonrpc: "2.0", id: 1, method: "SendMessage", params: {message: {messageId: "other", role: "ROLE_USER", parts: [{text: "reject"}], taskId: ${
              JSON.stringify(id)
            }}}})}).then((r) => r.status)`,
          );
          await browser.waitFor(`${task(id)}[data-state="completed"]`);
          // The stale view, as a page that had not heard yet would show it: its button still there.
          await browser.evaluate(
            `document.querySelector(${
              JSON.stringify(task(id))
            } + " > .notice").insertAdjacentHTML("afterend", window.__stale)`,
          );
          await browser.click(`${box} button[data-option-id="allow_once"]`);
          await browser.waitFor(`${task(id)} > .notice:has-text("is no longer pending")`);
          assert.match(await browser.text(`${task(id)} > .notice`), /task .* is completed now/);
          assert.deepEqual(ran, ["deno test"], "the refused command never ran");
          await browser.screenshot("tests/.out/inspector-stale.png");
        });

        await t.step("a question is answered in the page and the child ends with it", async () => {
          const id = await send("go", undefined, "asks");
          const box = `${task(id)} .input`;
          await browser.waitFor(`${task(id)}[data-state="input_required"] .input input`);
          assert.match(await browser.text(box), /question: Which branch\?/);
          await browser.fill(`${box} input`, "main");
          await browser.click(`${box} button[data-action="text"]`);
          await browser.waitFor(`${task(id)}[data-state="completed"]`);
          await browser.click(`${task(id)} .task-head .id`);
          await browser.waitFor(`#detail pre:has-text("answered")`);
          assert.match(await browser.text("#detail"), /"text":"main"/);
        });

        await t.step("a hanging run is cancelled from the page", async () => {
          const id = await send("@hang");
          await browser.waitFor(`${task(id)}[data-state="working"] li[data-status="running"]`);
          await browser.click(`${task(id)} button[data-action="cancel"]`);
          await browser.waitFor(`${task(id)}[data-state="canceled"]`);
          await browser.waitFor(`${task(id)} li[data-status="aborted"]`);
          await browser.screenshot("tests/.out/inspector-cancel.png");
        });

        await t.step("a task's timeline draws its runs as a waterfall by depth", async () => {
          const id = await send(
            '@delay 200\n@call subagent {"description": "count", "prompt": "@delay 300\\n@reply one two"}\n@delay 200\n@reply done: {{results}}',
          );
          await browser.waitFor(`${task(id)}[data-state="completed"]`);
          await browser.click(`${task(id)} .task-head .id`);
          const rows = `#detail .timeline[data-task-id="${id}"] .tl-row`;
          await browser.waitFor(`${rows}[data-depth="1"]`);
          assert.equal(await browser.count(rows), 2, "the task's run and its child");
          assert.equal(await browser.count(`${rows}[data-depth="0"] .tl-bar`), 1);
          assert.match(
            await browser.text(`${rows}[data-depth="0"] .tl-info`),
            /^\d+(\.\d)? m?s · completed · tokens \d+ in \/ \d+ out$/,
          );
          assert.match(await browser.text(`${rows}[data-depth="1"] .tl-name`), /^spawn · count$/);
          assert.match(
            await browser.text(`${rows}[data-depth="1"] .tl-info`),
            /completed · tokens/,
          );
          // The child's bar starts after its parent's and ends before it (in % of the task's span).
          const place = (depth: number) =>
            browser.evaluate(
              `(() => { const b = document.querySelector(${
                JSON.stringify(`${rows}[data-depth="${depth}"] .tl-bar`)
              }); return [parseFloat(b.style.left), parseFloat(b.style.width)]; })()`,
            ) as Promise<[number, number]>;
          const [[l0, w0], [l1, w1]] = [await place(0), await place(1)];
          assert.ok(l1 > l0 && l1 + w1 < l0 + w0, JSON.stringify([l0, w0, l1, w1]));
          assert.ok(w1 > 10 && w1 < 90, `the child's bar is a part of the task's: ${w1}%`);
          // The title: the first words of its first prompt.
          assert.match(
            await browser.text(`${task(id)} .task-head .title`),
            /^@delay 200 @call subagent/,
          );

          // A run that waits for an approval: the wait is marked on its bar while it waits.
          const asks = await send(
            '@call run_command {"command": "echo timeline"}\n@reply {{results}}',
          );
          await browser.waitFor(`${task(asks)}[data-state="input_required"] .input button`);
          await browser.click(`${task(asks)} .task-head .id`);
          const wait = `#detail .timeline[data-task-id="${asks}"] .tl-row[data-depth="0"] .tl-wait`;
          await browser.waitFor(wait);
          await browser.click(`${task(asks)} button[data-option-id="allow_once"]`);
          await browser.waitFor(`${task(asks)}[data-state="completed"]`);
          await browser.waitFor(
            `#detail .timeline[data-task-id="${asks}"] .tl-info:has-text("for input")`,
          );
          assert.match(
            await browser.text(`#detail .timeline[data-task-id="${asks}"] .tl-info`),
            /completed · waited \d+(\.\d)? m?s for input · tokens \d+ in/,
          );
          await browser.screenshot("tests/.out/inspector-timeline.png");
        });
        const logs = await browser.logs();
        assert.deepEqual(logs.filter((l) => l.startsWith("pageerror")), []);
      } finally {
        await browser.close();
      }
    } finally {
      await close();
    }
  }),
});

Deno.test({
  name: "the inspector shows a child on another gateway, and that gateway's page shows the hop",
  ...inBrowser(async () => {
    const b = await inspectedGateway({ "gateway-a": "a-token" });
    let a: Inspected | undefined;
    try {
      a = await inspectedGateway({ alice: ALICE }, async (subagents) => {
        subagents.registerProvider(
          await createA2AProvider({
            url: b.url,
            name: "remote",
            provider: "spawn",
            token: "a-token",
          }),
        );
      });
      const browser = await Browser.launch();
      try {
        // On A: its task's child runs on B, through the A2A provider "remote".
        const id = await a.send("@reply words from far away", undefined, "remote");
        await browser.goto(`${a.url}/_inspect#token=${ALICE}`);
        await browser.waitFor(`${task(id)}[data-state="completed"]`);
        await browser.waitFor(
          `${task(id)} li[data-status="completed"] pre:has-text("words from far away")`,
        );
        assert.match(await browser.text(`${task(id)} .run-head`), /remote.*depth 1.*remote-\d+/);
        // It names where it runs: B's agent (its card's URL) and the task there.
        await browser.waitFor(`${task(id)} .run-head .remote`);
        assert.match(
          await browser.text(`${task(id)} .run-head .remote`),
          /^runs on .+ at http:\/\/127\.0\.0\.1:\d+\/\S* \(task [0-9a-f-]{8}…\)$/,
        );
        const runId = (await browser.text(`${task(id)} .run-head .id`)).trim();
        await browser.screenshot("tests/.out/inspector-remote-a.png");
        // On B, as the principal A calls with: the task that run started, with the hop.
        await browser.goto(`${b.url}/_inspect#token=a-token`);
        await browser.waitFor(`.task[data-state="completed"] .hop:has-text("from run ${runId}")`);
        assert.match(
          await browser.text(".task .hop"),
          /called over A2A from run remote-\d+ \(caller depth 0\)/,
        );
        await browser.waitFor(
          `.task li[data-status="completed"] pre:has-text("words from far away")`,
        );
        await browser.screenshot("tests/.out/inspector-remote-b.png");
      } finally {
        await browser.close();
      }
    } finally {
      await a?.close();
      await b.close();
    }
  }),
});

Deno.test({
  name:
    "behind a load balancer, each instance's page lists the principal's tasks another instance runs",
  ...inBrowser(async () => {
    const store = createMemoryTaskStore({ shared: true, leaseTtlMs: 10_000 });
    const tokens = { alice: ALICE, bob: "bob-token" };
    const a = await inspectedGateway(tokens, undefined, store);
    let b: Inspected | undefined;
    try {
      b = await inspectedGateway(tokens, undefined, store);
      const browser = await Browser.launch();
      try {
        const id = await a.send("@hang\nReview the billing module for rounding errors please");
        await browser.goto(`${b.url}/_inspect#token=${ALICE}`);
        await browser.waitFor('#conn[data-state="live"]');
        const card = `#others ${task(id)}[data-where="elsewhere"]`;
        await browser.waitFor(card);
        assert.equal(await browser.count("#empty"), 0, "never 'No tasks yet' while A runs one");
        assert.equal(await browser.text(`${card} .badge`), "working");
        assert.match(await browser.text(`${card} .title`), /^@hang Review the billing module/);
        assert.match(await browser.text(`${card} .where`), /runs on another instance/);
        assert.match(await browser.text("#summary"), /1 on other instances/);
        // Its history comes from the store; its runs are on A's page.
        await browser.click(`${card} .task-head .id`);
        await browser.waitFor(`#detail h2:has-text("${id}")`);
        assert.match(await browser.text("#detail .timeline"), /another instance runs it/);
        await browser.screenshot("tests/.out/inspector-elsewhere.png");
        // A's own page shows it live.
        await browser.goto(`${a.url}/_inspect#token=${ALICE}`);
        await browser.waitFor(`${task(id)}[data-state="working"] li[data-status="running"]`);
        assert.equal(await browser.count("#others"), 0);
        // Bob, on either instance, sees none of it.
        await browser.evaluate("sessionStorage.clear()");
        await browser.goto(`${b.url}/_inspect#token=bob-token`);
        await browser.waitFor('#conn[data-state="live"]');
        await browser.waitFor("#empty");
        assert.equal(await browser.count(task(id)), 0);
        const logs = await browser.logs();
        assert.deepEqual(logs.filter((l) => l.startsWith("pageerror")), []);
      } finally {
        await browser.close();
      }
    } finally {
      await b?.close();
      await a.close();
    }
  }),
});
