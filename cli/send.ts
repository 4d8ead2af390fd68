/**
 * `seam send <url> <prompt>`: delegate one task to an A2A agent (a seam
 * gateway or anyone's) through `@seam/subagent-a2a`, stream its answer to
 * stdout, ask the human at the terminal when the remote needs input, and
 * cancel the remote task on Ctrl-C. Bounded: a dead URL, a refused token or
 * a remote that never answers ends it with a message and a non-zero exit
 * within `--timeout`.
 *
 * @module
 */
import process from "node:process";
import { complain, out } from "./command.ts";
import { type FlagSpec, intFlag, UsageError } from "./args.ts";
import { defineCommand, type DefinedCommand, stringFlag } from "./_command.ts";
import { assertHttpUrl, TOKEN_ENV_FLAG, tokenOf } from "./_remote_flags.ts";
import { LineReader, ProgressLine } from "./_terminal.ts";
import { askAtTerminal } from "./_ask.ts";

const FLAGS: readonly FlagSpec[] = [
  {
    name: "provider",
    kind: "value",
    value: "NAME",
    help: "a seam gateway's provider to address (default: the card's)",
  },
  TOKEN_ENV_FLAG,
  {
    name: "timeout",
    kind: "value",
    value: "MS",
    help: "the most a request may take to answer, the card included (30000)",
  },
  {
    name: "idle-timeout",
    kind: "value",
    value: "MS",
    help: "the most the task may bring nothing new (300000)",
  },
  { name: "deadline", kind: "value", value: "MS", help: "the most the whole task may take (none)" },
  {
    name: "progress",
    kind: "value",
    value: "MS",
    help: "a progress line on stderr after this long without output (2000; 0: none)",
  },
];

/** `seam send`. */
export const sendCommand: DefinedCommand = defineCommand({
  name: "send",
  summary: "send a task to an A2A agent and stream its answer",
  synopsis: "seam send [options] <url> <prompt…>",
  description:
    `Send a task to the A2A agent at <url> (its base URL or agent card URL; for a seam gateway,
http://host:port or http://host:port/<provider>) and stream its answer to stdout. When the remote
asks a question or a permission, it is asked here: type the answer (or an option's number) and
Enter; an empty line or end of input refuses. Ctrl-C cancels the remote task (twice: exit at once).
Exit status: 0 completed, 1 the task failed or could not be sent, 2 bad usage, 130 cancelled.`,
  flags: FLAGS,
  positionals: true,
  async run({ flags, positionals }) {
    const [url, ...words] = positionals;
    if (url === undefined || words.length === 0) {
      throw new UsageError("needs a URL and a prompt: seam send <url> <prompt…>");
    }
    assertHttpUrl(url);
    const timeoutMs = intFlag(flags, "timeout", 30_000, 1)!;
    const idleTimeoutMs = intFlag(flags, "idle-timeout", 300_000, 1)!;
    const deadlineMs = intFlag(flags, "deadline", undefined, 1);
    const progressMs = intFlag(flags, "progress", 2_000, 0)!;
    const token = tokenOf(flags);
    return await send(url, words.join(" "), {
      provider: stringFlag(flags, "provider"),
      token,
      timeoutMs,
      idleTimeoutMs,
      deadlineMs,
      progressMs,
    });
  },
});

interface SendOptions {
  readonly provider?: string;
  readonly token?: string;
  readonly timeoutMs: number;
  readonly idleTimeoutMs: number;
  readonly deadlineMs?: number;
  readonly progressMs: number;
}

