// The compatibility checks fail when they should: each is run as CI runs it,
// against fixtures that break one rule each (compat/testdata/).
import assert from "node:assert/strict";

async function runScript(
  script: string,
  permissions: string[],
  args: string[],
): Promise<{ code: number; output: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", ...permissions, script, ...args],
    cwd: new URL("..", import.meta.url),
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code, output: decoder.decode(stdout) + decoder.decode(stderr) };
}

Deno.test("neutral_check.ts fails a Deno API, a node: import and an import-time permission", async (t) => {
  const { code, output } = await runScript(
    "compat/neutral_check.ts",
    ["--allow-read", "--allow-write", "--allow-run"],
    [
      "compat/testdata/deno_namespace.ts",
      "compat/testdata/edge_node_import.ts",
      "compat/testdata/import_time_env.ts",
    ],
  );
  assert.equal(code, 1, output);
  await t.step("Deno.* without deno.ns is a type error", () => {
    assert.match(output, /do not type-check with lib es2023 \+ webworker/);
    assert.match(output, /Cannot find name 'Deno'[\s\S]*testdata\/deno_namespace\.ts/);
  });
  await t.step("a node: import in the module graph is reported", () => {
    assert.match(output, /compat\/testdata\/edge_node_import\.ts imports node:events/);
  });
  await t.step("reading the environment while imported needs a permission", () => {
    assert.match(output, /need a permission while being imported/);
    assert.match(output, /NotCapable: Requires env access to "HOME"/);
  });
});

Deno.test("edge_check.ts fails top-level timers, I/O, randomness and node: imports", async (t) => {
  const fixtures = ["edge_timer", "edge_fetch", "edge_random", "edge_node_import", "edge_ok"];
  const { code, output } = await runScript(
    "compat/edge_check.ts",
    ["--allow-read", "--allow-write=compat/.out", "--allow-run"],
    [
      ...fixtures.map((name) => `compat/testdata/${name}.ts`),
      "compat/testdata/entries.md#An edge entry",
      "compat/testdata/entries.md#A Node program",
    ],
  );
  assert.equal(code, 1, output);
  await t.step("a timer at top level", () => {
    assert.match(output, /FAIL compat\/testdata\/edge_timer\.ts\n {2}- setTimeout called/);
  });
  await t.step("I/O at top level", () => {
    assert.match(output, /FAIL compat\/testdata\/edge_fetch\.ts\n {2}- fetch called/);
  });
  await t.step("a random value at top level, even when the module swallows the error", () => {
    assert.match(output, /FAIL compat\/testdata\/edge_random\.ts\n {2}- crypto\.randomUUID called/);
  });
  await t.step("a node: import", () => {
    assert.match(
      output,
      /FAIL compat\/testdata\/edge_node_import\.ts\n {2}- imports "node:events"/,
    );
  });
  await t.step("a handler that does all of it per request passes", () => {
    assert.match(output, /ok compat\/testdata\/edge_ok\.ts/);
    assert.doesNotMatch(output, /FAIL compat\/testdata\/edge_ok\.ts/);
  });
  await t.step("an entry printed in Markdown is checked as printed", () => {
    assert.match(output, /ok compat\/testdata\/entries\.md#An edge entry/);
    assert.match(
      output,
      /FAIL compat\/testdata\/entries\.md#A Node program\n {2}- imports "node:events"/,
    );
  });
});

Deno.test("serve_check.ts fails an entry that needs more than the network", async () => {
  const { code, output } = await runScript(
    "compat/serve_check.ts",
    ["--allow-read", "--allow-write=compat/.out", "--allow-run", "--allow-net=127.0.0.1"],
    [
      "compat/testdata/edge_ok.ts=/healthz",
      "compat/testdata/serve_needs_env.ts",
      "compat/testdata/entries.md#An edge entry=/",
    ],
  );
  assert.equal(code, 1, output);
  assert.match(output, /ok compat\/testdata\/edge_ok\.ts \(GET \/healthz/);
  assert.match(output, /ok compat\/testdata\/entries\.md#An edge entry \(GET \/ /);
  assert.match(output, /FAIL compat\/testdata\/serve_needs_env\.ts\n {2}deno serve exited with 1/);
  assert.match(output, /NotCapable: Requires env access to "GREETING"/);
});

Deno.test("workerd_check.ts fails an entry workerd refuses or that does not complete a task", async () => {
  const { code, output } = await runScript(
    "compat/workerd_check.ts",
    ["--allow-read", "--allow-write=compat/.out", "--allow-run", "--allow-env"],
    ["compat/testdata/workerd_random.ts", "compat/testdata/edge_ok.ts"],
  );
  assert.equal(code, 1, output);
  assert.match(
    output,
    /FAIL compat\/testdata\/workerd_random\.ts\n {2}- workerd failed: [\s\S]*Disallowed operation called within global scope/,
  );
  assert.match(output, /FAIL compat\/testdata\/edge_ok\.ts\n {2}- SendMessage did not complete/);
});
