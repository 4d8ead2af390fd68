// Test support for the gateway's own tests: a provider the test drives by
// hand, a gateway over it, and JSON-RPC and SSE helpers (no socket).
import { mock } from "node:test";
import { type ContentBlock, createMemoryLogger, createRootScope, type Scope } from "@seam/host";
import {
  createSubagentService,
  type DelegationContext,
  delegationContextKey,
  type SubagentCapabilities,
  type SubagentInputAnswer,
  type SubagentInputAsk,
  SubagentInputs,
  type SubagentProvider,
  type SubagentRequest,
  type SubagentResultInput,
  type SubagentRunHandle,
  type SubagentService,
} from "@seam/subagent";
import { createGateway, type Gateway, type GatewayOptions } from "./mod.ts";

export const ALL: SubagentCapabilities = {
  outputSchema: true,
  depthLimit: true,
  toolFilter: true,
  persona: true,
};

/** One run of the controllable provider, with what happened to it. */
export interface ControlledRun {
  readonly request: SubagentRequest;
  readonly id: string;
  ready(): void;
  fail(error: unknown): void;
  finish(result: SubagentResultInput): void;
  reject(error: unknown): void;
  readonly cancel: ReturnType<typeof mock.fn>;
  readonly dispose: ReturnType<typeof mock.fn>;
  readonly sent: ContentBlock[][];
  readonly resumedWith: ContentBlock[][];
  /** What `sendMessage` awaits once it has the content (default: nothing). */
  onSend?: () => Promise<void>;
  /** The delegation context the parent's scope provided at start. */
  readonly delegation: DelegationContext | undefined;
  /** Ask for input and answer how it was decided (a provider made with `inputs`). */
  ask(ask: SubagentInputAsk): Promise<SubagentInputAnswer>;
}

export interface Controlled extends SubagentProvider {
  readonly runs: ControlledRun[];
}

/**
 * A provider whose runs the test drives: readiness and results are settled
 * by hand. `auto`: become ready and complete with the prompt at once.
 */
export function controlledProvider(options: {
  name?: string;
  capabilities?: Partial<SubagentCapabilities>;
  auto?: boolean;
  steer?: boolean;
  resume?: boolean;
  cancelEnds?: boolean;
  /** Give every run this id (a provider that repeats ids). */
  fixedId?: string;
  /** Let every run ask for input (`ControlledRun.ask`), and take the answers. */
  inputs?: boolean;
} = {}): Controlled {
  const runs: ControlledRun[] = [];
  let n = 0;
  const make = (request: SubagentRequest): SubagentRunHandle => {
    let ready!: () => void;
    let fail!: (e: unknown) => void;
    const started = new Promise<void>((res, rej) => {
      ready = res;
      fail = rej;
    });
    started.catch(() => {});
    let finish!: (r: SubagentResultInput) => void;
    let reject!: (e: unknown) => void;
    const result = new Promise<SubagentResultInput>((res, rej) => {
      finish = res;
      reject = rej;
    });
    const id = options.fixedId ?? `run-${++n}`;
    const cancel = mock.fn(() => {
      if (options.cancelEnds !== false) finish({ output: "", stopReason: "aborted" });
    });
    const dispose = mock.fn(() => Promise.resolve());
    const inputs = options.inputs ? new SubagentInputs(request.parent.scope, id) : undefined;
    const run: ControlledRun = {
      request,
      id,
      ready,
      fail,
      finish,
      reject,
      cancel,
      dispose,
      sent: [],
      resumedWith: [],
      delegation: request.parent.scope.inject(delegationContextKey),
      ask: (ask) => {
        if (!inputs) throw new Error("controlledProvider: ask() needs the inputs option");
        return inputs.ask(ask);
      },
    };
    runs.push(run);
    const handle: SubagentRunHandle = { id, started, result, cancel, dispose };
    if (inputs) {
      (handle as { respond?: unknown }).respond = (
        requestId: string,
        answer: SubagentInputAnswer,
      ) => inputs.respond(requestId, answer);
    }
    if (options.steer) {
      (handle as { sendMessage?: unknown }).sendMessage = (content: ContentBlock[]) => {
        run.sent.push(content);
        return run.onSend?.() ?? Promise.resolve();
      };
    }
    if (options.resume) {
      (handle as { resume?: unknown }).resume = (content: ContentBlock[]) => {
        run.resumedWith.push(content);
        return make({ ...request, prompt: content });
      };
    }
    if (options.auto) {
      ready();
      finish({ output: request.prompt as ContentBlock[], stopReason: "completed" });
    }
    return handle;
  };
  return {
    name: options.name ?? "ctl",
    capabilities: { ...ALL, ...options.capabilities },
    inheritsParentContext: false,
    runs,
    start: make,
  };
}

