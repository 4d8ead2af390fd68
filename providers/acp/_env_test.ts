import assert from "node:assert/strict";
import process from "node:process";
import { createMemoryLogger } from "@seam/host";
import { childEnv, isSecretName } from "./_env.ts";

Deno.test("isSecretName() matches KEY, SECRET and TOKEN in any case", () => {
  for (const name of ["OPENAI_API_KEY", "aws_secret_access_key", "GITHUB_TOKEN", "Token"]) {
    assert.ok(isSecretName(name), name);
  }
  for (const name of ["PATH", "HOME", "LANG"]) assert.ok(!isSecretName(name), name);
});

Deno.test("childEnv() drops secret-looking names and adds the extra ones", () => {
  process.env["SEAM_ENV_TEST_SECRET"] = "s";
  process.env["SEAM_ENV_TEST_PLAIN"] = "p";
  try {
    const env = childEnv(
      { SEAM_ENV_TEST_SECRET: "again", EXTRA: "x" },
      createMemoryLogger().logger,
    );
    assert.equal(env.SEAM_ENV_TEST_PLAIN, "p");
    assert.equal(env.SEAM_ENV_TEST_SECRET, "again");
    assert.equal(env.EXTRA, "x");
    assert.ok(Object.keys(env).every((k) => !isSecretName(k) || k === "SEAM_ENV_TEST_SECRET"));
  } finally {
    delete process.env["SEAM_ENV_TEST_SECRET"];
    delete process.env["SEAM_ENV_TEST_PLAIN"];
  }
});
