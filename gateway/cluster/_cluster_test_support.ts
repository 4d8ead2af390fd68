// What the shared-storage tests (cluster_test.ts, cluster_late_steering_test.ts)
// share: many gateways on one shared memory store, in one process, and ways
// to talk to them.
import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope, type Scope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { controlledProvider, message, type Wire } from "../_test_support.ts";
import {
  createGateway,
  createMemoryTaskStore,
  type Gateway,
  type MemoryTaskStore,
  type TaskAppend,
  type TaskStorage,
} from "../mod.ts";

/** One gateway of a cluster, and its provider. */
export interface Instance {
  readonly gateway: Gateway;
  readonly provider: ReturnType<typeof controlledProvider>;
  /** Stream `text` from the run of the nth task this instance started. */
  emit(n: number, text: string): void;
}

/** Run `fn` with `count` gateways on one shared memory store; all closed afterwards. */
export async function withCluster(
  count: number,
  options: {
    leaseTtlMs?: number;
    steer?: boolean;
    /** What the gateways' appends do instead (faults), given the store's own. */
    append?: (change: TaskAppend, append: (change: TaskAppend) => number) => Promise<number>;
  },
  fn: (instances: Instance[], store: MemoryTaskStore) => Promise<void>,
): Promise<void> {
  const store = createMemoryTaskStore({ shared: true, leaseTtlMs: options.leaseTtlMs ?? 10_000 });
  const append = options.append;
  const taskStore: TaskStorage = append ? faulty(store, append) : store;
  const roots: Scope[] = [];
  const instances: Instance[] = [];
  for (let i = 0; i < count; i++) {
    const { logger } = createMemoryLogger();
    const root = createRootScope({ logger });
    roots.push(root);
    const provider = controlledProvider({ steer: options.steer, cancelEnds: true });
    createSubagentService(root).registerProvider(provider);
    const emitters: ((runId: string, text: string) => void)[] = [];
    const gateway = createGateway({
      scope: root,
      taskStore,
      progress: (_parent, emit) => void emitters.push(emit),
    });
    instances.push({
      gateway,
      provider,
      emit: (n, text) => emitters[n](provider.runs[n].id, text),
    });
  }
  try {
    await fn(instances, store);
  } finally {
    for (const i of instances) await i.gateway.close();
    for (const root of roots) await root.dispose();
  }
}

/**
 * `store`, whose appends go through `append`, each record a copy as a store
 * out of this process keeps it (the memory store keeps a live task by
 * reference: it would show an end that was never written).
 */
export function faulty(
  store: MemoryTaskStore,
  append: (change: TaskAppend, append: (change: TaskAppend) => number) => Promise<number>,
): TaskStorage {
  return {
    shared: true,
    leaseTtlMs: store.leaseTtlMs,
    get: (id) => store.get(id),
    put: (record) => store.put(record),
    list: (query) => store.list(query),
    append: (change) =>
      append({ ...change, record: structuredClone(change.record) }, (c) => store.append(c)),
    read: (id, after, limit) => store.read(id, after, limit),
    subscribe: (id, listener) => store.subscribe(id, listener),
    heartbeat: (instance) => store.heartbeat(instance),
    orphans: (limit, options) => store.orphans(limit, options),
    send: (instance, command, timeoutMs) => store.send(instance, command, timeoutMs),
    serve: (instance, handler) => store.serve(instance, handler),
  };
}

/** Whether `change` is a task's end as its journal writes it (its terminal status update). */
export const isEnd = (change: TaskAppend) =>
  change.events.some((e) => (e.statusUpdate as Wire)?.status.state === "TASK_STATE_COMPLETED");

/** Whether `change` is a late steering message's append (`Cluster.amend`): the task, ended. */
export const isAmend = (change: TaskAppend) =>
  (change.events[0]?.task as Wire)?.status.state === "TASK_STATE_COMPLETED" &&
  change.expected > 0;

/** A JSON-RPC request of `method`. */
export function rpcRequest(
  method: string,
  params: unknown,
  headers: Record<string, string> = {},
): Request {
  return new Request("http://gw.test/", {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
}

/** `method` called on `gateway`, its JSON answer. */
export async function rpc(gateway: Gateway, method: string, params: unknown): Promise<Wire> {
  return await (await gateway.fetch(rpcRequest(method, params))).json();
}

/** An SSE body read frame by frame: `{id, data}`. */
export class Frames {
  readonly #reader: ReadableStreamDefaultReader<string>;
  #buffer = "";
  constructor(response: Response) {
    assert.equal(response.headers.get("content-type"), "text/event-stream");
    this.#reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  }
  async next(): Promise<{ id: number; data: Wire } | undefined> {
    while (!this.#buffer.includes("\n\n")) {
      const { value, done } = await this.#reader.read();
      if (done) return undefined;
      this.#buffer += value;
    }
    const at = this.#buffer.indexOf("\n\n");
    const frame = this.#buffer.slice(0, at);
    this.#buffer = this.#buffer.slice(at + 2);
    const id = /^id: (\d+)$/m.exec(frame)?.[1];
    const data = /^data: (.*)$/m.exec(frame)![1];
    return { id: Number(id), data: JSON.parse(data).result ?? JSON.parse(data) };
  }
  async rest(): Promise<{ id: number; data: Wire }[]> {
    const out = [];
    for (let f = await this.next(); f; f = await this.next()) out.push(f);
    return out;
  }
  cancel(): Promise<void> {
    return this.#reader.cancel();
  }
}

/** `promise`, or a failure saying `what` did not happen within `ms`. */
export async function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** A stream frame in short: `task:STATE`, `status:STATE` or `text:…`. */
export const describe = (e: Wire): string =>
  e.task
    ? `task:${e.task.status.state.slice(11)}`
    : e.statusUpdate
    ? `status:${e.statusUpdate.status.state.slice(11)}`
    : `text:${e.artifactUpdate.artifact.parts[0].text}`;

/** Start a task on `gateway` (answered at once); its id. */
export async function startTask(gateway: Gateway): Promise<string> {
  const sent = await rpc(gateway, "SendMessage", {
    message: message("go"),
    configuration: { returnImmediately: true },
  });
  assert.ok(sent.result?.task?.id, JSON.stringify(sent));
  return sent.result.task.id;
}
