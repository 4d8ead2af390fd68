import assert from "node:assert/strict";
import { parseServeArgs, type ServeConfig, UsageError } from "./_serve_config.ts";

const env = (vars: Record<string, string>) => (name: string) => vars[name];

Deno.test("parseServeArgs() picks the model from the arguments and the environment", async (t) => {
  const parse = (args: string[], vars: Record<string, string> = {}) =>
    parseServeArgs(args, env(vars)) as ServeConfig;

  await t.step("the scripted model without a key, or when asked", () => {
    assert.equal(parse([]).model, "scripted");
    assert.equal(parse([]).adapter.name, "scripted");
    assert.equal(parse(["--model", "scripted"], { DEEPSEEK_API_KEY: "k" }).model, "scripted");
  });

  await t.step("DeepSeek first, then OpenAI-compatible, SEAM_MODEL or --model naming it", () => {
    const deepseek = parse([], { DEEPSEEK_API_KEY: "k", OPENAI_API_KEY: "o" });
    assert.equal(deepseek.model, "deepseek-chat");
    assert.equal(deepseek.label, "deepseek-chat at https://api.deepseek.com");
    assert.equal(deepseek.adapter.name, "openai-compatible");
    assert.equal(
      parse([], { DEEPSEEK_API_KEY: "k", SEAM_MODEL: "deepseek-reasoner" }).model,
      "deepseek-reasoner",
    );
    const openai = parse(["--model=gpt-4.1"], {
      OPENAI_API_KEY: "o",
      OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
      SEAM_MODEL: "ignored",
    });
    assert.equal(openai.label, "gpt-4.1 at http://127.0.0.1:9/v1");
    assert.equal(
      parse([], { OPENAI_API_KEY: "o" }).label,
      "gpt-4o-mini at https://api.openai.com/v1",
    );
  });

  await t.step("--log-level, default warn", () => {
    assert.equal(parse([]).logLevel, "warn");
    assert.equal(parse(["--log-level", "debug"]).logLevel, "debug");
  });

  await t.step("--help", () => assert.equal(parseServeArgs(["--help"], env({})), "help"));
});

Deno.test("parseServeArgs() rejects bad arguments with a UsageError", () => {
  const cases: [string[], RegExp][] = [
    [["--verbose"], /unknown argument "--verbose"/],
    [["serve"], /unknown argument "serve"/],
    [["--model"], /--model needs a value/],
    [["--model="], /--model needs a value/],
    [["--log-level", "loud"], /--log-level must be one of debug, info, warn, error, silent/],
    [["--model", "gpt-4o"], /--model gpt-4o needs DEEPSEEK_API_KEY or OPENAI_API_KEY/],
  ];
  for (const [args, message] of cases) {
    assert.throws(
      () => parseServeArgs(args, env({})),
      (e: unknown) => e instanceof UsageError && message.test(e.message),
      args.join(" "),
    );
  }
});
