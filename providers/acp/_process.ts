// One agent process in its own process group: spawn, stdio pumps, stderr to
// the logger, the supervisor that ends the group if this process dies, and
// the teardown ladder (stdin EOF → SIGTERM → SIGKILL to the whole group and
// to the descendants that left it). On `node:child_process`, which Node and
// Deno both provide: the only file of the package that starts processes.
import { type ChildProcess, spawn } from "node:child_process";
import { statSync } from "node:fs";
import type { Logger } from "@seam/host";
import {
  descendants,
  escapees,
  groupRunning,
  processRunning,
  sendSignal,
  type SignalName,
} from "./_group.ts";
import { cut } from "./_failure.ts";
import { startSupervisor, type Supervisor } from "./_supervisor.ts";
import type { AcpLauncher } from "./types.ts";

/** How the agent is put into a process group of its own (see `AcpLauncher`). */
export type Launcher = AcpLauncher;

/** The agent to run: its command line, where, with what environment, and who logs. */
export interface AgentCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly launcher: Launcher;
  readonly logger: Logger;
}

/** What {@linkcode spawnAgentProcess} needs. */
export interface ProcessOptions extends AgentCommand {
  /** Each chunk of the agent's stdout, in order. */
  readonly onStdout: (chunk: Uint8Array) => void;
  /** The agent's stdout ended (or failed: `error`). */
  readonly onStdoutEnd: (error?: unknown) => void;
  /** The command could not be started (the message names why). */
  readonly onSpawnError: (error: Error) => void;
  /** How long the supervisor waits between SIGTERM and SIGKILL if this process dies. */
  readonly supervisorGraceMs: number;
}

/** How a process ended. */
export interface ExitStatus {
  readonly code: number;
  readonly signal: string | null;
}

/** The graces of the teardown ladder. */
export interface TeardownGraces {
  readonly eofGraceMs: number;
  readonly graceMs: number;
}

const PERL_SETSID = "use POSIX (); POSIX::setsid() >= 0 or die qq(setsid: $!\\n); " +
  "exec { $ARGV[0] } @ARGV or die qq(cannot execute $ARGV[0]: $!\\n);";

const STDERR_TAIL_LINES = 12;
const STDERR_LINE_CHARS = 400;
/** The most characters of a stderr line logged (a runaway line is cut at 64 KiB before). */
const STDERR_LOG_CHARS = 4_000;
const POLL_MS = 20;

/** What `errno` codes mean, for messages (Node names only the code). */
const ERRNO_TEXT: Readonly<Record<string, string>> = {
  ENOENT: "No such file or directory",
  EACCES: "Permission denied",
  ENOTDIR: "Not a directory",
  ENOEXEC: "Exec format error",
  EPERM: "Operation not permitted",
  E2BIG: "Argument list too long",
  EAGAIN: "Resource temporarily unavailable",
  ENOMEM: "Cannot allocate memory",
};

function launchArgs(
  launcher: Launcher,
  command: string,
  args: readonly string[],
): [string, string[]] {
  switch (launcher) {
    case "setsid":
      return ["setsid", [command, ...args]];
    case "perl":
      return ["perl", ["-e", PERL_SETSID, "--", command, ...args]];
    case "auto":
    case "direct":
      return [command, [...args]];
  }
}

/** Describe an exit for error messages. */
export function describeExit(status: ExitStatus): string {
  return status.signal ? `was killed by ${status.signal}` : `exited with code ${status.code}`;
}

/** Whether `path` is a directory; `undefined` when it cannot be told (no permission to read). */
function isDirectory(path: string): boolean | undefined {
  try {
    return statSync(path).isDirectory();
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    return code === "ENOENT" || code === "ENOTDIR" ? false : undefined;
  }
}

