// The run inspector in a real browser: Debian's Chromium (headless, driven
// by playwright-core) loads the page from a gateway on loopback and follows
// a delegation tree live, shows a budget, answers a child's approval and a
// question, sees a stale answer refused in the page, cancels a hanging run,
// and follows a child on another gateway from both pages. Screenshots go to
// tests/.out/.
import assert from "node:assert/strict";
import { createHost, createMemoryLogger, createScriptedModel } from "@seam/host";
import {
  createSubagentService,
  SubagentInputs,
  type SubagentProvider,
  type SubagentResultInput,
  type SubagentService,
} from "@seam/subagent";
import { createA2AProvider } from "@seam/subagent-a2a";
import { createSpawnProvider } from "@seam/subagent-spawn";
import { installSubagentTool } from "@seam/tool-subagent";
import { createGateway, SEAM_EXTENSION_URI } from "../gateway/mod.ts";
import { Browser, CHROMIUM, hasChromium } from "./browser_support.ts";

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
function askingProvider(): SubagentProvider {
  let n = 0;
  return {
    name: "asks",
    capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
    inheritsParentContext: false,
    start(request) {
      const id = `asks-${++n}`;
      const inputs = new SubagentInputs(request.parent.scope, id);
      const result = (async (): Promise<SubagentResultInput> => {
        await Promise.resolve();
        const answer = await inputs.ask({ kind: "question", message: "Which branch?" });
        return { output: JSON.stringify(answer), stopReason: "completed" };
      })();
      return {
        id,
        started: Promise.resolve(),
        result,
        respond: (requestId, answer) => inputs.respond(requestId, answer),
        cancel: () => inputs.cancelAll("cancelled"),
        dispose: () => result.then(() => {}),
      };
    },
  };
}

const task = (id: string) => `[data-task-id="${id}"]`;

Deno.test({
  name:
    "the inspector page shows runs live, answers an approval and a question, and cancels a run in Chromium",
  ...inBrowser(async (t) => {
    const { url, send, ran, close } = await inspectedGateway(
      { alice: ALICE, bob: "bob-token" },
      (subagents) => void subagents.registerProvider(askingProvider()),
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
