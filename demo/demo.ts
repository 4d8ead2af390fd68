/**
 * The delegation demo, runtime-neutral: a parent agent delegates through the
 * `subagent` tool (bound to `spawn`) and the `subagent_fork` tool (bound to
 * `fork`) in parallel, the spawn child delegates once more, the grandchild
 * asks for approval to run a command (answered by a scripted handler on the
 * root scope), and the whole tree of runs is printed as it happens.
 * `main.ts` is the Deno entry.
 *
 * @module
 */
import {
  agentTextDelta,
  createHost,
  createScriptedModel,
  delay,
  type EnvModel,
  type Logger,
  type ModelAdapter,
  type ModelEvent,
  modelFromEnv as hostModelFromEnv,
  type ModelRequest,
  silentLogger,
  textOf,
} from "@seam/host";
import {
  createSubagentService,
  handleSubagentInput,
  subagentEnd,
  type SubagentInputHandler,
  subagentInputRequired,
  subagentInputResolved,
  subagentProgress,
  subagentStart,
  type SubagentStopReason,
  type SubagentUsage,
} from "@seam/subagent";
import { createForkProvider } from "@seam/subagent-fork";
import { createSpawnProvider } from "@seam/subagent-spawn";
import { installSubagentTool } from "@seam/tool-subagent";

/** A real model for the demo: an adapter and the model id agents run on. */
export type DemoModel = EnvModel;

/** Options of {@linkcode runDemo}. */
export interface DemoOptions {
  /** Where the output goes. */
  readonly write: (text: string) => void;
  /** Redraw the tree in place (a terminal) instead of printing line-based updates. */
  readonly live?: boolean;
  /** ANSI colours (only used when `live`). */
  readonly color?: boolean;
  /** Clip live lines to this many columns (default 100). */
  readonly columns?: number;
  /** A real model; default: the embedded scripted model. */
  readonly model?: DemoModel;
  /** Scripted pacing: milliseconds per streamed word and per "thinking" pause. */
  readonly pace?: { readonly wordMs: number; readonly thinkMs: number };
  /** Aborting it cancels the parent's turn (Ctrl-C). */
  readonly signal?: AbortSignal;
  /** Warnings of the runtime (default: none). */
  readonly logger?: Logger;
  /** The clock (milliseconds). */
  readonly now?: () => number;
}

/** A tool call a run asked approval for, and the answer. */
export interface DemoApproval {
  /** What was asked (`Run "deno test --filter flaky"`). */
  readonly title: string;
  /** The answer: the option chosen (`Allow once`) or `refused: <reason>`; absent while waiting. */
  readonly answer?: string;
  /** Whether the call was allowed; absent while waiting. */
  readonly allowed?: boolean;
}

/** One run in the printed tree (the root is the parent agent itself). */
export interface DemoRun {
  /** The run's id (the child agent's id; `main` for the parent). */
  readonly id: string;
  /** The provider (`spawn`, `fork`); `""` for the parent. */
  readonly provider: string;
  /** The task's label (the tool call's `description`). */
  readonly label: string;
  /** Delegation depth (the parent is 0). */
  readonly depth: number;
  /** `running`, a stop reason, or `failed` (an infrastructure fault). */
  readonly status: SubagentStopReason | "running" | "failed";
  /** The streamed text so far; the final output once done. */
  readonly text: string;
  /** Milliseconds from start to end, once done. */
  readonly durationMs?: number;
  /** The tool calls it asked approval for, in order. */
  readonly approvals: readonly DemoApproval[];
  /** What the run and its subtree used, once done (`subagent/end`'s usage). */
  readonly usage?: SubagentUsage;
  /** The runs it started, in start order. */
  readonly children: readonly DemoRun[];
}

/** What {@linkcode runDemo} returns. */
export interface DemoReport {
  /** The tree of runs, rooted at the parent agent. */
  readonly tree: DemoRun;
  /** The parent's final answer. */
  readonly finalAnswer: string;
}

/** The task, in words (the scripted model acts it out; a real model is given it). */
export const DEMO_TASK =
  "Prepare the seam 0.2 release: in parallel, audit the open issues (a fresh child, which " +
  "checks the flaky tests with a grandchild of its own, asking approval to run them) and draft " +
  "the release notes (a fork, which already knows the context); then combine both into a short plan.";