function spawnError(command: string, program: string, cwd: string, error: unknown): Error {
  const code = (error as { code?: unknown }).code;
  // A missing cwd fails the spawn with the same ENOENT as a missing binary.
  if ((code === "ENOENT" || code === "ENOTDIR") && isDirectory(cwd) === false) {
    return new Error(
      `Cannot spawn the ACP agent "${command}": its cwd "${cwd}" is not a directory (${code})`,
      { cause: error },
    );
  }
  const text = typeof code === "string" && ERRNO_TEXT[code]
    ? `${ERRNO_TEXT[code]} (${code}${program === command ? "" : `, running ${program}`})`
    : error instanceof Error
    ? error.message
    : String(error);
  return new Error(`Cannot spawn the ACP agent "${command}": ${text}`, { cause: error });
}

/** A spawned agent process and its group. */
export class AgentProcess {
  /** The agent's pid (the group id too, unless `launcher` is `"direct"`); 0 if it never started. */
  readonly pid: number;
  /** The group id to signal, or `undefined` when the agent has no own group. */
  readonly pgid: number | undefined;
  /** The launcher used. */
  readonly launcher: Launcher;
  /** Fulfils when the agent process (the group leader) has exited or never started. */
  readonly exited: Promise<ExitStatus>;
  #exitStatus: ExitStatus | undefined;
  #child: ChildProcess;
  #stdinClosed = false;
  #pumps: Promise<unknown>;
  #tail: string[] = [];
  #logger: Logger;
  #teardown: Promise<void> | undefined;
  /** Processes to signal by pid: without a group, its descendants; else those that left it. */
  #known = new Map<number, number>();
  #supervisor: Supervisor | undefined;
  #lastStderr = 0;
  /** Whether the process and its pipes keep this program's event loop alive. */
  #holdsLoop = true;