async function send(url: string, prompt: string, options: SendOptions): Promise<number> {
  const { createHost, createLogger, textOf } = await import("@seam/host");
  const { createSubagentService, handleSubagentInput, subagentProgress } = await import(
    "@seam/subagent"
  );
  const { createA2AProvider } = await import("@seam/subagent-a2a");
  // The provider's diagnostics would interleave with the answer: only errors, on stderr.
  const logger = createLogger({
    level: "error",
    name: "seam send",
    sink: (record) => process.stderr.write(`${record.name}: ${record.message}\n`),
  });
  const host = createHost({ logger });
  const lines = new LineReader();
  let task = "no task yet";
  let words = 0;
  let wrote = false;
  const progress = new ProgressLine(options.progressMs, () => `${task}, ${words} words so far`);
  try {
    let provider;
    try {
      provider = await createA2AProvider({
        url,
        name: "remote",
        token: options.token,
        timeoutMs: options.timeoutMs,
        idleTimeoutMs: options.idleTimeoutMs,
        deadlineMs: options.deadlineMs,
        ...(options.provider ? { provider: options.provider } : {}),
        logger,
      });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      complain("send", `Cannot reach the A2A agent at ${url}: ${messageOf(error)}${hintFor(code)}`);
      return 1;
    }
    const subagents = createSubagentService(host.scope);
    subagents.registerProvider(provider);
    host.scope.on(subagentProgress, (info) => {
      if (info.kind === "remote" && info.remote) {
        task = `task ${info.remote.taskId} on ${info.remote.agentName}`;
      } else if (info.kind === "text" && info.text) {
        progress.clear();
        out(info.text);
        wrote = true;
        words += info.text.split(/\s+/).filter(Boolean).length;
      }
    });
    handleSubagentInput(host.scope, async (request, { signal }) => {
      progress.clear();
      if (wrote) out("\n");
      const answer = await askAtTerminal(request, lines, signal);
      progress.clear();
      return answer;
    });
    const run = subagents.start("remote", {
      prompt,
      parent: { id: "seam-send", scope: host.scope },
    });
    let interrupts = 0;
    const onInterrupt = () => {
      if (++interrupts > 1) process.exit(130);
      progress.clear();
      complain("send", `cancelling ${task} (Ctrl-C again to exit at once)`);
      run.cancel("cancelled at the terminal (Ctrl-C)");
    };
    process.on("SIGINT", onInterrupt);
    try {
      const result = await run.result;
      progress.stop();
      if (!wrote && result.output.length > 0) {
        out(textOf(result.output));
        wrote = true;
      }
      if (wrote) out("\n");
      if (result.stopReason === "completed") return 0;
      if (result.stopReason === "aborted") {
        complain("send", `cancelled ${task}`);
        return 130;
      }
      const why = result.error
        ? `${result.error.message} (${result.error.code})${
          hintFor(result.error.code, result.error.data)
        }`
        : "no reason given";
      const which = task === "no task yet" ? "the task" : task;
      complain("send", `${which} at ${url} ended ${result.stopReason}: ${why}`);
      return 1;
    } finally {
      process.off("SIGINT", onInterrupt);
      await run.dispose();
    }
  } finally {
    progress.stop();
    lines.close();
    await host.scope.dispose();
  }
}

function messageOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? `${error.message} (${code})` : error.message;
}

/** The flag of each bound the A2A provider names in a `TIMEOUT` failure's `data.option`. */
const FLAG_OF_BOUND: Readonly<Record<string, string>> = {
  timeoutMs: "--timeout",
  idleTimeoutMs: "--idle-timeout",
  deadlineMs: "--deadline",
};

/** What to change on the command line for a failure, by its code (and data). */
function hintFor(code: unknown, data?: unknown): string {
  if (code === "AUTH_REQUIRED") {
    return "; seam send reads the bearer token from SEAM_TOKEN (or the variable --token-env names)";
  }
  const bound = (data as { option?: unknown } | null | undefined)?.option;
  if (code === "TIMEOUT" && typeof bound === "string" && Object.hasOwn(FLAG_OF_BOUND, bound)) {
    return `; to wait longer, raise ${FLAG_OF_BOUND[bound]} (in ms)`;
  }
  return "";
}
