// One agent process in its own process group: spawn, stdio pumps, stderr to
// the logger, and the teardown ladder (stdin EOF → SIGTERM → SIGKILL to the
// whole group). The only file of the package that touches processes.
import type { Logger } from "@seam/host";
import { descendants, groupRunning, processRunning, sendSignal } from "./_group.ts";
import type { AcpLauncher } from "./types.ts";

/** How the agent is put into a process group of its own (see `AcpLauncher`). */
export type Launcher = AcpLauncher;

/** What {@linkcode spawnAgentProcess} needs. */
export interface ProcessOptions {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Record<string, string>;
  readonly launcher: Launcher;
  readonly logger: Logger;
  /** Each chunk of the agent's stdout, in order. */
  readonly onStdout: (chunk: Uint8Array) => void;
  /** The agent's stdout ended (or failed: `error`). */
  readonly onStdoutEnd: (error?: unknown) => void;
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
const POLL_MS = 20;

/** Launchers found not to work here (missing binary or not permitted). */
const unavailable = new Set<Launcher>();
let warnedDirect = false;

function launchArgs(
  launcher: Exclude<Launcher, "auto">,
  command: string,
  args: readonly string[],
): [string, string[]] {
  switch (launcher) {
    case "setsid":
      return ["setsid", [command, ...args]];
    case "perl":
      return ["perl", ["-e", PERL_SETSID, "--", command, ...args]];
    case "direct":
      return [command, [...args]];
  }
}

/** Describe an exit for error messages. */
export function describeExit(status: ExitStatus): string {
  return status.signal ? `was killed by ${status.signal}` : `exited with code ${status.code}`;
}

/** A spawned agent process and its group. */
export class AgentProcess {
  /** The agent's pid (with `setsid`/`perl`, also its group id). */
  readonly pid: number;
  /** The group id to signal, or `undefined` when the agent has no own group. */
  readonly pgid: number | undefined;
  /** The launcher actually used. */
  readonly launcher: Exclude<Launcher, "auto">;
  /** Fulfils when the agent process (the group leader) has exited. */
  readonly exited: Promise<ExitStatus>;
  #exitStatus: ExitStatus | undefined;
  #child: Deno.ChildProcess;
  #stdin: WritableStreamDefaultWriter<Uint8Array>;
  #stdinClosed = false;
  #stdoutReader: ReadableStreamDefaultReader<Uint8Array>;
  #stderrReader: ReadableStreamDefaultReader<Uint8Array>;
  #pumps: Promise<unknown>;
  #tail: string[] = [];
  #logger: Logger;
  #teardown: Promise<void> | undefined;
  #known = new Set<number>();