  constructor(child: ChildProcess, launcher: Launcher, options: ProcessOptions) {
    this.#child = child;
    this.pid = child.pid ?? 0;
    this.launcher = launcher;
    this.pgid = launcher === "direct" || child.pid === undefined ? undefined : child.pid;
    this.#logger = options.logger;
    this.exited = new Promise<ExitStatus>((resolve) => {
      child.once("exit", (code, signal) => {
        this.#exitStatus = { code: code ?? -1, signal };
        resolve(this.#exitStatus);
      });
      child.once("error", (error) => {
        if (child.pid !== undefined) {
          this.#logger.warn(`The ACP agent process ${child.pid} reported an error`, error);
          return;
        }
        this.#exitStatus = { code: -1, signal: null };
        options.onSpawnError(spawnError(options.command, child.spawnfile, options.cwd, error));
        resolve(this.#exitStatus);
      });
    });
    // A write to a dead child fails with EPIPE; the caller of write() sees it.
    child.stdin!.on("error", () => {});
    this.#pumps = Promise.all([
      this.#pumpStdout(options.onStdout, options.onStdoutEnd),
      this.#pumpStderr(),
    ]);
    if (child.pid !== undefined) {
      this.#supervisor = startSupervisor(
        this.pgid === undefined ? [child.pid] : [-child.pid, child.pid],
        options.supervisorGraceMs,
        options.logger,
      );
    }
  }

  /** The exit status, once the agent process has exited. */
  get exitStatus(): ExitStatus | undefined {
    return this.#exitStatus;
  }

  /** The last lines the agent wrote on stderr, for error messages. */
  stderrTail(): string {
    return this.#tail.join("\n");
  }

  /**
   * Resolve once stderr was quiet for 20 ms (at most 100 ms): stderr and
   * stdout are separate pipes, so what the agent wrote on stderr before an
   * error answer may be read after it.
   */
  async stderrQuiet(): Promise<void> {
    const until = performance.now() + 100;
    do {
      await new Promise((resolve) => setTimeout(resolve, 20));
    } while (performance.now() - this.#lastStderr < 20 && performance.now() < until);
  }

  /**
   * Let the process and its pipes keep this program running (`true`, as
   * spawned) or not: an agent nobody waits on must not stop a program that
   * forgot to dispose it from exiting. Its group ends with the program then
   * (stdin EOF; the supervisor's SIGTERM, SIGKILL). A teardown holds again.
   */
  holdLoop(hold: boolean): void {
    if (hold === this.#holdsLoop || (!hold && this.#teardown)) return;
    this.#holdsLoop = hold;
    const child = this.#child;
    for (const handle of [child, child.stdin, child.stdout, child.stderr]) {
      const refable = handle as { ref?: () => void; unref?: () => void } | null;
      if (hold) refable?.ref?.();
      else refable?.unref?.();
    }
  }

  /** Write bytes to the agent's stdin. Rejects once stdin is closed or broken. */
  write(bytes: Uint8Array): Promise<void> {
    const stdin = this.#child.stdin!;
    if (this.#stdinClosed || stdin.destroyed) {
      return Promise.reject(new Error("the agent's stdin is closed"));
    }
    return new Promise((resolve, reject) => {
      stdin.write(bytes, (error) => error ? reject(error) : resolve());
    });
  }

  /** Close the agent's stdin (EOF). Queued writes are flushed first. */
  closeStdin(): void {
    if (this.#stdinClosed) return;
    this.#stdinClosed = true;
    this.#child.stdin!.end();
  }

  /**
   * Tear the process group down: close stdin, wait up to `eofGraceMs` for
   * every member to exit, SIGTERM the group and the descendants that left
   * it, wait up to `graceMs`, SIGKILL them, wait for the exit; then release
   * the stdio pipes and stand the supervisor down. Memoized.
   */
  terminate(graces: TeardownGraces): Promise<void> {
    this.holdLoop(true);
    return this.#teardown ??= this.#terminate(graces);
  }

  async #terminate({ eofGraceMs, graceMs }: TeardownGraces): Promise<void> {
    await this.#remember();
    this.closeStdin();
    if (!await this.#waitGone(eofGraceMs)) {
      this.#logger.info(
        `ACP agent process ${this.pid} still running ${eofGraceMs} ms after its stdin closed: sending SIGTERM to its process group`,
      );
      await this.#signal("SIGTERM");
      if (!await this.#waitGone(graceMs)) {
        this.#logger.warn(
          `ACP agent process ${this.pid} still running ${graceMs} ms after SIGTERM: sending SIGKILL to its process group`,
        );
        await this.#signal("SIGKILL");
        if (!await this.#waitGone(Math.max(graceMs, 1_000))) {
          this.#logger.error(
            `ACP agent process group ${this.pid} still has running members after SIGKILL`,
          );
        }
      }
    }
    await this.exited;
    // A member outside the group (or a zombie's writer) may still hold the
    // pipes open: stop reading so no resource outlives the teardown.
    this.#child.stdout!.destroy();
    this.#child.stderr!.destroy();
    this.#child.stdin!.destroy();
    await this.#pumps;
    await this.#supervisor?.standDown();
  }

  /** Whether the leader has exited and no member of its group (nor an escapee) still runs. */
  async #gone(): Promise<boolean> {
    if (this.#exitStatus === undefined) return false;
    if (this.pgid !== undefined && await groupRunning(this.pgid)) return false;
    for (const pid of this.#known.keys()) {
      if (await processRunning(pid)) return false;
    }
    return true;
  }

  /** Wait up to `ms` for the whole group to be gone; `true` when it is. */
  async #waitGone(ms: number): Promise<boolean> {
    const deadline = performance.now() + ms;
    if (this.#exitStatus === undefined) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        this.exited,
        new Promise<void>((resolve) => timer = setTimeout(resolve, ms)),
      ]);
      clearTimeout(timer);
    }
    while (true) {
      if (await this.#gone()) return true;
      const left = deadline - performance.now();
      if (left <= 0) return false;
      await new Promise((resolve) => setTimeout(resolve, Math.min(POLL_MS, left)));
    }
  }

  /**
   * Find the processes a group signal misses: without a group, every
   * descendant of the agent; with one, the descendants that left it
   * (`setsid cmd &`). Only those still linked to the agent or a member by
   * parentage are found (a daemon that double-forked is not).
   */
  async #remember(): Promise<void> {
    if (this.pid === 0) return;
    if (this.pgid === undefined) {
      if (this.#exitStatus !== undefined) return;
      for (const pid of await descendants(this.pid)) this.#known.set(pid, 0);
      return;
    }
    for (const row of await escapees(this.pid, this.pgid)) this.#known.set(row.pid, row.pgid);
  }

  async #signal(signal: SignalName): Promise<void> {
    await this.#remember();
    const targets = this.pgid !== undefined ? [-this.pgid] : [];
    for (const [pid, pgid] of this.#known) {
      targets.push(pid);
      // An escapee that leads a group of its own takes that group along.
      if (pgid === pid) targets.push(-pid);
    }
    // Before `setsid` has run (a teardown right after spawn) the group does
    // not exist yet; the leader is then signalled on its own.
    if (this.#exitStatus === undefined && this.pid !== 0) targets.push(this.pid);
    for (const target of targets) {
      try {
        sendSignal(target, signal);
        // A stopped process cannot act on SIGTERM until it is continued.
        if (signal === "SIGTERM") sendSignal(target, "SIGCONT");
      } catch (error) {
        this.#logger.warn(`Sending ${signal} to ${target} failed`, error);
      }
    }
  }

  #pumpStdout(
    onStdout: (chunk: Uint8Array) => void,
    onEnd: (error?: unknown) => void,
  ): Promise<void> {
    const stdout = this.#child.stdout!;
    return new Promise<void>((resolve) => {
      let failure: unknown;
      stdout.on("data", (chunk: Uint8Array) => {
        onStdout(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
      });
      stdout.on("error", (error) => failure ??= error);
      stdout.once("close", () => {
        onEnd(failure);
        resolve();
      });
    });
  }

  #pumpStderr(): Promise<void> {
    const stderr = this.#child.stderr!;
    const decoder = new TextDecoder();
    let pending = "";
    /** Whether the line being read is a runaway one, its start logged and quoted already. */
    let runaway = false;
    const line = (text: string) => {
      // The rest of a runaway line is not another line: one slot of the
      // tail, whatever size the pipe's chunks were (Node reads 64 KiB ones).
      if (runaway) return;
      if (text.trim() === "") return;
      this.#logger.info(`agent stderr: ${cut(text, STDERR_LOG_CHARS)}`);
      this.#tail.push(cut(text, STDERR_LINE_CHARS));
      if (this.#tail.length > STDERR_TAIL_LINES) this.#tail.shift();
    };
    return new Promise<void>((resolve) => {
      stderr.on("data", (chunk: Uint8Array) => {
        this.#lastStderr = performance.now();
        pending += decoder.decode(chunk, { stream: true });
        let newline: number;
        while ((newline = pending.indexOf("\n")) !== -1) {
          line(pending.slice(0, newline).replace(/\r$/, ""));
          runaway = false;
          pending = pending.slice(newline + 1);
        }
        // A runaway line without newlines is cut rather than buffered.
        if (pending.length > 64 * 1024) {
          line(pending);
          runaway = true;
          pending = "";
        }
      });
      stderr.on("error", () => {}); // destroyed at teardown
      stderr.once("close", () => {
        line(pending + decoder.decode());
        resolve();
      });
    });
  }
}

/**
 * Spawn `command` in a process group of its own with piped stdio: with
 * `"auto"` the spawn itself calls setsid(2) (`detached`), with `"setsid"` or
 * `"perl"` a helper does, with `"direct"` nothing does. A command that
 * cannot be started is reported through `onSpawnError` (asynchronously, as
 * Node does), or thrown when the runtime refuses at once.
 *
 * @throws {Error} when the runtime refuses to spawn at all (no permission).
 */
export function spawnAgentProcess(options: ProcessOptions): AgentProcess {
  const [program, args] = launchArgs(options.launcher, options.command, options.args);
  let child: ChildProcess;
  try {
    child = spawn(program, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["pipe", "pipe", "pipe"],
      detached: options.launcher === "auto",
    });
  } catch (error) {
    throw spawnError(options.command, program, options.cwd, error);
  }
  return new AgentProcess(child, options.launcher, options);
}