export interface Setup {
  readonly root: Scope;
  readonly subagents: SubagentService;
  readonly gateway: Gateway;
  readonly errors: () => string[];
  readonly warnings: () => string[];
}

export async function withSetup(
  providers: SubagentProvider[],
  options: Partial<GatewayOptions>,
  fn: (setup: Setup) => Promise<void>,
): Promise<void> {
  const { logger, records } = createMemoryLogger();
  const root = createRootScope({ logger });
  const subagents = createSubagentService(root);
  for (const provider of providers) subagents.registerProvider(provider);
  const gateway = createGateway({ scope: root, ...options });
  try {
    await fn({
      root,
      subagents,
      gateway,
      errors: () => records.filter((r) => r.level === "error").map((r) => r.message),
      warnings: () => records.filter((r) => r.level === "warn").map((r) => r.message),
    });
  } finally {
    await gateway.close();
    await root.dispose();
  }
}

export const BASE = "http://gw.test";

/** Wire JSON as the tests read it: deep property access on the gateway's answers. */
// deno-lint-ignore no-explicit-any
export type Wire = Record<string, any>;

export function rpcRequest(
  method: string,
  params: unknown,
  headers: Record<string, string> = {},
): Request {
  return new Request(`${BASE}/`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: "req-1", method, params }),
  });
}

export async function rpc(
  gateway: Gateway,
  method: string,
  params: unknown,
  headers?: Record<string, string>,
): Promise<Wire> {
  const response = await gateway.fetch(rpcRequest(method, params, headers));
  return await response.json();
}

export function message(
  text: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }], ...extra };
}

/** Read every SSE frame of a response (the stream must end). */
export async function frames(response: Response): Promise<Wire[]> {
  const text = await response.text();
  return text.split("\n\n").filter((f) => f.startsWith("data: ")).map((f) =>
    JSON.parse(f.slice(6))
  );
}

export function describeFrame(frame: Wire): string {
  const event = frame.result ?? frame;
  if (event.task) return `task:${event.task.status.state.slice(11)}`;
  if (event.statusUpdate) return `status:${event.statusUpdate.status.state.slice(11)}`;
  const a = event.artifactUpdate;
  return `artifact:${a.append ? "append" : "set"}${a.lastChunk ? ":last" : ""}:${
    a.artifact.parts.map((p: { text?: string }) => p.text ?? "").join("")
  }`;
}

export const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * GetTask until the task is in a terminal state (a bounded poll): for a test
 * that reads a finished task, an explicit condition rather than a guess at how
 * many turns of the event loop the end takes (which differs across runtimes).
 */
export async function untilEnded(gateway: Gateway, id: string): Promise<Wire> {
  for (let i = 0; i < 200; i++) {
    const got = await rpc(gateway, "GetTask", { id });
    const state: string = got.result.status.state;
    if (/COMPLETED|FAILED|CANCELED|REJECTED/.test(state)) return got;
    await tick();
  }
  throw new Error(`Task "${id}" did not end`);
}
