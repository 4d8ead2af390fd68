import assert from "node:assert/strict";
import { subagentToolWording } from "@seam/tool-subagent";
import { DEMO_COMMAND, type DemoRun, modelFromEnv, runDemo } from "./demo.ts";

const FAST = { wordMs: 0, thinkMs: 5 };

function capture(): { write: (text: string) => void; text: () => string } {
  const chunks: string[] = [];
  return { write: (text) => void chunks.push(text), text: () => chunks.join("") };
}

/** The grandchild's one approval, as the root's scripted policy answered it. */
const ALLOWED = [{ title: `Run "${DEMO_COMMAND}"`, answer: "Allow once", allowed: true }];

/** The spawn child, the fork child and the spawn child's own child, each completed. */
function assertTree(tree: DemoRun, grandchildApprovals: unknown[] = ALLOWED): void {
  assert.equal(tree.id, "main");
  assert.equal(tree.status, "completed");
  assert.deepEqual(tree.children.map((c) => [c.provider, c.depth, c.status]), [
    ["spawn", 1, "completed"],
    ["fork", 1, "completed"],
  ]);
  const [spawn, fork] = tree.children;
  assert.equal(spawn.label, "Audit the open issues");
  assert.equal(fork.label, "Draft the release notes");
  assert.equal(fork.children.length, 0);
  assert.deepEqual(spawn.children.map((c) => [c.provider, c.depth, c.status, c.label]), [
    ["spawn", 2, "completed", "Check the flaky tests"],
  ]);
  assert.ok([spawn, fork, spawn.children[0]].every((run) => typeof run.durationMs === "number"));
  assert.deepEqual(spawn.children[0].approvals, grandchildApprovals);
  assert.ok([tree, spawn, fork].every((run) => run.approvals.length === 0));
  // The scripted model reports usage: the spawn child's subtree has its grandchild's calls in it.
  const grandchild = spawn.children[0];
  assert.equal(
    spawn.usage!.total.modelCalls,
    spawn.usage!.self.modelCalls + grandchild.usage!.total.modelCalls,
  );
  assert.ok(spawn.usage!.total.inputTokens >= grandchild.usage!.total.inputTokens);
}