  constructor(
    child: Deno.ChildProcess,
    launcher: Exclude<Launcher, "auto">,
    options: ProcessOptions,
  ) {
    this.#child = child;
    this.pid = child.pid;
    this.launcher = launcher;
    this.pgid = launcher === "direct" ? undefined : child.pid;
    this.#logger = options.logger;
    this.#stdin = child.stdin.getWriter();
    // A write to a dead child rejects; the caller of write() sees it.
    this.#stdin.closed.catch(() => {});
    this.#stdoutReader = child.stdout.getReader();
    this.#stderrReader = child.stderr.getReader();
    this.exited = child.status.then((s) => {
      this.#exitStatus = { code: s.code, signal: s.signal };
      return this.#exitStatus;
    });
    this.#pumps = Promise.all([
      this.#pumpStdout(options.onStdout, options.onStdoutEnd),
      this.#pumpStderr(),
    ]);
  }

  /** The exit status, once the agent process has exited. */
  get exitStatus(): ExitStatus | undefined {
    return this.#exitStatus;
  }

  /** The last lines the agent wrote on stderr, for error messages. */
  stderrTail(): string {
    return this.#tail.join("\n");
  }

  /** Write bytes to the agent's stdin. Rejects once stdin is closed or broken. */
  write(bytes: Uint8Array): Promise<void> {
    if (this.#stdinClosed) {
      return Promise.reject(new Error("the agent's stdin is closed"));
    }
    return this.#stdin.write(bytes);
  }

  /** Close the agent's stdin (EOF). Queued writes are flushed first. */
  closeStdin(): void {
    if (this.#stdinClosed) return;
    this.#stdinClosed = true;
    this.#stdin.close().catch(() => {});
  }

  /**
   * Tear the process group down: close stdin, wait up to `eofGraceMs` for
   * every member to exit, SIGTERM the group, wait up to `graceMs`, SIGKILL
   * the group, wait for the exit; then release the stdio pipes. Memoized.
   */
  terminate(graces: TeardownGraces): Promise<void> {
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
    this.#stdoutReader.cancel().catch(() => {});
    this.#stderrReader.cancel().catch(() => {});
    await this.#pumps;
  }

  /** Whether the leader has exited and no member of its group still runs. */
  async #gone(): Promise<boolean> {
    if (this.#exitStatus === undefined) return false;
    if (this.pgid !== undefined) return !await groupRunning(this.pgid);
    for (const pid of this.#known) {
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

  /** Without a group of its own, track the agent's descendants by pid. */
  async #remember(): Promise<void> {
    if (this.pgid !== undefined || this.#exitStatus !== undefined) return;
    for (const pid of await descendants(this.pid)) this.#known.add(pid);
  }

  async #signal(signal: Deno.Signal): Promise<void> {
    await this.#remember();
    const targets = this.pgid !== undefined ? [-this.pgid] : [...this.#known];
    // Before `setsid` has run (a teardown right after spawn) the group does
    // not exist yet; the leader is then signalled on its own.
    if (this.#exitStatus === undefined) targets.push(this.pid);
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

  async #pumpStdout(
    onStdout: (chunk: Uint8Array) => void,
    onEnd: (error?: unknown) => void,
  ): Promise<void> {
    let failure: unknown;
    try {
      while (true) {
        const { value, done } = await this.#stdoutReader.read();
        if (done) break;
        onStdout(value);
      }
    } catch (error) {
      failure = error;
    }
    onEnd(failure);
  }

  async #pumpStderr(): Promise<void> {
    const decoder = new TextDecoder();
    let pending = "";
    const line = (text: string) => {
      if (text.trim() === "") return;
      this.#logger.info(`agent stderr: ${text}`);
      this.#tail.push(
        text.length > STDERR_LINE_CHARS ? `${text.slice(0, STDERR_LINE_CHARS)}…` : text,
      );
      if (this.#tail.length > STDERR_TAIL_LINES) this.#tail.shift();
    };
    try {
      while (true) {
        const { value, done } = await this.#stderrReader.read();
        if (done) break;
        pending += decoder.decode(value, { stream: true });
        let newline: number;
        while ((newline = pending.indexOf("\n")) !== -1) {
          line(pending.slice(0, newline).replace(/\r$/, ""));
          pending = pending.slice(newline + 1);
        }
        // A runaway line without newlines is cut rather than buffered.
        if (pending.length > 64 * 1024) {
          line(pending);
          pending = "";
        }
      }
    } catch {
      // Cancelled at teardown.
    }
    line(pending + decoder.decode());
  }
}

function isUnavailable(error: unknown): boolean {
  return error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotCapable ||
    error instanceof Deno.errors.PermissionDenied;
}

/**
 * Spawn `command` in a process group of its own with piped stdio.
 *
 * @throws {Error} when the command cannot be spawned (the message names why).
 */
export function spawnAgentProcess(options: ProcessOptions): AgentProcess {
  const order: Exclude<Launcher, "auto">[] = options.launcher === "auto"
    ? ["setsid", "perl", "direct"]
    : [options.launcher];
  let lastError: unknown;
  for (const launcher of order) {
    if (options.launcher === "auto" && launcher !== "direct" && unavailable.has(launcher)) {
      continue;
    }
    const [program, args] = launchArgs(launcher, options.command, options.args);
    let child: Deno.ChildProcess;
    try {
      child = new Deno.Command(program, {
        args,
        cwd: options.cwd,
        env: options.env,
        clearEnv: true,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
      }).spawn();
    } catch (error) {
      lastError = error;
      if (launcher !== "direct" && options.launcher === "auto" && isUnavailable(error)) {
        unavailable.add(launcher);
        options.logger.debug(`Launcher ${launcher} is unavailable here`, error);
        continue;
      }
      break;
    }
    if (launcher === "direct" && options.launcher === "auto" && !warnedDirect) {
      warnedDirect = true;
      options.logger.warn(
        "Neither setsid nor perl can be run here: the ACP agent runs without a process group of its own, so only it and the descendants found at teardown are signalled",
      );
    }
    return new AgentProcess(child, launcher, options);
  }
  const reason = lastError instanceof Error ? lastError.message : String(lastError);
  throw new Error(`Cannot spawn the ACP agent "${options.command}": ${reason}`, {
    cause: lastError,
  });
}