/** The command the grandchild asks to run; the root's policy allows `deno test` commands only. */
export const DEMO_COMMAND = "deno test --filter flaky";

const CONTEXT =
  "Context for later: we release seam 0.2 on Friday; its headline is the model-facing subagent " +
  "tool. Just acknowledge this in one sentence.";

const REAL_TASK = `${DEMO_TASK}

Do it like this, calling both tools in ONE step so they run in parallel:
1. \`subagent\` (a fresh child that cannot see this conversation): ask it to list the three most
   likely release blockers for a small TypeScript library that delegates tasks between AI agents,
   and tell it to use its own \`subagent\` tool exactly once to ask a grandchild to run
   \`${DEMO_COMMAND}\` with its \`run_command\` tool (which needs approval) and report in one
   line, including that answer in one line.
2. \`subagent_fork\` (a child that sees our earlier turns): ask it to draft three lines of release
   notes for 0.2.
Then answer with the combined plan in at most eight lines.`;

/** The scripted conversation: the parent fans out, the spawn child delegates again. */
function scriptedTurns(thinkMs: number): { context: string; task: string } {
  const delay = `@delay ${thinkMs}`;
  const grandchild = [
    delay,
    `@call run_command ${JSON.stringify({ command: DEMO_COMMAND })}`,
    "@reply Two tests are flaky on CI: {{results}}.",
  ].join("\n");
  const spawn = [
    delay,
    `@call subagent ${
      JSON.stringify({ description: "Check the flaky tests", prompt: grandchild })
    }`,
    "@reply Three issues block 0.2: the gateway's SSE resume, the ACP stdio shutdown and the flaky tests. Flaky tests: {{results}}",
  ].join("\n");
  const fork = [
    `@delay ${thinkMs * 2}`,
    "@reply Release notes: seam 0.2 ships on Friday with the model-facing subagent tool, fork children that see the completed turns, and a live delegation demo.",
  ].join("\n");
  const task = [
    delay,
    `@calls ${
      JSON.stringify([
        { name: "subagent", args: { description: "Audit the open issues", prompt: spawn } },
        { name: "subagent_fork", args: { description: "Draft the release notes", prompt: fork } },
      ])
    }`,
    '@reply "Plan for Friday:\\n{{results}}"',
  ].join("\n");
  return {
    context: `${delay}\n@reply Noted: seam 0.2 ships on Friday, headlined by the subagent tool.`,
    task,
  };
}

/** The real model configured by the environment (see `modelFromEnv` in `@seam/host`). */
export const modelFromEnv = hostModelFromEnv;

/** Stream the scripted model's words at a readable pace. */
function paced(inner: ModelAdapter, wordMs: number): ModelAdapter {
  if (wordMs <= 0) return inner;
  return {
    name: inner.name,
    async *stream(request: ModelRequest): AsyncGenerator<ModelEvent> {
      for await (const event of inner.stream(request)) {
        if (event.type === "text-delta") await delay(wordMs, request.signal);
        yield event;
      }
    },
  };
}

interface Approval {
  id: string;
  title: string;
  answer?: string;
  allowed?: boolean;
}

interface Node {
  id: string;
  provider: string;
  label: string;
  depth: number;
  status: DemoRun["status"];
  text: string;
  startedAt: number;
  durationMs?: number;
  approvals: Approval[];
  usage?: SubagentUsage;
  children: Node[];
}

/**
 * The demo's `run_command`: it needs approval for every call, and only
 * pretends to run (a canned report), so the demo stays deterministic.
 */
const RUN_COMMAND = {
  name: "run_command",
  description:
    "Run a shell command in the repository and return its output (in this demo it is simulated). Every call needs approval.",
  parameters: {
    type: "object",
    properties: { command: { type: "string", description: "The command line" } },
    required: ["command"],
  },
  requiresApproval: true,
  kind: "execute",
  title: ({ command }: { command: string }) => `Run "${command}"`,
  execute: ({ command }: { command: string }) => ({
    content: command.startsWith("deno test")
      ? "the SSE reconnect test and the fork teardown test failed, then passed on a rerun"
      : `${command}: done`,
  }),
};