Deno.test("runDemo() prints the delegation tree on the scripted model", async (t) => {
  await t.step("line-based updates when not a terminal", async () => {
    const out = capture();
    const report = await runDemo({ write: out.write, pace: FAST });
    const text = out.text();
    assertTree(report.tree);
    const [spawn, fork] = report.tree.children;
    const grandchild = spawn.children[0];

    assert.ok(!text.includes("\x1b"), "no escape codes in a pipe");
    assert.match(text, /^seam demo: /);
    assert.match(text, /model {4}scripted \(embedded, deterministic\)/);
    const lines = text.split("\n");
    const at = (pattern: RegExp) => {
      const index = lines.findIndex((line) => pattern.test(line));
      assert.notEqual(index, -1, `a line matches ${pattern}`);
      return index;
    };
    // Live updates, as the events arrive.
    const spawnStart = at(
      new RegExp(`▶ ${spawn.id} started "Audit the open issues" \\(spawn, depth 1, under main\\)`),
    );
    const forkStart = at(
      new RegExp(`▶ ${fork.id} started "Draft the release notes" \\(fork, depth 1, under main\\)`),
    );
    const grandStart = at(
      new RegExp(
        `▶ ${grandchild.id} started "Check the flaky tests" \\(spawn, depth 2, under ${spawn.id}\\)`,
      ),
    );
    const firstEnd = at(/ ✓ \S+ completed in /);
    assert.ok(Math.max(spawnStart, forkStart) < firstEnd, "both children ran in parallel");
    assert.ok(grandStart < at(new RegExp(`✓ ${spawn.id} completed in`)));
    // The grandchild asks, the root's handler answers, then the grandchild finishes.
    const asks = at(
      new RegExp(`\\? ${grandchild.id} asks approval: Run "deno test --filter flaky"$`),
    );
    const allowed = at(
      new RegExp(
        `✓ the root allowed ${grandchild.id}: Run "deno test --filter flaky" \\(Allow once\\)$`,
      ),
    );
    const grandEnd = at(new RegExp(`✓ ${grandchild.id} completed in`));
    assert.ok(grandStart < asks && asks < allowed && allowed < grandEnd);
    at(new RegExp(`✓ ${fork.id} completed in \\d+\\.\\ds: Release notes:`));
    at(new RegExp(`✓ ${grandchild.id} completed in \\d+\\.\\ds: Two tests are flaky`));

    // The final tree.
    const tree = at(/^delegation tree$/);
    assert.match(lines[tree + 1], /^main · parent agent · ✓ completed · \d+\.\ds$/);
    assert.ok(
      lines.slice(tree).includes('│       ? Run "deno test --filter flaky" → ✓ Allow once'),
      "the answer is in the tree, under the grandchild",
    );
    const shape = lines.slice(tree + 1).filter((line) => /\[.* · depth /.test(line));
    assert.equal(shape.length, 3);
    assert.match(
      shape[0],
      new RegExp(`^├─ Audit the open issues  \\[${spawn.id} · spawn · depth 1 · ✓ completed`),
    );
    assert.match(
      shape[1],
      new RegExp(
        `^│  └─ Check the flaky tests  \\[${grandchild.id} · spawn · depth 2 · ✓ completed`,
      ),
    );
    assert.match(
      shape[2],
      new RegExp(`^└─ Draft the release notes  \\[${fork.id} · fork · depth 1 · ✓ completed`),
    );

    // The final answer holds both children's reports.
    const answer = at(/^final answer$/);
    assert.equal(lines[answer + 1], "Plan for Friday:");
    assert.match(report.finalAnswer, /^Plan for Friday:\nThree issues block 0\.2/);
    assert.match(
      report.finalAnswer,
      /Flaky tests: Two tests are flaky on CI: the SSE reconnect test and the fork teardown test failed, then passed on a rerun\./,
      "the command ran once allowed",
    );
    assert.match(report.finalAnswer, /\nRelease notes: seam 0\.2 ships on Friday/);
    assert.ok(text.endsWith(`${report.finalAnswer}\n`));
  });

  await t.step("redraws in place on a terminal", async () => {
    const out = capture();
    const report = await runDemo({ write: out.write, live: true, color: true, pace: FAST });
    assertTree(report.tree);
    // Escape codes made visible, for the patterns.
    const text = out.text().replaceAll("\x1b", "ESC");
    assert.ok(text.includes("ESC[?25l") && text.includes("ESC[?25h"), "cursor hidden, shown");
    assert.match(text, /ESC\[\d+FESC\[0J/, "the tree is redrawn over itself");
    assert.doesNotMatch(text, /▶ .* started/, "no line-based updates");
    assert.match(text, /ESC\[32m✓ completed ?ESC\[0m/);
    assert.match(text, /\? Run "deno test --filter flaky" → ESC\[33m… waiting for approvalESC\[0m/);
    assert.match(text, /\? Run "deno test --filter flaky" → ESC\[32m✓ Allow onceESC\[0m/);
    assert.ok(text.endsWith(`final answer\n${report.finalAnswer}\n`));
  });
});

Deno.test("modelFromEnv() reads the model from the environment", () => {
  const env = (vars: Record<string, string>) => (name: string) => vars[name];
  assert.equal(modelFromEnv(env({})), undefined);
  assert.equal(modelFromEnv(env({ DEEPSEEK_API_KEY: "" })), undefined);
  const deepseek = modelFromEnv(env({ DEEPSEEK_API_KEY: "sk-1" }))!;
  assert.equal(deepseek.id, "deepseek-chat");
  assert.equal(deepseek.label, "deepseek-chat at https://api.deepseek.com");
  const openai = modelFromEnv(env({
    OPENAI_API_KEY: "sk-2",
    OPENAI_BASE_URL: "http://localhost:8080/v1",
    SEAM_MODEL: "local-model",
  }))!;
  assert.equal(openai.label, "local-model at http://localhost:8080/v1");
  assert.equal(modelFromEnv(env({ OPENAI_API_KEY: "sk-3" }))!.id, "gpt-4o-mini");
});

/** An OpenAI-compatible server in a function: plays every agent of the demo. */
function fakeServer(seen: { url: string; auth: string | null; body: Record<string, unknown> }[]) {
  const sse = (chunks: unknown[]) =>
    new Response(
      chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join("") + "data: [DONE]\n\n",
      { headers: { "content-type": "text/event-stream" } },
    );
  const say = (text: string) =>
    sse([
      ...text.split(/(?<= )/).map((part) => ({ choices: [{ delta: { content: part } }] })),
      { choices: [{ delta: {}, finish_reason: "stop" }] },
    ]);
  const call = (calls: { name: string; args: unknown }[]) =>
    sse([
      {
        choices: [{
          delta: {
            tool_calls: calls.map((c, index) => ({
              index,
              id: `call_${index}`,
              type: "function",
              function: { name: c.name, arguments: JSON.stringify(c.args) },
            })),
          },
        }],
      },
      { choices: [{ delta: {}, finish_reason: "tool_calls" }] },
    ]);
  return async (request: Request): Promise<Response> => {
    const body = await request.json();
    seen.push({ url: request.url, auth: request.headers.get("authorization"), body });
    const messages = body.messages as { role: string; content: string | null }[];
    const system = messages[0].role === "system" ? messages[0].content ?? "" : "";
    const last = messages[messages.length - 1];
    if (last.role === "tool") {
      const results = messages.filter((m) => m.role === "tool").slice(-2).map((m) => m.content);
      return say(`Combined: ${results.join(" | ")}`);
    }
    const prompt = String(last.content);
    if (prompt.startsWith("Context for later")) return say("Noted.");
    if (system.startsWith("You are main,")) {
      return call([
        { name: "subagent", args: { description: "Audit the open issues", prompt: "AUDIT" } },
        {
          name: "subagent_fork",
          args: { description: "Draft the release notes", prompt: "NOTES" },
        },
      ]);
    }
    if (prompt === "AUDIT") {
      return call([{
        name: "subagent",
        args: { description: "Check the flaky tests", prompt: "FLAKY" },
      }]);
    }
    return say(`answer to ${prompt}`);
  };
}

Deno.test("runDemo() runs the same delegation on an OpenAI-compatible model", async () => {
  const seen: { url: string; auth: string | null; body: Record<string, unknown> }[] = [];
  const model = modelFromEnv((name) => name === "DEEPSEEK_API_KEY" ? "sk-test" : undefined, {
    fetch: fakeServer(seen),
  });
  assert.ok(model);
  const out = capture();
  const report = await runDemo({ write: out.write, model });
  assertTree(report.tree, []);
  assert.equal(report.finalAnswer, "Combined: Combined: answer to FLAKY | answer to NOTES");
  assert.match(out.text(), /model {4}deepseek-chat at https:\/\/api\.deepseek\.com/);
  assert.ok(seen.every((s) => s.url === "https://api.deepseek.com/chat/completions"));
  assert.ok(seen.every((s) => s.auth === "Bearer sk-test" && s.body.model === "deepseek-chat"));
  // The parent was offered both tools, each worded for its provider.
  const tools = (seen[0].body.tools as { function: { name: string; description: string } }[])
    .map((t) => t.function);
  assert.deepEqual(tools.map((t) => t.name), ["subagent", "subagent_fork", "run_command"]);
  assert.equal(tools[0].description, subagentToolWording(false).description);
  assert.equal(tools[1].description, subagentToolWording(true).description);
  // The fork child saw the parent's completed context turn; the spawn child did not.
  const notes = seen.find((s) =>
    (s.body.messages as { content: string }[]).at(-1)?.content === "NOTES"
  )!;
  assert.ok((notes.body.messages as { content: string }[]).some((m) => m.content === "Noted."));
  const audit = seen.find((s) =>
    (s.body.messages as { content: string }[]).at(-1)?.content === "AUDIT"
  )!;
  assert.ok(!(audit.body.messages as { content: string }[]).some((m) => m.content === "Noted."));
});
