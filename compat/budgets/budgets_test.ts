// The project lint fails as CI runs it: `deno lint` with the plugin, and the
// cycle check, each on a fixture written to break one rule at a time.
import assert from "node:assert/strict";
import { budgetPlugin } from "./lint_plugin.ts";
import { ALLOWED, BUDGETS } from "./budgets.ts";
import { circles, cyclesOf, type ModuleGraph, moduleGraph, sourceFiles } from "./cycles.ts";

const ROOT = new URL("../../", import.meta.url);
const OUT = new URL("tests/.out/budgets_fixture/", ROOT);
const decoder = new TextDecoder();

function statements(count: number, indent = "  "): string {
  return Array.from({ length: count }, (_, i) => `${indent}total += ${i};`).join("\n");
}

/** A function `lines` long, first line to last. */
function functionOf(name: string, lines: number): string {
  return `export function ${name}(): number {\n  let total = 0;\n${
    statements(lines - 4)
  }\n  return total;\n}\n`;
}

/** A class `lines` long, first line to last. */
function classOf(name: string, lines: number): string {
  const fields = Array.from({ length: lines - 2 }, (_, i) => `  f${i} = ${i};`).join("\n");
  return `export class ${name} {\n${fields}\n}\n`;
}

const FIXTURES: Record<string, string> = {
  "long_function.ts": functionOf("tooLong", BUDGETS.functionLines + 1) +
    functionOf("justRight", BUDGETS.functionLines),
  "long_class.ts": classOf("TooLong", BUDGETS.classLines + 2) +
    classOf("JustRight", BUDGETS.classLines),
  "long_file.ts": `export const lines: number[] = [\n${
    Array.from({ length: BUDGETS.fileLines }, (_, i) => `  ${i},`).join("\n")
  }\n];\n`,
  "message.ts": `export function isMine(error: Error): boolean {
  return error.message === "Cannot go: stopped" || error.message.startsWith("Cannot") ||
    /stopped/.test(error.message);
}
export function hasText(error: Error): boolean {
  return error.message !== "" && error.message !== undefined;
}
`,
  "long_test.ts": functionOf("longTestHelper", BUDGETS.functionLines + 10),
};

async function lintFixtures(): Promise<{ code: number; output: string }> {
  await Deno.remove(OUT, { recursive: true }).catch(() => {});
  await Deno.mkdir(OUT, { recursive: true });
  for (const [name, text] of Object.entries(FIXTURES)) {
    await Deno.writeTextFile(new URL(name, OUT), text);
  }
  const plugin = new URL("compat/budgets/lint_plugin.ts", ROOT).href;
  await Deno.writeTextFile(
    new URL("deno.json", OUT),
    JSON.stringify({ lint: { plugins: [plugin], rules: { exclude: ["no-unused-vars"] } } }),
  );
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["lint", "--config", new URL("deno.json", OUT).pathname, OUT.pathname],
    cwd: OUT,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  await Deno.remove(OUT, { recursive: true });
  return { code, output: decoder.decode(stdout) + decoder.decode(stderr) };
}

Deno.test("deno lint with the budget plugin fails each budget and says what to do", async (t) => {
  const { code, output } = await lintFixtures();
  assert.equal(code, 1, output);
  await t.step("a function over 150 lines, not one of 150", () => {
    assert.match(output, /seam\/function-lines.*function tooLong is 151 lines, over the budget/);
    assert.match(output, /hint: Split it: move a pure decision/);
    assert.doesNotMatch(output, /justRight/);
  });
  await t.step("a class over 400 lines, not one of 400", () => {
    assert.match(output, /seam\/class-lines.*class TooLong is 402 lines, over the budget of 400/);
    assert.doesNotMatch(output, /JustRight/);
  });
  await t.step("a file over 600 lines", () => {
    assert.match(output, /seam\/file-lines.*long_file\.ts is 602 lines, over the budget of 600/);
  });
  await t.step(
    "an error told by its message: ===, startsWith, a RegExp; not an emptiness check",
    () => {
      const hits = output.match(/error\[seam\/no-message-compare\]/g) ?? [];
      assert.equal(hits.length, 3, output);
      assert.match(output, /hint: Compare a stable `code`/);
    },
  );
  await t.step("a test file is not held to the budgets", () => {
    assert.doesNotMatch(output, /longTestHelper/);
  });
});

Deno.test("the budget plugin lets an allow-listed function, class or file pass", () => {
  const source = functionOf("suite", BUDGETS.functionLines + 5) + classOf("Big", 402);
  const none = Deno.lint.runPlugin(budgetPlugin([]), "pkg/suite.ts", source);
  assert.deepEqual(none.map((d) => d.id).sort(), ["seam/class-lines", "seam/function-lines"]);
  const allowed = Deno.lint.runPlugin(
    budgetPlugin([
      { file: "pkg/suite.ts", name: "suite", kind: "function", until: "a suite" },
      { file: "pkg/suite.ts", name: "Big", kind: "class", until: "an issue" },
    ]),
    "pkg/suite.ts",
    source,
  );
  assert.deepEqual(allowed, []);
});