/**
 * The root's scripted approval policy: after a pause (a person reading),
 * allow `deno test` commands once, reject anything else.
 */
function scriptedPolicy(thinkMs: number): SubagentInputHandler {
  return async (request, { signal }) => {
    if (request.kind !== "permission") return undefined;
    try {
      await delay(thinkMs, signal);
    } catch {
      return undefined; // answered or cancelled meanwhile
    }
    const command = (request.toolCall?.rawInput as { command?: unknown } | undefined)?.command;
    const allowed = typeof command === "string" && command.startsWith("deno test");
    return { outcome: "selected", optionId: allowed ? "allow_once" : "reject_once" };
  };
}

const GLYPHS: Record<DemoRun["status"], string> = {
  running: "…",
  completed: "✓",
  aborted: "⊘",
  error: "✗",
  "max-tokens": "✂",
  refusal: "✗",
  "budget-exhausted": "⌛",
  failed: "✗",
};

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function clip(text: string, width: number, fromEnd: boolean): string {
  if (text.length <= width) return text;
  return fromEnd ? `…${text.slice(text.length - width + 1)}` : `${text.slice(0, width - 1)}…`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)}s`;
}

/**
 * Run the demo to its end: set up a host with spawn, fork and the two tools,
 * run the parent's context turn and its delegating turn, print the tree as
 * it grows, then the final tree and the parent's answer.
 */
export async function runDemo(options: DemoOptions): Promise<DemoReport> {
  const write = options.write;
  const now = options.now ?? (() => Date.now());
  const live = options.live ?? false;
  const color = live && (options.color ?? false);
  const columns = Math.max(40, options.columns ?? 100);
  const pace = options.pace ?? { wordMs: 30, thinkMs: 250 };

  const host = createHost({ logger: options.logger ?? silentLogger });
  const modelId = options.model?.id ?? "scripted";
  host.models.register(
    host.scope,
    modelId,
    options.model?.adapter ?? paced(createScriptedModel(), pace.wordMs),
  );
  host.prompts.register(host.scope, {
    name: "persona",
    text: "You are {{agentId}}, a concise engineering assistant. Keep every answer short.",
  });
  const subagents = createSubagentService(host.scope);
  // The tools are installed before their providers: each waits, then mounts.
  installSubagentTool(host.scope, { provider: "spawn", maxDepth: 2 });
  installSubagentTool(host.scope, { provider: "fork", toolName: "subagent_fork", maxDepth: 2 });
  subagents.registerProvider(createSpawnProvider());
  subagents.registerProvider(createForkProvider());
  // A tool that needs approval, and the root's handler that answers for every descendant.
  host.tools.register(host.scope, RUN_COMMAND);
  handleSubagentInput(host.scope, scriptedPolicy(pace.thinkMs));

  const t0 = now();
  const root: Node = {
    id: "main",
    provider: "",
    label: "parent agent",
    depth: 0,
    status: "running",
    text: "",
    startedAt: t0,
    approvals: [],
    children: [],
  };
  const nodes = new Map<string, Node>([[root.id, root]]);
  const stamp = () => `[${seconds(now() - root.startedAt)}]`;
  const log = (line: string) => {
    if (!live) write(`${line}\n`);
  };

  host.scope.on(subagentStart, (info) => {
    const parent = nodes.get(info.parentRunId ?? info.parentId) ?? root;
    const node: Node = {
      id: info.runId,
      provider: info.provider,
      // The tool's call `description`, carried by the event.
      label: info.label ?? clip(oneLine(textOf(info.prompt)), 40, false),
      depth: info.depth,
      status: "running",
      text: "",
      startedAt: now(),
      approvals: [],
      children: [],
    };
    nodes.set(node.id, node);
    parent.children.push(node);
    log(
      `${stamp()} ▶ ${node.id} started "${node.label}" (${node.provider}, depth ${node.depth}, under ${parent.id})`,
    );
  });
  // The root agent's own text; every child's comes as `subagent/progress`,
  // which every provider emits (in-process, ACP, A2A alike).
  host.scope.on(agentTextDelta, (info) => {
    if (info.agentId === root.id && root.status === "running") root.text += info.text;
  });
  host.scope.on(subagentProgress, (info) => {
    const node = nodes.get(info.runId);
    if (info.kind === "text" && node && node.status === "running") node.text += info.text ?? "";
  });
  let redraw = (): void => {};
  host.scope.on(subagentInputRequired, (request) => {
    const node = nodes.get(request.runId);
    if (!node) return;
    const title = request.toolCall?.title ?? request.message;
    node.approvals.push({ id: request.id, title });
    log(`${stamp()} ? ${node.id} asks approval: ${title}`);
    redraw();
  });
  host.scope.on(subagentInputResolved, ({ request, answer }) => {
    const node = nodes.get(request.runId);
    const approval = node?.approvals.find((a) => a.id === request.id);
    if (!node || !approval) return;
    const option = answer.outcome === "selected"
      ? request.options?.find((o) => o.id === answer.optionId)
      : undefined;
    approval.allowed = option !== undefined && option.kind.startsWith("allow");
    approval.answer = option
      ? option.label
      : answer.outcome === "refused"
      ? `refused: ${answer.reason}`
      : "answered";
    log(
      `${stamp()} ${approval.allowed ? "✓" : "✗"} the root ${
        approval.allowed ? "allowed" : "did not allow"
      } ${node.id}: ${approval.title} (${approval.answer})`,
    );
    redraw();
  });
  host.scope.on(subagentEnd, (info) => {
    const node = nodes.get(info.runId);
    if (!node) return;
    node.status = info.stopReason;
    node.durationMs = info.durationMs;
    node.usage = info.usage;
    const final = info.lastAssistantMessage ? textOf(info.lastAssistantMessage) : "";
    if (final.trim() !== "") node.text = final;
    if (info.error) node.text = `${node.text} [${info.error.code}: ${info.error.message}]`.trim();
    log(
      `${stamp()} ${GLYPHS[node.status]} ${node.id} ${node.status} in ${
        seconds(info.durationMs)
      }: ${clip(oneLine(node.text), 90, false)}`,
    );
  });

  const render = (colored: boolean): string[] => {
    const paint = (code: string, text: string) => colored ? `\x1b[${code}m${text}\x1b[0m` : text;
    const lines: string[] = [];
    const status = (node: Node) => {
      const elapsed = node.durationMs ?? now() - node.startedAt;
      const glyph = GLYPHS[node.status];
      const word = `${glyph} ${node.status}`;
      return `${
        node.status === "completed"
          ? paint("32", word)
          : node.status === "running"
          ? paint("33", word)
          : paint("31", word)
      } · ${seconds(elapsed)}`;
    };
    const asks = (node: Node, indent: string) => {
      for (const approval of node.approvals) {
        const answer = approval.answer === undefined
          ? paint("33", "… waiting for approval")
          : approval.allowed
          ? paint("32", `✓ ${approval.answer}`)
          : paint("31", `✗ ${approval.answer}`);
        lines.push(`${indent}  ? ${approval.title} → ${answer}`);
      }
    };
    const excerpt = (node: Node, indent: string) => {
      const text = oneLine(node.text);
      if (text === "") return;
      const width = Math.max(20, columns - indent.length - 2);
      lines.push(`${indent}  ${paint("2", clip(text, width, node.status === "running"))}`);
    };
    lines.push(`${paint("1", root.id)} · ${root.label} · ${status(root)}`);
    excerpt(root, root.children.length > 0 ? "│" : "");
    const walk = (node: Node, prefix: string) => {
      node.children.forEach((child, i) => {
        const last = i === node.children.length - 1;
        lines.push(
          `${prefix}${last ? "└─" : "├─"} ${
            paint("1", child.label)
          }  [${child.id} · ${child.provider} · depth ${child.depth} · ${status(child)}${
            child.usage ? ` · ${tokens(child.usage)}` : ""
          }]`,
        );
        const inner = `${prefix}${last ? "   " : "│  "}`;
        asks(child, child.children.length > 0 ? `${inner}│` : inner);
        excerpt(child, child.children.length > 0 ? `${inner}│` : inner);
        walk(child, inner);
      });
    };
    walk(root, "");
    return lines;
  };

  let drawn = 0;
  let drawing = false;
  const draw = () => {
    // A line wider than the terminal would wrap and throw off the redraw:
    // clip it (a clipped line loses its colours).
    const plain = render(false);
    const colored = color ? render(true) : plain;
    const lines = plain.map((line, i) =>
      line.length > columns ? clip(line, columns, false) : colored[i]
    );
    write(`${drawn > 0 ? `\x1b[${drawn}F\x1b[0J` : ""}${lines.join("\n")}\n`);
    drawn = lines.length;
  };
  // A question and its answer are drawn at once, not at the next tick.
  redraw = () => {
    if (drawing) draw();
  };

  const scripted = scriptedTurns(pace.thinkMs);
  write(`seam demo: a parent agent delegates through the subagent tool\n`);
  write(
    `model    ${
      options.model
        ? options.model.label
        : "scripted (embedded, deterministic); set DEEPSEEK_API_KEY to use a real model"
    }\n`,
  );
  write(
    "tools    subagent → spawn (fresh child) · subagent_fork → fork (sees the completed turns) · maxDepth 2\n",
  );
  write(
    "approval run_command needs approval; the root's scripted policy allows `deno test` commands once\n",
  );

  const main = await host.agents.create({ id: "main", options: { model: modelId } });
  const onAbort = () => main.cancel("interrupted");
  options.signal?.addEventListener("abort", onAbort, { once: true });
  let timer: ReturnType<typeof setInterval> | undefined;
  try {
    // Turn 1: context the fork child will see (it is seeded with completed turns).
    main.send(options.model ? CONTEXT : scripted.context);
    const context = await main.whenIdle();
    write(`context  ${clip(oneLine(textOf(context.output)), 90, false)}\n`);
    write(`task     ${DEMO_TASK}\n\n`);

    // Turn 2: the delegation, drawn as it happens.
    root.startedAt = now();
    root.text = "";
    if (live) {
      write("\x1b[?25l");
      drawing = true;
      draw();
      timer = setInterval(draw, 80);
    }
    main.send(options.model ? REAL_TASK : scripted.task);
    const end = await main.whenIdle();
    root.status = end.reason;
    root.durationMs = now() - root.startedAt;
    root.text = textOf(end.output);
    if (live) {
      clearInterval(timer);
      timer = undefined;
      drawing = false;
      draw();
      write("\x1b[?25h\n");
    } else {
      write("\ndelegation tree\n");
      write(`${render(false).join("\n")}\n\n`);
    }
    const finalAnswer = textOf(end.output);
    if (end.reason === "completed") {
      write(`final answer\n${finalAnswer}\n`);
    } else {
      write(`the parent's turn ended ${end.reason}${end.error ? `: ${end.error}` : ""}\n`);
    }
    return { tree: freeze(root), finalAnswer };
  } finally {
    drawing = false;
    if (timer !== undefined) {
      clearInterval(timer);
      write("\x1b[?25h\n");
    }
    options.signal?.removeEventListener("abort", onAbort);
    await host.scope.dispose();
  }
}

/** A run's subtree tokens and model calls, e.g. `1.2k tok, 3 calls` (`~` when partial). */
function tokens(usage: SubagentUsage): string {
  const t = usage.total;
  const n = t.inputTokens + t.outputTokens;
  const shown = n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
  return `${usage.partial ? "≥" : ""}${shown} tok, ${t.modelCalls} call${
    t.modelCalls === 1 ? "" : "s"
  }`;
}

function freeze(node: Node): DemoRun {
  return Object.freeze({
    id: node.id,
    provider: node.provider,
    label: node.label,
    depth: node.depth,
    status: node.status,
    text: node.text,
    ...(node.durationMs !== undefined ? { durationMs: node.durationMs } : {}),
    approvals: Object.freeze(node.approvals.map(({ title, answer, allowed }) =>
      Object.freeze({
        title,
        ...(answer !== undefined ? { answer } : {}),
        ...(allowed !== undefined ? { allowed } : {}),
      })
    )),
    ...(node.usage !== undefined ? { usage: node.usage } : {}),
    children: Object.freeze(node.children.map(freeze)),
  });
}
