// Shared by the ACP tests and benchmarks: how to run the test agent and our
// own ACP server (`providers/acp/serve.ts`), and a watcher that learns every
// agent's pid from its stderr and counts the processes still running in
// their process groups (with `ps`, independently of the provider's own
// bookkeeping).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import process from "node:process";
import {
  type AgentRef,
  type ContentInput,
  createLogger,
  createMemoryLogger,
  createRootScope,
  type Logger,
  type LogRecord,
} from "@seam/host";
import { createSubagentService, type SubagentRun, type SubagentService } from "@seam/subagent";
import { type AcpProvider, type AcpProviderConfig, createAcpProvider } from "@seam/subagent-acp";
import { spawnDenoScript } from "./spawn_support.ts";

/**
 * Whether these tests run under Deno (under Node, `deno task test:node`
 * installs a global `Deno` holding only `test`).
 */
export const IS_DENO: boolean =
  typeof (globalThis as { Deno?: { execPath?: unknown } }).Deno?.execPath === "function";

/**
 * The test agent's path: the source under Deno; under Node, the bundle the
 * Node run writes beside the test bundles (`compat/targets.ts`, NODE_TEST_PEERS).
 */
export const TEST_AGENT: string = new URL(
  `../providers/acp/testdata/test_agent.${IS_DENO ? "ts" : "js"}`,
  import.meta.url,
).pathname;

/** A provider config running the test agent with `flags` (and the permissions it needs). */
export function testAgentConfig(
  flags: readonly string[] = [],
  extra: Partial<AcpProviderConfig> = {},
): AcpProviderConfig {
  return {
    command: process.execPath,
    args: IS_DENO
      ? [
        "run",
        "--quiet",
        "--no-config",
        "--no-lock",
        "--allow-env",
        "--allow-run",
        TEST_AGENT,
        ...flags,
      ]
      : [TEST_AGENT, ...flags],
    disposeEofGraceMs: 500,
    disposeGraceMs: 500,
    startupTimeoutMs: 20_000,
    ...extra,
  };
}

/** Our ACP server's entry. */
export const SERVE_SCRIPT: string = new URL("../providers/acp/serve.ts", import.meta.url).pathname;

/** The workspace config (the server resolves `@seam/*` through it from any cwd). */
const WORKSPACE_CONFIG: string = new URL("../deno.json", import.meta.url).pathname;

/** The server's flags: the scripted model, and logs at `logLevel`. */
function serverFlags(logLevel: string): string[] {
  return ["--model", "scripted", "--log-level", logLevel];
}

/**
 * A provider config running our ACP server on the scripted model, logging at
 * `logLevel` (default `info`: its first line names its pid, for
 * {@linkcode AgentWatch}); `root` runs another checkout's server instead.
 */
export function serverConfig(
  extra: Partial<AcpProviderConfig> = {},
  logLevel: "debug" | "info" | "warn" = "info",
  root?: string,
): AcpProviderConfig {
  return {
    command: Deno.execPath(),
    args: [
      "run",
      "--quiet",
      "--config",
      root === undefined ? WORKSPACE_CONFIG : `${root}/deno.json`,
      "--allow-env",
      root === undefined ? SERVE_SCRIPT : `${root}/providers/acp/serve.ts`,
      ...serverFlags(logLevel),
    ],
    disposeEofGraceMs: 1_000,
    disposeGraceMs: 1_000,
    startupTimeoutMs: 20_000,
    ...extra,
  };
}

/** Names every bundle's directory (so {@linkcode AgentWatch} recognises its processes). */
const BUNDLE_DIR_PREFIX = "seam-acp-bundle-";

/** Where bundles are written (the test and bench tasks may write there and nowhere else). */
const BUNDLE_ROOT: string = new URL("./.out/", import.meta.url).pathname;

/**
 * Bundle our ACP server (`deno bundle` of `serve.ts`, one minified module)
 * into a fresh directory under `tests/.out/`: the deployment README.md
 * recommends when a process is started per run. `remove` deletes the
 * directory.
 */