Deno.test("the budget plugin names a method by its class", () => {
  const body = statements(BUDGETS.functionLines, "    ");
  const source = `export class Loop {\n  follow(): number {\n    let total = 0;\n${body}\n` +
    `    return total;\n  }\n}\n`;
  const [diagnostic] = Deno.lint.runPlugin(budgetPlugin([]), "pkg/loop.ts", source);
  assert.match(diagnostic.message, /^function Loop\.follow is 154 lines/);
});

function graphOf(
  value: Record<string, string[]>,
  type: Record<string, string[]> = {},
): ModuleGraph {
  const names = new Set([...Object.keys(value), ...Object.keys(type)]);
  return new Map(
    [...names].map((n) => [n, { value: new Set(value[n] ?? []), type: new Set(type[n] ?? []) }]),
  );
}

Deno.test("cyclesOf() tells value cycles from circles that only type imports close", () => {
  const graph = graphOf(
    { "a.ts": ["b.ts"], "b.ts": ["a.ts"], "c.ts": ["d.ts"], "e.ts": ["e.ts"] },
    { "d.ts": ["c.ts"], "f.ts": ["g.ts"] },
  );
  assert.deepEqual(cyclesOf(graph), {
    value: [["a.ts", "b.ts"], ["e.ts"]],
    typeOnly: [["c.ts", "d.ts"]],
  });
  assert.deepEqual(circles(new Map([["x", new Set(["y"])], ["y", new Set()]])), []);
});

Deno.test("cycles.ts fails a value import cycle and counts type-only ones", async () => {
  const dir = new URL("cycles/", OUT);
  await Deno.mkdir(dir, { recursive: true });
  const files: Record<string, string> = {
    "a.ts": 'import { b } from "./b.ts";\nexport const a = (): number => b() + 1;\n',
    "b.ts": 'import { a } from "./a.ts";\nexport const b = (): number => 0 * a.length;\n',
    "c.ts": 'import type { D } from "./d.ts";\nexport interface C { d?: D }\n',
    "d.ts": 'import type { C } from "./c.ts";\nexport interface D { c?: C }\n',
  };
  for (const [name, text] of Object.entries(files)) {
    await Deno.writeTextFile(new URL(name, dir), text);
  }
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-read",
      "--allow-write=compat/.out",
      "--allow-run",
      "compat/budgets/cycles.ts",
      dir.pathname,
    ],
    cwd: ROOT,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  await Deno.remove(OUT, { recursive: true });
  const output = decoder.decode(stdout) + decoder.decode(stderr);
  assert.equal(code, 1, output);
  assert.match(output, /value import cycle: a\.ts <-> b\.ts/);
  assert.match(output, /type-only import cycles: 1, 1 not allow-listed/);
  assert.match(output, /c\.ts <-> d\.ts/);
});

Deno.test("every allow-list entry still names a place over its budget (remove the others)", async () => {
  const stale: string[] = [];
  const lintable = ALLOWED.filter((a) => a.kind !== "type-cycle");
  for (const allowance of lintable) {
    const source = await Deno.readTextFile(new URL(allowance.file, ROOT));
    const found = Deno.lint.runPlugin(budgetPlugin([]), allowance.file, source);
    const rule = {
      function: "seam/function-lines",
      class: "seam/class-lines",
      file: "seam/file-lines",
      message: "seam/no-message-compare",
    }[allowance.kind as Exclude<typeof allowance.kind, "type-cycle">];
    const named = allowance.name === undefined
      ? found.some((d) => d.id === rule)
      : found.some((d) =>
        d.id === rule && d.message.startsWith(`${allowance.kind} ${allowance.name} `)
      );
    if (!named) stale.push(`${allowance.kind} ${allowance.name ?? ""} in ${allowance.file}`);
  }
  const scratch = new URL("tests/.out/budgets_graph/", ROOT);
  const graph = await moduleGraph(ROOT, await sourceFiles(ROOT), scratch);
  await Deno.remove(scratch, { recursive: true });
  const { typeOnly } = cyclesOf(graph);
  for (const allowance of ALLOWED.filter((a) => a.kind === "type-cycle")) {
    if (!typeOnly.some((cycle) => cycle.includes(allowance.file))) {
      stale.push(`type-cycle through ${allowance.file}`);
    }
  }
  assert.deepEqual(stale, [], "no longer over budget: remove from compat/budgets/budgets.ts");
});
