// A supervisor per agent process group, so the group cannot outlive this
// process: a small `sh` in a session of its own (a signal aimed at this
// process's group does not reach it) that blocks reading a pipe only this
// process holds. When this process dies, by SIGKILL or an unhandled SIGTERM
// alike, the kernel closes the pipe: the supervisor reads EOF, SIGTERMs the
// group, waits, SIGKILLs it. At a normal teardown this process writes one
// line first, and the supervisor exits without signalling anyone.
import { type ChildProcess, spawn } from "node:child_process";
import type { Logger } from "@seam/host";

/**
 * `$1`: seconds between SIGTERM and SIGKILL; the rest: the kill targets
 * (`-pgid`, pid). Signals that would end it with its parent's group are
 * ignored (the agent it watches was started before, with default ones).
 */
const SCRIPT = `trap '' HUP INT QUIT TERM
if read -r _; then exit 0; fi
grace=$1; shift
kill -s TERM -- "$@" 2>/dev/null
kill -s CONT -- "$@" 2>/dev/null
sleep "$grace"
kill -s KILL -- "$@" 2>/dev/null
exit 0`;

/** Marks a supervisor among processes (`ps`). */
export const SUPERVISOR_NAME = "seam-acp-supervisor";

let warned = false;

/** A started supervisor. */
export interface Supervisor {
  /** Tell it the group was torn down (it exits without signalling) and wait for its exit. */
  standDown(): Promise<void>;
}

/**
 * Start a supervisor that signals `targets` if this process dies. When `sh`
 * cannot be started, logs a warning once and returns `undefined`.
 */
export function startSupervisor(
  targets: readonly number[],
  graceMs: number,
  logger: Logger,
): Supervisor | undefined {
  let child: ChildProcess;
  try {
    child = spawn(
      "sh",
      ["-c", SCRIPT, SUPERVISOR_NAME, (graceMs / 1000).toFixed(3), ...targets.map(String)],
      { stdio: ["pipe", "ignore", "ignore"], detached: true },
    );
  } catch (error) {
    warnOnce(logger, error);
    return undefined;
  }
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.once("error", (error) => {
      if (child.pid === undefined) warnOnce(logger, error);
      resolve();
    });
  });
  child.stdin!.on("error", () => {}); // it died first: nothing to stand down
  // A watcher only: it never keeps this program running, but while standing down.
  child.unref();
  (child.stdin as { unref?: () => void }).unref?.();
  let stood: Promise<void> | undefined;
  return {
    standDown(): Promise<void> {
      return stood ??= (() => {
        child.ref();
        (child.stdin as { ref?: () => void }).ref?.();
        child.stdin!.end("\n");
        return exited;
      })();
    },
  };
}

function warnOnce(logger: Logger, error: unknown): void {
  if (warned) return;
  warned = true;
  logger.warn(
    "Cannot start sh to supervise ACP agent process groups: if this process dies, its agents keep running",
    error,
  );
}
