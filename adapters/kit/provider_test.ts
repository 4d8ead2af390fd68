import assert from "node:assert/strict";
import { createRootScope } from "@seam/host";
import {
  createSubagentService,
  type SubagentProgressInfo,
  type SubagentProvider,
} from "@seam/subagent";
import {
  checkProviderOptions,
  createDelegation,
  createFrameworkProvider,
  type FrameworkDriver,
  questionOf,
} from "./mod.ts";

/** The `echo` provider of the framework `Echo`, driven by `drive`. */
function echo(drive: FrameworkDriver): SubagentProvider {
  return createFrameworkProvider({
    name: "echo",
    framework: "Echo",
    capabilities: { outputSchema: false, depthLimit: true, toolFilter: false, persona: false },
    drive,
  });
}

Deno.test("createFrameworkProvider() starts each run with the driver, ids prefixed by the name", async () => {
  const root = createRootScope();
  const subagents = createSubagentService(root);
  subagents.registerProvider(echo((run) => {
    run.text("hel");
    return Promise.reject(new Error("lost"));
  }));
  assert.equal(subagents.getProvider("echo")?.inheritsParentContext, false);
  const run = subagents.start("echo", { prompt: "hi", parent: { id: "main", scope: root } });
  assert.match(run.id, /^echo-/);
  const result = await run.result;
  assert.equal(result.stopReason, "error");
  assert.deepEqual(result.error, { code: "CHILD_FAILED", message: "The Echo run failed: lost" });
  await run.dispose();
  await root.dispose();
});

Deno.test("checkProviderOptions() refuses each bad option by name, for the framework", async (t) => {
  const refuses = (options: unknown, pattern: RegExp) =>
    assert.throws(
      () => checkProviderOptions("Echo", options, ["name", "steps"], "echo"),
      (error) =>
        error instanceof TypeError && pattern.test(error.message) &&
        error.message.startsWith("Cannot create the Echo provider: "),
    );
  await t.step("not an object", () => refuses(3, /options must be an object, got 3/));
  await t.step(
    "an unknown key",
    () => refuses({ step: 1 }, /unknown option step \(known: name, steps\)/),
  );
  await t.step(
    "an empty name",
    () => refuses({ name: "" }, /options.name must be a non-empty string/),
  );
  await t.step("a name and a count it accepts", () => {
    const check = checkProviderOptions("Echo", { name: "e", steps: 2 }, ["name", "steps"], "echo");
    assert.equal(check.name, "e");
    assert.equal(check.positiveInteger("steps", 2), 2);
    assert.equal(check.positiveInteger("steps", undefined), undefined);
    for (const bad of [0, 1.5, "2", -1]) {
      assert.throws(
        () => check.positiveInteger("steps", bad),
        /options.steps must be a positive integer/,
      );
    }
    assert.throws(
      () => check.fail("no agent"),
      /^TypeError: Cannot create the Echo provider: no agent$/,
    );
  });
});

Deno.test("questionOf() asks the value, its first string key or the fallback, bounded", () => {
  const keys = ["question", "message"];
  const fallback = () => "fallback";
  assert.equal(questionOf("Which?", keys, fallback).message, "Which?");
  assert.equal(questionOf({ message: "m", question: "q" }, keys, fallback).message, "q");
  assert.equal(questionOf({ message: "m", question: 3 }, keys, fallback).message, "m");
  assert.equal(questionOf({ other: 1 }, keys, fallback).message, "fallback");
  assert.equal(questionOf("", keys, fallback).message, "(empty question)");
  assert.equal(questionOf("x".repeat(5_000), keys, fallback).message.length, 4_000);
});

Deno.test("Delegation.answer() words the outcome for the model; both progress listeners hear it", async () => {
  const root = createRootScope();
  const subagents = createSubagentService(root);
  subagents.registerProvider(echo((run) => {
    run.text(String(run.request.prompt[0]?.type === "text" ? run.request.prompt[0].text : ""));
    return Promise.resolve({ output: "done", stopReason: "completed" });
  }));
  const heard: string[] = [];
  const note = (who: string) => (progress: SubagentProgressInfo) =>
    heard.push(`${who} ${progress.kind}`);
  const delegation = createDelegation(
    root,
    { provider: "echo", onProgress: note("config") },
    "Echo",
  );
  assert.equal(
    await delegation.answer({ description: "Echo", prompt: "hi" }, { onProgress: note("call") }),
    "done",
  );
  assert.deepEqual(heard, ["call text", "config text"]);
  assert.match(
    await delegation.answer({ description: "Echo", prompt: " " }, { parent: undefined }),
    /^Error: Cannot delegate: /,
  );
  await root.dispose();
});

Deno.test("createFrameworkProvider() and createDelegation() refuse an unknown option", async () => {
  const capabilities = { outputSchema: false, depthLimit: true, toolFilter: false, persona: false };
  const drive: FrameworkDriver = () => Promise.resolve({ output: "", stopReason: "completed" });
  assert.throws(
    () =>
      createFrameworkProvider(
        { name: "e", framework: "Echo", capabilities, drive, inherits: true } as never,
      ),
    new TypeError(
      "Cannot create the Echo provider: unknown option inherits (known: name, framework, capabilities, drive)",
    ),
  );
  const root = createRootScope();
  createSubagentService(root).registerProvider(
    createFrameworkProvider({ name: "e", framework: "Echo", capabilities, drive }),
  );
  assert.throws(
    () => createDelegation(root, { provider: "e", tool: "x" } as never, "Echo"),
    (error) =>
      error instanceof TypeError &&
      /^Cannot make the Echo subagent tool: unknown option tool \(known: provider, toolName, .*onProgress\)$/
        .test(error.message),
  );
  await root.dispose();
});
