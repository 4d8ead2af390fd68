/**
 * What the test agent needs from its runtime, on Deno's own APIs under Deno
 * (a Deno process that loads Node's compatibility layer starts ~50 ms later)
 * and on Node's under Node (the Node test run bundles the agent and runs it
 * with `node`).
 *
 * @module
 */

/** The test agent's view of its process. */
export interface AgentIo {
  readonly args: readonly string[];
  readonly pid: number;
  env(name: string): string | undefined;
  /** Write all of `bytes` to fd 1 (stdout) or 2 (stderr), synchronously. */
  write(fd: 1 | 2, bytes: Uint8Array): void;
  exit(code: number): never;
  onSigterm(listener: () => void): void;
  stdin(): AsyncIterable<Uint8Array>;
  /**
   * Start a process of this runtime running `code` (stdout and stderr
   * inherited), through `setsid(1)` when `setsid` is set; its pid.
   */
  spawnScript(code: string, setsid: boolean): number;
  /** Run `argv` to its end (stdin closed, stderr inherited): its exit code and stdout. */
  run(argv: readonly string[]): Promise<{ code: number; stdout: string }>;
}

type Deno = {
  args: string[];
  pid: number;
  env: { get(name: string): string | undefined };
  stdout: { writeSync(bytes: Uint8Array): number };
  stderr: { writeSync(bytes: Uint8Array): number };
  exit(code: number): never;
  addSignalListener(signal: "SIGTERM", listener: () => void): void;
  stdin: { readable: ReadableStream<Uint8Array> };
  execPath(): string;
  Command: new (command: string, options: Record<string, unknown>) => {
    spawn(): { pid: number; unref(): void };
    output(): Promise<{ code: number; stdout: Uint8Array }>;
  };
};

function denoIo(deno: Deno): AgentIo {
  return {
    args: deno.args,
    pid: deno.pid,
    env: (name) => deno.env.get(name),
    write(fd, bytes) {
      const stream = fd === 1 ? deno.stdout : deno.stderr;
      let offset = 0;
      while (offset < bytes.length) offset += stream.writeSync(bytes.subarray(offset));
    },
    exit: (code) => deno.exit(code),
    onSigterm: (listener) => deno.addSignalListener("SIGTERM", listener),
    stdin: () => deno.stdin.readable,
    spawnScript(code, setsid) {
      const argv = [deno.execPath(), "eval", code];
      const child = new deno.Command(setsid ? "setsid" : argv[0], {
        args: setsid ? argv : argv.slice(1),
        stdin: "null",
        stdout: "inherit",
        stderr: "inherit",
      }).spawn();
      child.unref();
      return child.pid;
    },
    async run(argv) {
      try {
        const { code, stdout } = await new deno.Command(argv[0], {
          args: argv.slice(1),
          stdin: "null",
          stdout: "piped",
          stderr: "inherit",
        }).output();
        return { code, stdout: new TextDecoder().decode(stdout) };
      } catch {
        return { code: 127, stdout: "" }; // not found, not executable
      }
    },
  };
}

async function nodeIo(): Promise<AgentIo> {
  const [fs, { default: process }, childProcess] = await Promise.all([
    import("node:fs"),
    import("node:process"),
    import("node:child_process"),
  ]);
  return {
    args: process.argv.slice(2),
    pid: process.pid,
    env: (name) => process.env[name],
    write(fd, bytes) {
      let offset = 0;
      while (offset < bytes.length) {
        try {
          offset += fs.writeSync(fd, bytes, offset);
        } catch (error) {
          if ((error as { code?: string }).code !== "EAGAIN") throw error;
        }
      }
    },
    exit: (code) => process.exit(code),
    onSigterm: (listener) => void process.on("SIGTERM", listener),
    stdin: () => process.stdin,
    spawnScript(code, setsid) {
      const argv = [process.execPath, "-e", code];
      const child = childProcess.spawn(setsid ? "setsid" : argv[0], setsid ? argv : argv.slice(1), {
        stdio: ["ignore", "inherit", "inherit"],
      });
      child.unref();
      return child.pid ?? 0;
    },
    run(argv) {
      return new Promise((resolve) => {
        const child = childProcess.spawn(argv[0], argv.slice(1), {
          stdio: ["ignore", "pipe", "inherit"],
        });
        let stdout = "";
        child.stdout.setEncoding("utf8");
        child.stdout.on("data", (piece: string) => stdout += piece);
        child.on("error", () => resolve({ code: 127, stdout }));
        child.on("close", (code: number | null) => resolve({ code: code ?? 1, stdout }));
      });
    },
  };
}

const deno = (globalThis as { Deno?: Partial<Deno> }).Deno;

/** This process's runtime. */
export const io: AgentIo = typeof deno?.Command === "function"
  ? denoIo(deno as Deno)
  : await nodeIo();