export async function bundleServer(): Promise<{ path: string; remove(): Promise<void> }> {
  await Deno.mkdir(BUNDLE_ROOT, { recursive: true });
  const dir = await Deno.makeTempDir({ dir: BUNDLE_ROOT, prefix: BUNDLE_DIR_PREFIX });
  const path = `${dir}/seam-acp.js`;
  const { success, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "bundle",
      "--quiet",
      "--config",
      WORKSPACE_CONFIG,
      "--platform",
      "deno",
      "--minify",
      "-o",
      path,
      SERVE_SCRIPT,
    ],
    stdout: "null",
    stderr: "piped",
  }).output();
  const remove = () => Deno.remove(dir, { recursive: true });
  if (!success) {
    await remove();
    throw new Error(`deno bundle failed: ${new TextDecoder().decode(stderr)}`);
  }
  return { path, remove };
}

/** Like {@linkcode serverConfig}, for the bundle at `path` ({@linkcode bundleServer}). */
export function bundledServerConfig(
  path: string,
  extra: Partial<AcpProviderConfig> = {},
  logLevel: "debug" | "info" | "warn" = "info",
): AcpProviderConfig {
  return {
    ...serverConfig(extra, logLevel),
    // One self-contained module: no workspace config, lockfile or npm resolution to load.
    args: ["run", "--quiet", "--no-config", "--allow-env", path, ...serverFlags(logLevel)],
  };
}

/** A test agent's stderr line (`test-agent[pid]: …`) or our server's (`seam-acp[pid] level: …`). */
const AGENT_LINE = /^agent stderr: (?:test-agent\[(\d+)\]: |seam-acp\[(\d+)\] )(.*)$/;

/** Watches agents through the provider's logger. */
export class AgentWatch {
  /** Every record the provider logged. */
  readonly records: LogRecord[] = [];
  /** The pid of every test agent that started (each leads its own group). */
  readonly pids: Set<number> = new Set();
  /** The pid of every grandchild an agent announced. */
  readonly grandchildren: Set<number> = new Set();
  /** The logger to give the provider. */
  readonly logger: Logger;

  constructor() {
    this.logger = createLogger({
      level: "debug",
      name: "acp-test",
      sink: (record) => {
        this.records.push(record);
        const match = AGENT_LINE.exec(record.message);
        if (!match) return;
        this.pids.add(Number(match[1] ?? match[2]));
        const grandchild = /^grandchild (\d+)$/.exec(match[3]);
        if (grandchild) this.grandchildren.add(Number(grandchild[1]));
      },
    });
  }

  /** The agent's stderr lines (without the prefix) of every agent. */
  agentLines(): string[] {
    return this.records.flatMap((r) => {
      const match = AGENT_LINE.exec(r.message);
      return match ? [match[3]] : [];
    });
  }

  /** Messages logged at `level`. */
  messages(level: LogRecord["level"]): string[] {
    return this.records.filter((r) => r.level === level).map((r) => r.message);
  }

  /**
   * Running (non-zombie) processes that are an agent seen, a member of its
   * process group, or an announced grandchild.
   */
  live(): Promise<number[]> {
    return liveMembers([...this.pids, ...this.grandchildren], AGENT_MARKS);
  }
}

/** What the test agent's grandchild runs (`--grandchild`). */
const GRANDCHILD_MARK = "process.on('SIGTERM'";

/** What the command line of a process of ours holds: the test agent, our server, a grandchild. */
export const AGENT_MARKS: readonly string[] = [
  TEST_AGENT,
  SERVE_SCRIPT,
  BUNDLE_DIR_PREFIX,
  GRANDCHILD_MARK,
];

/** One row of `ps -e -o pid=,pgid=,stat=,args=`. */
export interface ProcessRow {
  readonly pid: number;
  readonly pgid: number;
  readonly stat: string;
  readonly args: string;
}

/** Every process, from `ps`. */
export async function processTable(): Promise<ProcessRow[]> {
  const stdout = await new Promise<string>((resolve, reject) =>
    execFile(
      "ps",
      ["-e", "-ww", "-o", "pid=,pgid=,stat=,args="],
      { maxBuffer: 64 * 1024 * 1024 },
      (error, out) => error ? reject(error) : resolve(out),
    )
  );
  return stdout.split("\n").flatMap((line) => {
    const [pid, pgid, stat, ...args] = line.trim().split(/\s+/);
    return pid ? [{ pid: Number(pid), pgid: Number(pgid), stat, args: args.join(" ") }] : [];
  });
}

