// The project lint: size budgets and no recognising an error by its message.
// Loaded by the root deno.json ("lint.plugins"), so `deno lint` (and thus
// `deno task check` and CI) fails on a violation. The budgets and their
// allow-list live in budgets.ts.
import { type Allowance, ALLOWED, BUDGETS } from "./budgets.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

/** The path from the repository root, or the name as given (fixtures, tests). */
export function relativePath(filename: string): string {
  const path = filename.replaceAll("\\", "/");
  return path.startsWith(ROOT) ? path.slice(ROOT.length) : path;
}

/**
 * Tests, their fixtures and helpers under tests/: not held to the budgets (a
 * test lists cases). tests/.out/ is scratch output, not tests.
 */
export function isTestFile(path: string): boolean {
  if (path.startsWith("tests/.out/")) path = path.slice("tests/.out/".length);
  return /(^|\/)(tests|testdata)\//.test(path) || /_test\.(ts|tsx|js|mjs)$/.test(path);
}

function allowed(
  kind: Allowance["kind"],
  path: string,
  name: string | undefined,
  allowances: readonly Allowance[],
): boolean {
  return allowances.some((a) => a.kind === kind && a.file === path && a.name === name);
}

function linesOf(text: string, range: [number, number]): number {
  let lines = 1;
  for (let i = range[0]; i < range[1]; i++) if (text.charCodeAt(i) === 10) lines++;
  return lines;
}

// deno-lint-ignore no-explicit-any
type Node = any;

function keyName(key: Node): string | undefined {
  if (!key) return undefined;
  if (key.type === "Identifier") return key.name;
  if (key.type === "PrivateIdentifier") return `#${key.name}`;
  if (key.type === "Literal") return String(key.value);
  return undefined;
}

function className(node: Node): string | undefined {
  if (node.id) return node.id.name;
  if (node.parent?.type === "VariableDeclarator") return keyName(node.parent.id);
  return undefined;
}

/** The name a function is known by: `f`, `Class.method`, `Class.#method`, or a test's title. */
export function functionName(node: Node): string {
  if (node.id?.name) return node.id.name;
  const parent = node.parent;
  switch (parent?.type) {
    case "MethodDefinition":
    case "PropertyDefinition": {
      const owner = parent.parent?.parent; // ClassBody -> Class
      const name = keyName(parent.key) ?? "(computed)";
      const cls = owner ? className(owner) : undefined;
      return cls ? `${cls}.${name}` : name;
    }
    case "VariableDeclarator":
    case "Property":
      return keyName(parent.id ?? parent.key) ?? "(anonymous)";
    case "CallExpression": {
      const title = parent.arguments.find((a: Node) => a.type === "Literal");
      return typeof title?.value === "string" ? title.value : "(anonymous)";
    }
  }
  return "(anonymous)";
}

function isMessage(node: Node): boolean {
  return node?.type === "MemberExpression" && !node.computed &&
    node.property?.type === "Identifier" && node.property.name === "message";
}

/** What a message may be compared with without reading its words: "", undefined, null. */
function isEmptyValue(node: Node): boolean {
  return (node.type === "Literal" && (node.value === "" || node.value === null)) ||
    (node.type === "Identifier" && node.name === "undefined");
}

const TEXT_TESTS = new Set(["startsWith", "endsWith", "includes", "indexOf", "match", "search"]);

/** A rule holding one kind of node (functions, classes) to a budget of lines. */
function sizeRule(
  kind: "function" | "class",
  budget: number,
  nodes: readonly string[],
  nameOf: (node: Node) => string,
  hint: string,
  allowances: readonly Allowance[],
): Deno.lint.Rule {
  return {
    create(ctx) {
      const path = relativePath(ctx.filename);
      if (isTestFile(path)) return {};
      const check = (node: Node) => {
        const lines = linesOf(ctx.sourceCode.text, node.range);
        if (lines <= budget) return;
        const name = nameOf(node);
        if (allowed(kind, path, name, allowances)) return;
        ctx.report({
          node,
          message: `${kind} ${name} is ${lines} lines, over the budget of ${budget}`,
          hint,
        });
      };
      return Object.fromEntries(nodes.map((type) => [type, check]));
    },
  };
}

/** The plugin, with the budgets and allow-list it checks (a fixture test passes its own). */
export function budgetPlugin(allowances: readonly Allowance[] = ALLOWED): Deno.lint.Plugin {
  const functionRule = sizeRule(
    "function",
    BUDGETS.functionLines,
    ["FunctionDeclaration", "FunctionExpression", "ArrowFunctionExpression"],
    functionName,
    "Split it: move a pure decision (a policy, a validation) or one phase into its own named " +
      "function. Only a conformance suite or the demo may be allow-listed, in " +
      "compat/budgets/budgets.ts.",
    allowances,
  );
  const classRule = sizeRule(
    "class",
    BUDGETS.classLines,
    ["ClassDeclaration", "ClassExpression"],
    (node) => className(node) ?? "(anonymous)",
    "Give one of its concerns its own class or pure module (a policy, a table, a codec) and " +
      "hold it as a #private field. Budgets: compat/budgets/budgets.ts.",
    allowances,
  );
  const fileRule: Deno.lint.Rule = {
    create(ctx) {
      const path = relativePath(ctx.filename);
      return {
        Program(node) {
          if (isTestFile(path)) return;
          const text = ctx.sourceCode.text;
          const lines = linesOf(text, [0, text.length]) - (text.endsWith("\n") ? 1 : 0);
          if (lines <= BUDGETS.fileLines) return;
          if (allowed("file", path, undefined, allowances)) return;
          ctx.report({
            node,
            message: `${path} is ${lines} lines, over the budget of ${BUDGETS.fileLines}`,
            hint: "Split it by concern into files named for what they hold (`_thing.ts`). " +
              "Budgets: compat/budgets/budgets.ts.",
          });
        },
      };
    },
  };
  const messageRule: Deno.lint.Rule = {
    create(ctx) {
      const path = relativePath(ctx.filename);
      if (isTestFile(path) || allowed("message", path, undefined, allowances)) return {};
      const report = (node: Node) =>
        ctx.report({
          node,
          message: "an error recognised by its message text",
          hint: "Compare a stable `code` (or `instanceof`) instead: wording changes. For a " +
            "foreign error that has no code, add `// deno-lint-ignore seam/no-message-compare` " +
            "with the reason.",
        });
      return {
        BinaryExpression(node) {
          if (!["===", "!==", "==", "!="].includes(node.operator)) return;
          if (isMessage(node.left) && !isEmptyValue(node.right)) report(node);
          else if (isMessage(node.right) && !isEmptyValue(node.left)) report(node);
        },
        CallExpression(node) {
          const callee = node.callee;
          if (callee.type !== "MemberExpression" || callee.property.type !== "Identifier") return;
          const method = callee.property.name;
          if (TEXT_TESTS.has(method) && isMessage(callee.object)) report(node);
          else if (method === "test" && node.arguments.some(isMessage)) report(node);
        },
      };
    },
  };
  return {
    name: "seam",
    rules: {
      "function-lines": functionRule,
      "class-lines": classRule,
      "file-lines": fileRule,
      "no-message-compare": messageRule,
    },
  };
}

export default budgetPlugin();
