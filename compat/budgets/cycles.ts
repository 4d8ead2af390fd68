// The import-cycle check, run by `deno task check:cycles` (part of `deno task check`):
// no value import cycle among the project's modules, and at most
// BUDGETS.typeOnlyCycles circles that only `import type` closes.
// The module graph is Deno's own (`deno info --json`), over every module of the
// tree; `deno run --allow-read --allow-write=compat/.out --allow-run compat/budgets/cycles.ts [dir]`.
import { ALLOWED, BUDGETS } from "./budgets.ts";

/** A module graph: a module's path -> the paths it imports, by kind of import. */
export type ModuleGraph = Map<string, { value: Set<string>; type: Set<string> }>;

/** The strongly connected components with more than one module (or a module importing itself). */
export function circles(edges: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  // Tarjan's algorithm, iterative so that a deep graph cannot overflow the stack.
  for (const start of edges.keys()) {
    if (index.has(start)) continue;
    const work: Array<{ node: string; out: Iterator<string> }> = [];
    const enter = (node: string) => {
      index.set(node, next);
      low.set(node, next++);
      stack.push(node);
      onStack.add(node);
      work.push({ node, out: (edges.get(node) ?? new Set()).values() });
    };
    enter(start);
    while (work.length > 0) {
      const top = work[work.length - 1];
      const step = top.out.next();
      if (!step.done) {
        const to = step.value;
        if (!index.has(to)) enter(to);
        else if (onStack.has(to)) low.set(top.node, Math.min(low.get(top.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(top.node)!));
      }
      if (low.get(top.node) !== index.get(top.node)) continue;
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== top.node);
      if (component.length > 1 || edges.get(top.node)?.has(top.node)) found.push(component.sort());
    }
  }
  return found.sort((a, b) => a[0].localeCompare(b[0]));
}

/** The value cycles, and the circles that only type imports close. */
export function cyclesOf(graph: ModuleGraph): { value: string[][]; typeOnly: string[][] } {
  const value = new Map([...graph].map(([from, to]) => [from, to.value]));
  const all = new Map(
    [...graph].map(([from, to]) => [from, new Set([...to.value, ...to.type])]),
  );
  const valueCycles = circles(value);
  const inValueCycle = new Set(valueCycles.flat());
  // A circle of the whole graph is type-only when it is not (part of) a value cycle.
  const typeOnly = circles(all).filter((c) => !c.every((m) => inValueCycle.has(m)));
  return { value: valueCycles, typeOnly };
}

interface DenoInfo {
  modules: Array<{
    specifier: string;
    dependencies?: Array<{ code?: { specifier: string }; type?: { specifier: string } }>;
  }>;
}

/** The graph of the modules under `root` (a file URL ending in `/`), as Deno resolves them. */
export async function moduleGraph(root: URL, files: string[], scratch: URL): Promise<ModuleGraph> {
  await Deno.mkdir(scratch, { recursive: true });
  const entry = new URL("cycles_entry.ts", scratch);
  await Deno.writeTextFile(
    entry,
    files.map((f) => `import ${JSON.stringify(new URL(f, root).href)};`).join("\n") + "\n",
  );
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", entry.pathname],
    cwd: root,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (code !== 0) throw new Error(`deno info failed: ${new TextDecoder().decode(stderr)}`);
  const info: DenoInfo = JSON.parse(new TextDecoder().decode(stdout));
  const graph: ModuleGraph = new Map();
  const local = (specifier: string | undefined) =>
    specifier?.startsWith(root.href) ? specifier.slice(root.href.length) : undefined;
  for (const module of info.modules) {
    const from = local(module.specifier);
    if (from === undefined || module.specifier === entry.href) continue;
    const edges = { value: new Set<string>(), type: new Set<string>() };
    for (const dependency of module.dependencies ?? []) {
      const value = local(dependency.code?.specifier);
      const type = local(dependency.type?.specifier);
      if (value !== undefined) edges.value.add(value);
      else if (type !== undefined) edges.type.add(type);
    }
    graph.set(from, edges);
  }
  return graph;
}

const SKIP = /(^|\/)(\.git|\.out|node_modules|testdata)(\/|$)|\.bundle\.js$/;

/** The TypeScript modules under `root`, as paths from it. */
export async function sourceFiles(root: URL, dir = ""): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(new URL(dir || ".", root))) {
    const path = dir ? `${dir}/${entry.name}` : entry.name;
    if (SKIP.test(path)) continue;
    if (entry.isDirectory) files.push(...await sourceFiles(root, path));
    else if (entry.isFile && /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts")) {
      files.push(path);
    }
  }
  return files.sort();
}

if (import.meta.main) {
  const root = Deno.args[0]
    ? new URL(`${Deno.args[0].replace(/\/?$/, "/")}`, `file://${Deno.cwd()}/`)
    : new URL("../../", import.meta.url);
  const scratch = new URL("../../compat/.out/", import.meta.url);
  const graph = await moduleGraph(root, await sourceFiles(root), scratch);
  const { value, typeOnly } = cyclesOf(graph);
  for (const cycle of value) {
    console.error(
      `error[seam/import-cycles]: value import cycle: ${cycle.join(" <-> ")}\n` +
        "  hint: a module that both sides need goes in its own file, or one side takes an " +
        "interface (import type) instead of the class.",
    );
  }
  const allowance = (cycle: string[]) =>
    ALLOWED.find((a) => a.kind === "type-cycle" && cycle.includes(a.file));
  const counted = typeOnly.filter((cycle) => allowance(cycle) === undefined);
  const over = counted.length > BUDGETS.typeOnlyCycles;
  const say = over ? console.error : console.log;
  say(
    `${over ? "error[seam/type-cycles]" : "type-only import cycles"}: ${typeOnly.length}, ` +
      `${counted.length} not allow-listed (budget ${BUDGETS.typeOnlyCycles}, ` +
      "compat/budgets/budgets.ts)",
  );
  for (const cycle of typeOnly) {
    const allowed = allowance(cycle);
    say(`  ${cycle.join(" <-> ")}${allowed ? ` (allowed until ${allowed.until})` : ""}`);
  }
  if (over) {
    console.error(
      "  hint: name the shape one side needs as an interface in a module of its own (or in " +
        "the side that owns it) so that the circle is not closed.",
    );
  }
  console.log(`${graph.size} modules, ${value.length} value import cycles`);
  if (value.length > 0 || over) Deno.exit(1);
}
