// Process-group inspection and signalling (POSIX), on Node's APIs (which
// Deno provides too). A group is alive while it has a member that is not a
// zombie: orphans are reparented to init, which may reap them late (seconds
// here; never, in a container whose PID 1 does not reap), and a zombie is
// not a running process. Zombies are told apart through `/proc` when it can
// be read (Deno reads it only with --allow-all), else through `ps`.
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import process from "node:process";

/** One process. */
export interface ProcessRow {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  readonly zombie: boolean;
}

let procReadable = true;
let psRunnable = true;

function fromProc(): ProcessRow[] | undefined {
  if (!procReadable) return undefined;
  const rows: ProcessRow[] = [];
  try {
    for (const name of readdirSync("/proc")) {
      const code = name.charCodeAt(0);
      if (code < 48 || code > 57) continue; // not a pid
      let text: string;
      try {
        text = readFileSync(`/proc/${name}/stat`, "utf8");
      } catch {
        continue; // gone meanwhile
      }
      // "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses.
      const close = text.lastIndexOf(")");
      const [state, ppid, pgid] = text.slice(close + 2).split(" ");
      rows.push({
        pid: Number(name),
        ppid: Number(ppid),
        pgid: Number(pgid),
        zombie: state === "Z" || state === "X",
      });
    }
  } catch {
    procReadable = false; // not Linux, or not permitted (Deno wants --allow-all)
    return undefined;
  }
  return rows;
}

async function fromPs(): Promise<ProcessRow[] | undefined> {
  if (!psRunnable) return undefined;
  try {
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        "ps",
        ["-A", "-o", "pid=,ppid=,pgid=,stat="],
        { maxBuffer: 16 * 1024 * 1024 },
        (error, out) => error ? reject(error) : resolve(out),
      );
    });
    return stdout.split("\n").flatMap((line) => {
      const [pid, ppid, pgid, stat] = line.trim().split(/\s+/);
      return pid && stat
        ? [{ pid: Number(pid), ppid: Number(ppid), pgid: Number(pgid), zombie: stat[0] === "Z" }]
        : [];
    });
  } catch {
    psRunnable = false; // no ps, or not permitted
    return undefined;
  }
}

/** Every process (from `/proc`, else `ps`), or `undefined` when neither works. */
export async function processTable(): Promise<ProcessRow[] | undefined> {
  return fromProc() ?? await fromPs();
}

/**
 * `kill(target, 0)`: `true` when something answers (zombies included),
 * `false` when nothing does, `undefined` when the probe is unavailable.
 */
function probe(target: number): boolean | undefined {
  try {
    process.kill(target, 0);
    return true;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === "ESRCH") return false;
    if (code === "EPERM") return true; // exists, not ours
    return undefined;
  }
}

/** Whether process group `pgid` still has a running (non-zombie) member. */
export async function groupRunning(pgid: number): Promise<boolean> {
  // The probe is a cheap syscall and settles the common case: nobody left.
  if (probe(-pgid) === false) return false;
  const table = await processTable();
  if (!table) return probe(-pgid) !== false;
  return table.some((row) => row.pgid === pgid && !row.zombie);
}

/** Whether `pid` is a running (non-zombie) process. */
export async function processRunning(pid: number): Promise<boolean> {
  if (probe(pid) === false) return false;
  const table = await processTable();
  if (!table) return probe(pid) !== false;
  return table.some((row) => row.pid === pid && !row.zombie);
}

/** The running (non-zombie) processes of `table` by their parent's pid. */
function childrenOf(table: readonly ProcessRow[]): Map<number, ProcessRow[]> {
  const children = new Map<number, ProcessRow[]>();
  for (const row of table) {
    if (row.zombie) continue;
    const list = children.get(row.ppid);
    if (list) list.push(row);
    else children.set(row.ppid, [row]);
  }
  return children;
}

/** The running descendants of `pid` (empty when the process table is unavailable). */
export async function descendants(pid: number): Promise<number[]> {
  const table = await processTable();
  if (!table) return [];
  const children = childrenOf(table);
  const found: number[] = [];
  const queue = [pid];
  while (queue.length > 0) {
    for (const child of children.get(queue.pop()!) ?? []) {
      found.push(child.pid);
      queue.push(child.pid);
    }
  }
  return found;
}

/**
 * The running processes that descend from `pid` or from a member of group
 * `pgid` but left the group (`setsid cmd &`), with their own group ids.
 */
export async function escapees(pid: number, pgid: number): Promise<ProcessRow[]> {
  const table = await processTable();
  if (!table) return [];
  const children = childrenOf(table);
  const found: ProcessRow[] = [];
  const seen = new Set<number>();
  const queue = [pid, ...table.filter((r) => r.pgid === pgid && !r.zombie).map((r) => r.pid)];
  while (queue.length > 0) {
    for (const child of children.get(queue.pop()!) ?? []) {
      if (seen.has(child.pid)) continue;
      seen.add(child.pid);
      if (child.pgid !== pgid) found.push(child);
      queue.push(child.pid);
    }
  }
  return found;
}

/** A signal name `process.kill` takes. */
export type SignalName = "SIGTERM" | "SIGKILL" | "SIGCONT";

/**
 * Send `signal` to `target` (a pid, or `-pgid` for a whole group).
 * Returns `false` when there was nobody to signal.
 */
export function sendSignal(target: number, signal: SignalName): boolean {
  try {
    process.kill(target, signal);
    return true;
  } catch (error) {
    if ((error as { code?: unknown }).code === "ESRCH") return false;
    throw error;
  }
}
