// The CLI as a real process: `deno run cli/main.ts …`, its output captured,
// killed (and the test failed) past a deadline.
import type { SubagentProvider } from "@seam/subagent";
import { textOf } from "@seam/host";
import { askingProvider } from "../tests/asking_support.ts";

const MAIN = new URL("./main.ts", import.meta.url).pathname;
const decoder = new TextDecoder();

/** A `seam` process started by {@linkcode startSeam}. */
export interface SeamProcess {
  readonly child: Deno.ChildProcess;
  /** stdout and stderr so far. */
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** Write a line to its stdin. */
  writeLine(line: string): Promise<void>;
  /** Close its stdin. */
  closeStdin(): Promise<void>;
  /** Its exit code, once it exited; kills it and throws past `ms`. */
  exited(ms?: number): Promise<number>;
  /** Resolve once `pattern` shows in stdout or stderr; throws past `ms`. */
  waitFor(pattern: RegExp, ms?: number): Promise<void>;
}

/** Start `seam args…` with `env` added to a clean environment. */
export function startSeam(args: readonly string[], env: Record<string, string> = {}): SeamProcess {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", MAIN, ...args],
    env: {
      NO_COLOR: "1",
      SEAM_TOKEN: "",
      DEEPSEEK_API_KEY: "",
      OPENAI_API_KEY: "",
      DATABASE_URL: "",
      SEAM_GATEWAY_TOKEN: "",
      SEAM_INSPECTOR: "",
      PORT: "",
      HOST: "",
      ...env,
    },
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let out = "";
  let err = "";
  const drained = Promise.all([
    child.stdout.pipeTo(
      new WritableStream({ write: (chunk) => void (out += decoder.decode(chunk)) }),
    ),
    child.stderr.pipeTo(
      new WritableStream({ write: (chunk) => void (err += decoder.decode(chunk)) }),
    ),
  ]);
  const writer = child.stdin.getWriter();
  let stdinOpen = true;
  const closeStdin = async () => {
    if (!stdinOpen) return;
    stdinOpen = false;
    await writer.close().catch(() => {});
  };
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    writeLine: (line) => writer.write(new TextEncoder().encode(`${line}\n`)),
    closeStdin,
    async exited(ms = 20_000) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          try {
            child.kill("SIGKILL");
          } catch { /* gone */ }
          reject(new Error(`seam ${args.join(" ")} did not exit within ${ms} ms:\n${out}\n${err}`));
        }, ms);
      });
      try {
        const { code } = await Promise.race([child.status, late]);
        await closeStdin();
        await drained;
        return code;
      } finally {
        clearTimeout(timer);
        await closeStdin();
      }
    },
    async waitFor(pattern, ms = 15_000) {
      const deadline = Date.now() + ms;
      while (!pattern.test(out) && !pattern.test(err)) {
        if (Date.now() > deadline) {
          throw new Error(`seam ${args.join(" ")} never printed ${pattern}:\n${out}\n${err}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}

/** Run `seam args…` to its end (stdin closed); its exit code and output. */
export async function runSeam(
  args: readonly string[],
  env: Record<string, string> = {},
  ms?: number,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const seam = startSeam(args, env);
  await seam.closeStdin();
  const code = await seam.exited(ms);
  return { code, stdout: seam.stdout(), stderr: seam.stderr() };
}

const OPTIONS = [
  { id: "allow", label: "Allow once", kind: "allow_once" },
  { id: "reject", label: "Reject", kind: "reject_once" },
] as const;

/**
 * A provider whose child asks permission to do what its prompt says, then
 * answers with the option chosen (or the refusal), as a remote agent needing
 * input at the terminal would.
 */
export function permissionAsker(): SubagentProvider {
  return askingProvider("asking", async ({ request, ask }) => {
    const what = textOf(request.prompt).trim();
    const answer = await ask({
      kind: "permission",
      message: `May I ${what}?`,
      toolCall: { name: "shell", title: what, rawInput: { command: what } },
      options: OPTIONS,
    });
    const said = answer.outcome === "selected"
      ? `chose ${answer.optionId}`
      : answer.outcome === "answered"
      ? `heard ${answer.text}`
      : `refused: ${answer.reason}`;
    return { output: said, stopReason: "completed" };
  });
}
