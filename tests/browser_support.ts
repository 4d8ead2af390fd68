// A real browser for tests: Debian's Chromium driven by playwright-core in
// a child process (browser_driver.ts), one JSON command a line. The test
// keeps its own permissions; the child, which playwright needs to read
// /proc, runs with -A and writes only its profile, under tests/.out.

/** Where the system Chromium lives (Debian's `chromium` package; `.ci/run` installs it). */
export const CHROMIUM = "/usr/bin/chromium";

/** Whether the system Chromium is installed. */
export function hasChromium(): boolean {
  try {
    return Deno.statSync(CHROMIUM).isFile;
  } catch {
    return false;
  }
}

/** A page in a headless Chromium. */
export class Browser {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #lines: ReadableStreamDefaultReader<string>;
  readonly #profile: string;
  #buffer = "";
  #next = 1;

  private constructor(child: Deno.ChildProcess, profile: string) {
    this.#child = child;
    this.#profile = profile;
    this.#writer = child.stdin.getWriter();
    this.#lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** Start Chromium with a fresh profile under tests/.out. */
  static async launch(): Promise<Browser> {
    await Deno.mkdir("tests/.out", { recursive: true });
    const profile = await Deno.makeTempDir({ dir: "tests/.out", prefix: "chromium-" });
    const driver = new URL("./browser_driver.ts", import.meta.url).pathname;
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "--quiet", driver, CHROMIUM, profile],
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const browser = new Browser(child, profile);
    try {
      await browser.#read();
    } catch (error) {
      await browser.close();
      throw error;
    }
    return browser;
  }

  async #read(): Promise<unknown> {
    for (;;) {
      const end = this.#buffer.indexOf("\n");
      if (end !== -1) {
        const line = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 1);
        const reply = JSON.parse(line) as { ok: boolean; value?: unknown; error?: string };
        if (!reply.ok) throw new Error(`browser: ${reply.error}`);
        return reply.value;
      }
      const { value, done } = await this.#lines.read();
      if (done) throw new Error("browser: the driver exited");
      this.#buffer += value;
    }
  }

  async #send(command: Record<string, unknown>): Promise<unknown> {
    const line = JSON.stringify({ id: this.#next++, ...command }) + "\n";
    await this.#writer.write(new TextEncoder().encode(line));
    return this.#read();
  }

  /** Load `url`. */
  goto(url: string): Promise<unknown> {
    return this.#send({ op: "goto", url });
  }

  /** Wait until `selector` (a playwright selector) is visible, or in `state`. */
  waitFor(selector: string, state?: string, timeout?: number): Promise<unknown> {
    return this.#send({ op: "waitFor", selector, state, timeout });
  }

  /** Click the first match of `selector`. */
  click(selector: string): Promise<unknown> {
    return this.#send({ op: "click", selector });
  }

  /** Type `value` into the first match of `selector`. */
  fill(selector: string, value: string): Promise<unknown> {
    return this.#send({ op: "fill", selector, value });
  }

  /** The text of the first match of `selector`. */
  async text(selector: string): Promise<string> {
    return String(await this.#send({ op: "text", selector }));
  }

  /** How many elements match `selector`. */
  async count(selector: string): Promise<number> {
    return Number(await this.#send({ op: "count", selector }));
  }

  /** A full-page PNG at `path`. */
  screenshot(path: string): Promise<unknown> {
    return this.#send({ op: "screenshot", path });
  }

  /** Evaluate `expression` in the page; its (JSON) value. */
  evaluate(expression: string): Promise<unknown> {
    return this.#send({ op: "evaluate", expression });
  }

  /** The page's console messages and errors since the last call. */
  async logs(): Promise<string[]> {
    return await this.#send({ op: "logs" }) as string[];
  }

  /** Close the browser, wait for the driver to exit and remove the profile. */
  async close(): Promise<void> {
    try {
      await this.#writer.write(new TextEncoder().encode(JSON.stringify({ op: "close" }) + "\n"));
      await this.#writer.close();
    } catch {
      // The driver is gone already.
    }
    const status = await Promise.race([
      this.#child.status,
      new Promise<undefined>((resolve) => {
        const timer = setTimeout(() => resolve(undefined), 10_000);
        this.#child.status.finally(() => clearTimeout(timer));
      }),
    ]);
    if (!status) {
      this.#child.kill("SIGKILL");
      await this.#child.status;
    }
    await this.#lines.cancel().catch(() => {});
    await Deno.remove(this.#profile, { recursive: true }).catch(() => {});
  }
}
