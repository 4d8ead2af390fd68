import assert from "node:assert/strict";
import { textOf } from "@seam/host";
import type { SubagentResult } from "@seam/subagent";
import { subagentResultToToolResult, subagentToolWording } from "./mod.ts";

const text = (t: string) => [{ type: "text" as const, text: t }];

Deno.test("subagentResultToToolResult() maps every stop reason", async (t) => {
  await t.step("completed returns the output as it is", () => {
    const output = [...text("the answer"), {
      type: "resource" as const,
      uri: "file:///r.txt",
      text: "!",
    }];
    assert.deepEqual(subagentResultToToolResult({ output, stopReason: "completed" }), {
      content: output,
    });
  });
  await t.step("completed with a structured value appends it as JSON", () => {
    const result = subagentResultToToolResult({
      output: text("Done."),
      structured: { answer: 42, items: ["a"] },
      stopReason: "completed",
    });
    assert.equal(result.isError, undefined);
    const body = textOf(result.content);
    assert.match(body, /^Done\.\n\nStructured result \(JSON\):\n/);
    assert.deepEqual(JSON.parse(body.slice(body.indexOf("{"))), { answer: 42, items: ["a"] });
  });
  await t.step("completed with nothing says so", () => {
    const empty = subagentResultToToolResult({ output: [], stopReason: "completed" });
    assert.match(textOf(empty.content), /without any output/);
    const onlyStructured = subagentResultToToolResult({
      output: [],
      structured: null,
      stopReason: "completed",
    });
    assert.equal(textOf(onlyStructured.content), "Structured result (JSON):\nnull");
  });
  const failures: [SubagentResult["stopReason"] | "vanished", RegExp][] = [
    ["aborted", /^The subagent was cancelled before it finished/],
    ["error", /^The subagent failed/],
    ["max-tokens", /^The subagent hit the token limit/],
    ["refusal", /^The subagent declined the task/],
    ["vanished", /^The subagent ended abnormally \(stop reason "vanished"\)/],
  ];
  for (const [stopReason, headline] of failures) {
    await t.step(`${stopReason} is an error result, with any partial output`, () => {
      const bare = subagentResultToToolResult({ output: [], stopReason } as SubagentResult);
      assert.equal(bare.isError, true);
      assert.match(textOf(bare.content), headline);
      assert.doesNotMatch(textOf(bare.content), /before it stopped/);
      const partial = subagentResultToToolResult(
        { output: text("half of it"), stopReason } as SubagentResult,
      );
      assert.equal(partial.isError, true);
      assert.match(textOf(partial.content), headline);
      assert.match(textOf(partial.content), /Its output before it stopped:\nhalf of it$/);
    });
  }
});

Deno.test("subagentResultToToolResult() phrases result.error apart from the output", async (t) => {
  await t.step("the code and message follow the headline, the child's words after", () => {
    const result = subagentResultToToolResult({
      output: text("I got halfway"),
      stopReason: "error",
      error: { code: "CONNECTION_LOST", message: "the agent process exited (code 1)" },
    });
    assert.equal(result.isError, true);
    assert.equal(
      result.content,
      "The subagent failed before finishing its task.\n" +
        "What went wrong (CONNECTION_LOST): the agent process exited (code 1)\n\n" +
        "Its output before it stopped:\nI got halfway",
    );
  });
  const headlines: [string, RegExp][] = [
    ["START_FAILED", /^The subagent could not be started/],
    ["NO_STRUCTURED_RESULT", /^The subagent finished without submitting the structured result/],
    ["INVALID_STRUCTURED_RESULT", /^The subagent's structured result does not match/],
    ["INPUT_REQUIRED", /^The subagent stopped to ask for more input/],
    ["AUTH_REQUIRED", /^The subagent stopped because it needs authentication/],
    ["MY_OWN_CODE", /^The subagent failed before finishing its task\.\nWhat went wrong \(MY_OWN/],
  ];
  for (const [code, headline] of headlines) {
    await t.step(`${code} has its headline`, () => {
      const result = subagentResultToToolResult({
        output: [],
        stopReason: "error",
        error: { code, message: "details" },
      });
      assert.match(textOf(result.content), headline);
      assert.match(textOf(result.content), new RegExp(`\\(${code}\\): details$`));
    });
  }
  await t.step("an error on a cancelled run says why", () => {
    const result = subagentResultToToolResult({
      output: [],
      stopReason: "aborted",
      error: { code: "TIMEOUT", message: "no answer within 30000 ms" },
    });
    assert.match(
      textOf(result.content),
      /^The subagent was cancelled[^\n]*\nWhat went wrong \(TIMEOUT\): no answer within 30000 ms$/,
    );
  });
  await t.step("a long message is clipped for the model", () => {
    const result = subagentResultToToolResult({
      output: [],
      stopReason: "error",
      error: { code: "CHILD_FAILED", message: "x".repeat(5_000) },
    });
    const body = textOf(result.content);
    assert.ok(body.length < 2_200, String(body.length));
    assert.match(body, /… \(3000 more characters\)$/);
  });
});

Deno.test("subagentToolWording() words a fresh and an inheriting child", () => {
  const fresh = subagentToolWording(false);
  const inheriting = subagentToolWording(true);
  assert.match(fresh.description, /does not see this conversation/);
  assert.match(fresh.prompt, /does not see this conversation/);
  assert.match(inheriting.description, /already sees the completed turns/);
  assert.match(inheriting.prompt, /already sees the completed turns/);
  assert.equal(fresh.label, inheriting.label);
  assert.ok(Object.isFrozen(fresh) && Object.isFrozen(inheriting));
  assert.throws(() => subagentToolWording("yes" as never), TypeError);
});
