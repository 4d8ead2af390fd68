// The terminal side of `seam send`: lines typed at stdin (one reader for the
// whole process), and the progress line on stderr.
import process from "node:process";
import { createInterface, type Interface } from "node:readline";

/** Lines from stdin, read on demand; `undefined` once stdin closed. */
export class LineReader {
  #lines: string[] = [];
  #waiters: ((line: string | undefined) => void)[] = [];
  #closed = false;
  #readline: Interface | undefined;

  /** The next line typed, or `undefined` at end of input or when `signal` aborts. */
  next(signal?: AbortSignal): Promise<string | undefined> {
    this.#open();
    if (this.#lines.length > 0) return Promise.resolve(this.#lines.shift());
    if (this.#closed || signal?.aborted) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const onAbort = () => {
        this.#waiters = this.#waiters.filter((waiter) => waiter !== done);
        resolve(undefined);
      };
      const done = (line: string | undefined) => {
        signal?.removeEventListener("abort", onAbort);
        resolve(line);
      };
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#waiters.push(done);
    });
  }

  /** Stop reading stdin. */
  close(): void {
    this.#readline?.close();
  }

  #open(): void {
    if (this.#readline !== undefined) return;
    this.#readline = createInterface({ input: process.stdin, terminal: false });
    this.#readline.on("line", (line) => {
      const waiter = this.#waiters.shift();
      if (waiter) waiter(line);
      else if (this.#lines.length < 64) this.#lines.push(line);
    });
    this.#readline.on("close", () => {
      this.#closed = true;
      for (const waiter of this.#waiters.splice(0)) waiter(undefined);
    });
  }
}

/**
 * A line on stderr saying the work goes on, after `everyMs` without output
 * and every `everyMs` after: rewritten in place on a terminal, one line
 * each time otherwise. `clear()` before writing anything else.
 */
export class ProgressLine {
  #timer: ReturnType<typeof setInterval> | undefined;
  #shown = false;
  #lastOutput = Date.now();
  readonly #started = Date.now();
  readonly #everyMs: number;
  readonly #describe: () => string;
  readonly #tty = process.stderr.isTTY === true;

  /** Start the timer (`everyMs` 0: never show). */
  constructor(everyMs: number, describe: () => string) {
    this.#everyMs = everyMs;
    this.#describe = describe;
    if (everyMs > 0) this.#timer = setInterval(() => this.#tick(), Math.min(everyMs, 1_000));
  }

  /** Output was written: clear the line and start counting silence again. */
  clear(): void {
    this.#lastOutput = Date.now();
    if (this.#shown && this.#tty) process.stderr.write("\r\x1b[2K");
    this.#shown = false;
  }

  /** Stop for good. */
  stop(): void {
    this.clear();
    clearInterval(this.#timer);
  }

  #tick(): void {
    const now = Date.now();
    if (now - this.#lastOutput < this.#everyMs) return;
    const seconds = Math.round((now - this.#started) / 1000);
    const line = `seam send: working, ${seconds}s (${this.#describe()})`;
    if (this.#tty) process.stderr.write(`\r\x1b[2K${line}`);
    else {
      process.stderr.write(`${line}\n`);
      this.#lastOutput = now;
    }
    this.#shown = true;
  }
}