/**
 * The running (non-zombie) processes among `pids` or in a process group one
 * of them leads; with `marks`, only those whose command line holds one of
 * them (against a pid reused by an unrelated process meanwhile).
 */
export async function liveMembers(
  pids: Iterable<number>,
  marks?: readonly string[],
): Promise<number[]> {
  const leaders = new Set(pids);
  return (await processTable())
    .filter((p) =>
      !p.stat.startsWith("Z") && (leaders.has(p.pid) || leaders.has(p.pgid)) &&
      (marks === undefined || marks.some((mark) => p.args.includes(mark)))
    )
    .map((p) => p.pid);
}

/** Poll {@linkcode liveMembers} until none is left or `ms` passed; what is left. */
export async function untilGone(
  pids: Iterable<number>,
  marks?: readonly string[],
  ms = 10_000,
): Promise<number[]> {
  const deadline = performance.now() + ms;
  let left = await liveMembers(pids, marks);
  while (left.length > 0 && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    left = await liveMembers(pids, marks);
  }
  return left;
}

/** A host process running tests/acp_host_fixture.ts with `flags`, once it printed `ready`. */
export async function startHostFixture(flags: readonly string[]): Promise<{
  readonly host: Deno.ChildProcess;
  /** What it printed up to `ready`. */
  readonly text: string;
  /** The `agent <pid>` and `grandchild <pid>` it printed. */
  readonly pids: number[];
  /** End it (SIGKILL when still running) and its output. */
  stop(): Promise<void>;
}> {
  const host = spawnDenoScript(
    new URL("./acp_host_fixture.ts", import.meta.url).pathname,
    ["--allow-env", "--allow-read", "--allow-run"],
    flags,
    { stdin: "null", stderr: "inherit" },
  );
  const reader = host.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let text = "";
  while (!text.includes("ready\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  const pids = [...text.matchAll(/^(?:agent|grandchild) (\d+)$/gm)].map((m) => Number(m[1]));
  const stop = async () => {
    await reader.cancel();
    try {
      host.kill("SIGKILL");
    } catch {
      // already gone
    }
    await host.status;
  };
  return { host, text, pids, stop };
}

/** Milliseconds `body` took. */
export async function timed(body: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await body();
  return performance.now() - t0;
}

/** What {@linkcode withAcpAgent} hands a test. */
export interface AcpHarness {
  readonly watch: AgentWatch;
  readonly provider: AcpProvider;
  readonly service: SubagentService;
  readonly parent: AgentRef;
  /** Start a run on the provider; every run started so is disposed after the test. */
  start(prompt: ContentInput): SubagentRun;
}

/** The longest a {@linkcode withAcpAgent} body may take before the test fails as hung. */
const BOUND_MS = 30_000;

/**
 * Run `body` against a provider driving the test agent with `flags`, then
 * dispose every run, the provider and the scopes, and assert that no
 * process of any agent seen is left. A body that hangs fails after 30 s.
 */
export async function withAcpAgent(
  flags: readonly string[],
  extra: Partial<AcpProviderConfig>,
  body: (h: AcpHarness) => Promise<void>,
): Promise<void> {
  const watch = new AgentWatch();
  const root = createRootScope({ logger: createMemoryLogger().logger });
  const service = createSubagentService(root);
  const provider = createAcpProvider(testAgentConfig(flags, { logger: watch.logger, ...extra }));
  service.registerProvider(provider);
  const parent = { id: "parent", scope: root.child("parent") };
  const runs: SubagentRun[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  // A regression must fail the test, not hang the suite.
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`the test took over ${BOUND_MS} ms`)), BOUND_MS);
  });
  try {
    await Promise.race([
      bound,
      body({
        watch,
        provider,
        service,
        parent,
        start(prompt) {
          const run = service.start(provider.name, { prompt, parent });
          runs.push(run);
          return run;
        },
      }),
    ]);
  } finally {
    clearTimeout(timer);
    for (const run of runs) await run.dispose();
    await provider.dispose();
    await root.dispose();
  }
  assert.deepEqual(await watch.live(), [], "processes were left behind");
}

/** Wait until `condition` holds, polling every 10 ms; throws naming `what` after `ms`. */
export async function until(condition: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
