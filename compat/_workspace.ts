// Shared helpers of the compatibility scripts: the workspace's members and
// how a JSR specifier maps to a file, the scratch folder, and running a tool.

/** The repository root, as a file URL ending in `/`. */
export const ROOT: URL = new URL("../", import.meta.url);

/** Scratch output of the checks (git-ignored, excluded from deno's tooling). */
export const OUT: URL = new URL("compat/.out/", ROOT);

/** A workspace member, read from its `deno.json`. */
export interface Member {
  /** The JSR name, e.g. `@seam/subagent`. */
  readonly name: string;
  readonly version: string;
  /** The member's folder, as a file URL ending in `/`. */
  readonly dir: URL;
  /** Export path (`"."`, `"./testing"`) to the file, relative to `dir` (`"./mod.ts"`). */
  readonly exports: Readonly<Record<string, string>>;
}

/** The workspace: its members and the root import map. */
export interface Workspace {
  readonly members: readonly Member[];
  readonly imports: Readonly<Record<string, string>>;
}

/** A path relative to the repository root, for messages and command lines. */
export function relative(url: URL): string {
  return url.href.startsWith(ROOT.href) ? url.href.slice(ROOT.href.length) : url.pathname;
}

/** Read the root `deno.json` and every member's (of this repository, or the one at `base`). */
export async function readWorkspace(base: URL = ROOT): Promise<Workspace> {
  const root = JSON.parse(await Deno.readTextFile(new URL("deno.json", base)));
  const members: Member[] = [];
  for (const path of root.workspace ?? []) {
    const dir = new URL(`${path.replace(/\/?$/, "/")}`, base);
    const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", dir)));
    if (typeof config.name !== "string") continue;
    const exports = typeof config.exports === "string"
      ? { ".": config.exports }
      : { ...config.exports };
    members.push({ name: config.name, version: config.version ?? "0.0.0", dir, exports });
  }
  return { members, imports: root.imports ?? {} };
}

/** The member publishing `specifier` (`@seam/subagent/testing` → `@seam/subagent`). */
export function memberOf(workspace: Workspace, specifier: string): Member {
  const member = workspace.members.find((m) =>
    specifier === m.name || specifier.startsWith(`${m.name}/`)
  );
  if (!member) {
    throw new RangeError(`Cannot resolve "${specifier}": no workspace member publishes it`);
  }
  return member;
}

/** The file an entry specifier points to; a plain path is taken as relative to the root. */
export function resolveEntry(workspace: Workspace, specifier: string): URL {
  if (!specifier.startsWith("@")) return new URL(specifier, ROOT);
  const member = memberOf(workspace, specifier);
  const subpath = `.${specifier.slice(member.name.length)}`;
  const file = member.exports[subpath];
  if (file === undefined) {
    throw new RangeError(
      `Cannot resolve "${specifier}": ${member.name} has no "${subpath}" export`,
    );
  }
  return new URL(file, member.dir);
}

/** A fenced code block of a Markdown file. */
export interface MarkdownBlock {
  /** The fence's language (`ts`, `js`). */
  readonly lang: string;
  /** The block's text, ending with a newline. */
  readonly code: string;
}

/**
 * The first code block in one of `langs` (any attributes after the language,
 * such as `ignore`, allowed) of the Markdown section titled `heading`, up to
 * the next heading of the same or a higher level.
 */
export function markdownBlock(
  markdown: string,
  heading: string,
  langs: readonly string[],
): MarkdownBlock {
  const lines = markdown.split("\n");
  const isHeading = (line: string) => /^#{1,6} /.test(line);
  const start = lines.findIndex((line) => isHeading(line) && line.replace(/^#+ /, "") === heading);
  if (start === -1) throw new RangeError(`Cannot find the section "${heading}"`);
  const level = lines[start].indexOf(" ");
  let open = -1;
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i];
    if (open === -1 && isHeading(line) && line.indexOf(" ") <= level) break;
    if (open === -1) {
      const fence = /^```(\w+)/.exec(line);
      if (fence && langs.includes(fence[1])) open = i;
      else if (line.startsWith("```")) {
        // skip a block in another language
        i = lines.findIndex((next, j) => j > i && next.startsWith("```"));
        if (i === -1) break;
      }
    } else if (line.startsWith("```")) {
      const lang = /^```(\w+)/.exec(lines[open])![1];
      return { lang, code: lines.slice(open + 1, i).join("\n") + "\n" };
    }
  }
  throw new RangeError(`Cannot find a ${langs.join(" or ")} code block under "${heading}"`);
}

/**
 * The file to check for an entry: {@linkcode resolveEntry}'s, or for
 * `FILE.md#Heading` the first `ts`/`js` block of that section, written to
 * `compat/.out/md/` (so a README's example is checked as it is printed).
 */
export async function materializeEntry(workspace: Workspace, entry: string): Promise<URL> {
  const hash = entry.indexOf(".md#");
  if (hash === -1) return resolveEntry(workspace, entry);
  const markdown = await Deno.readTextFile(new URL(entry.slice(0, hash + 3), ROOT));
  const { lang, code } = markdownBlock(markdown, entry.slice(hash + 4), ["ts", "js"]);
  const slug = entry.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-|-$/g, "");
  const dir = new URL("md/", OUT);
  await Deno.mkdir(dir, { recursive: true });
  const file = new URL(`${slug}.${lang}`, dir);
  await Deno.writeTextFile(file, code);
  return file;
}

/** The npm name JSR's npm compatibility publishes a package under (`@jsr/seam__host`). */
export function npmName(jsrName: string): string {
  const match = /^@([^/]+)\/([^/]+)$/.exec(jsrName);
  if (!match) throw new RangeError(`Cannot map "${jsrName}" to npm: not a scoped JSR name`);
  return `@jsr/${match[1]}__${match[2]}`;
}

/** The result of a finished command. */
export interface Output {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Run a command. By default its output goes to this process's and a non-zero
 * exit throws; with `capture`, the output is returned (and nothing throws).
 */
export async function run(
  command: string,
  args: readonly string[],
  options: { cwd?: URL; capture?: boolean; stdin?: string } = {},
): Promise<Output> {
  const child = new Deno.Command(command, {
    args: [...args],
    cwd: options.cwd ?? ROOT,
    stdin: options.stdin === undefined ? "null" : "piped",
    stdout: options.capture ? "piped" : "inherit",
    stderr: options.capture ? "piped" : "inherit",
    // Captured output is shown inside our own messages: keep it plain.
    ...(options.capture ? { env: { NO_COLOR: "1" } } : {}),
  }).spawn();
  if (options.stdin !== undefined) {
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(options.stdin));
    await writer.close();
  }
  if (options.capture) {
    const { code, stdout, stderr } = await child.output();
    const decoder = new TextDecoder();
    return { code, stdout: decoder.decode(stdout), stderr: decoder.decode(stderr) };
  }
  const { code } = await child.status;
  if (code !== 0) {
    throw new Error(`Cannot continue: "${command} ${args.join(" ")}" exited with ${code}`);
  }
  return { code, stdout: "", stderr: "" };
}

/** Run the `deno` binary that runs this script. */
export function deno(
  args: readonly string[],
  options?: { cwd?: URL; capture?: boolean; stdin?: string },
): Promise<Output> {
  return run(Deno.execPath(), args, options);
}

/** Remove a folder and everything in it, if it exists. */
export async function clean(dir: URL): Promise<void> {
  await Deno.remove(dir, { recursive: true }).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
}
