/**
 * An MCP server process in a process group of its own (`detached`: the
 * leader calls setsid), with its stdio as web streams; torn down as the
 * ACP provider does: stdin closed, then SIGTERM to the group after a grace
 * period, then SIGKILL, until no member of the group is left; descendants
 * that left the group (`codex` runs its shell snapshot in a group of its
 * own) are found with `ps` before the teardown and ended with it.
 */

interface Row {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  readonly sid: number;
  readonly zombie: boolean;
}

/** Every process, by `ps` (undefined where `ps` cannot run). */
function processTable(): Promise<Row[] | undefined> {
  return new Promise((resolve) => {
    try {
      const format = "pid=,ppid=,pgid=,sid=,stat=";
      execFile("ps", ["-A", "-o", format], { maxBuffer: 16 << 20 }, (e, out) => {
        if (e) return resolve(undefined);
        resolve(
          String(out).split("\n").filter((l) => l.trim() !== "").map((line) => {
            const [pid, ppid, pgid, sid, stat] = line.trim().split(/\s+/);
            return {
              pid: Number(pid),
              ppid: Number(ppid),
              pgid: Number(pgid),
              sid: Number(sid),
              zombie: stat?.startsWith("Z") ?? false,
            };
          }),
        );
      });
    } catch {
      resolve(undefined);
    }
  });
}

/**
 * The live processes of `root`'s session (it called setsid: its group and
 * session ids are its pid) and its descendants, outside its process group:
 * what left the group (`setpgid`) stays in the session even once reparented.
 */
async function escapees(root: number, pgid: number): Promise<number[]> {
  const rows = await processTable();
  if (!rows) return [];
  const inSession = rows.filter((row) => row.sid === root && row.pgid !== pgid && !row.zombie);
  const children = new Map<number, Row[]>();
  for (const row of rows) children.set(row.ppid, [...(children.get(row.ppid) ?? []), row]);
  const found: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    for (const row of children.get(queue.shift()!) ?? []) {
      queue.push(row.pid);
      if (row.pgid !== pgid && !row.zombie) found.push(row.pid);
    }
  }
  return [...new Set([...found, ...inSession.map((row) => row.pid)])];
}
import { type ChildProcess, execFile, spawn } from "node:child_process";
import process from "node:process";
import { Readable, Writable } from "node:stream";

/** What to start. */
export interface SpawnSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
}

/** One server process. */
export class ServerProcess {
  readonly pid: number;
  readonly input: ReadableStream<Uint8Array>;
  readonly output: WritableStream<Uint8Array>;
  readonly exited: Promise<void>;
  readonly #child: ChildProcess;
  #stopping: Promise<void> | undefined;

  constructor(spec: SpawnSpec) {
    const child = this.#child = spawn(spec.command, [...spec.args], {
      detached: true,
      stdio: ["pipe", "pipe", "ignore"],
      env: spec.env ? { ...process.env, ...spec.env } : process.env,
      ...(spec.cwd ? { cwd: spec.cwd } : {}),
    });
    this.exited = new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) resolve();
      else child.once("exit", () => resolve());
      child.once("error", () => resolve());
    });
    if (child.pid === undefined) {
      throw new Error(`Cannot start the MCP server: spawning "${spec.command}" failed`);
    }
    this.pid = child.pid;
    this.input = Readable.toWeb(child.stdout!) as unknown as ReadableStream<Uint8Array>;
    this.output = Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>;
  }

  /** Whether any member of the process group is still there. */
  groupAlive(): boolean {
    try {
      process.kill(-this.pid, 0);
      return true;
    } catch {
      return false;
    }
  }

  /** Stop the process group: stdin closed, SIGTERM after `graceMs`, SIGKILL after as long again. */
  stop(graceMs: number): Promise<void> {
    return this.#stopping ??= (async () => {
      // Found while the leader lives: once it is gone, its children are no longer its.
      const escaped = await escapees(this.pid, this.pid);
      try {
        this.#child.stdin?.end();
      } catch { /* already closed */ }
      if (!await this.#settled(graceMs)) this.#signal("SIGTERM");
      if (!await this.#settled(graceMs)) this.#signal("SIGKILL");
      await this.exited;
      // Members that outlived the leader (its own children) go too.
      for (let i = 0; i < 50 && this.groupAlive(); i++) {
        this.#signal(i < 10 ? "SIGTERM" : "SIGKILL");
        await new Promise((r) => setTimeout(r, 20));
      }
      // Those found before, and what the session still holds (started meanwhile).
      let left = [...new Set([...escaped, ...await escapees(this.pid, this.pid)])];
      for (let i = 0; i < 50 && left.length > 0; i++) {
        for (const pid of left) kill(pid, i < 10 ? "SIGTERM" : "SIGKILL");
        await new Promise((r) => setTimeout(r, 20));
        left = left.filter(alive);
        if (i % 10 === 9) left = [...new Set([...left, ...await escapees(this.pid, this.pid)])];
      }
    })();
  }

  async #settled(ms: number): Promise<boolean> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const done = await Promise.race([
      this.exited.then(() => true),
      new Promise<boolean>((r) => timer = setTimeout(() => r(false), ms)),
    ]);
    clearTimeout(timer);
    return done;
  }

  #signal(signal: "SIGTERM" | "SIGKILL"): void {
    kill(-this.pid, signal);
  }
}

function kill(target: number, signal: "SIGTERM" | "SIGKILL"): void {
  try {
    process.kill(target, signal);
  } catch { /* gone */ }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
