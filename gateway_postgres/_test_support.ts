// Test support: a PostgreSQL store on a schema of its own, dropped after;
// gateways in this process on stores over one schema; gateway processes; a
// relay to PostgreSQL that can cut connections.
import assert from "node:assert/strict";
import postgres from "postgres";
import { createMemoryLogger, createRootScope, type MemoryLogger, type Scope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createGateway, type Gateway, type GatewayOptions } from "@seam/gateway";
import {
  type Controlled,
  controlledProvider,
  type ControlledRun,
  message,
  rpc as call,
} from "../gateway/_test_support.ts";
import { createPostgresTaskStore, type PostgresTaskStore } from "./mod.ts";

/** The database the tests use; undefined (skip, saying so) only outside CI. */
export function databaseUrl(): string | undefined {
  const url = Deno.env.get("DATABASE_URL");
  if (url) return url;
  if (Deno.env.get("CI") === "true") {
    throw new Error("DATABASE_URL must be set in CI: the PostgreSQL tests always run there");
  }
  return undefined;
}

/** Whether to skip: logs why once. */
export const SKIP: boolean = (() => {
  const url = databaseUrl();
  if (!url) {
    console.warn(
      "gateway_postgres: DATABASE_URL is unset (and not in CI): skipping the PostgreSQL tests",
    );
  }
  return !url;
})();

/** A fresh schema name for one test run. */
export function freshSchema(): string {
  return `t_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
}

/** Drop `schema` and everything in it. */
export async function dropSchema(schema: string): Promise<void> {
  const sql = postgres(databaseUrl()!, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** The role whose sessions default to repeatable read (as a DBA may set a role or a database). */
const REPEATABLE_READ_ROLE = "seam_test_repeatable_read";

/**
 * The tests' database URL as a role whose sessions default to repeatable
 * read (`ALTER ROLE … SET default_transaction_isolation`), made if missing:
 * the setting a store meets on a server it does not configure, without
 * changing it for the other tests' sessions.
 */
export async function repeatableReadUrl(): Promise<string> {
  const sql = postgres(databaseUrl()!, { max: 1, onnotice: () => {} });
  try {
    // One at a time (test files may run at once): role DDL races otherwise.
    await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(hashtext(${REPEATABLE_READ_ROLE}))`;
      const [{ exists }] = await tx`
        SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = ${REPEATABLE_READ_ROLE}) AS exists`;
      if (!exists) await tx.unsafe(`CREATE ROLE ${REPEATABLE_READ_ROLE} LOGIN`);
      await tx.unsafe(
        `ALTER ROLE ${REPEATABLE_READ_ROLE} SET default_transaction_isolation = 'repeatable read'`,
      );
      const [{ db }] = await tx`SELECT current_database() AS db`;
      await tx.unsafe(`GRANT CREATE ON DATABASE "${db}" TO ${REPEATABLE_READ_ROLE}`);
    });
  } finally {
    await sql.end({ timeout: 5 });
  }
  const url = new URL(databaseUrl()!);
  url.username = REPEATABLE_READ_ROLE;
  url.password = "";
  return url.href;
}

/** Open a store on `schema` (a fresh one by default). */
export function openStore(
  schema: string,
  options: { leaseTtlMs?: number; url?: string; closeGraceMs?: number } = {},
): Promise<PostgresTaskStore> {
  return createPostgresTaskStore({
    url: options.url ?? databaseUrl()!,
    schema,
    leaseTtlMs: options.leaseTtlMs,
    closeGraceMs: options.closeGraceMs,
    maxConnections: 4,
  });
}

/**
 * `close()`'s grace for a store whose connections a test cuts (through a
 * {@linkcode Relay}, or terminating a backend): one cut with a statement on
 * it holds `close()` for the whole grace (the client counts that statement
 * in flight), and by teardown nothing else is in flight.
 */
export const CUT_CLOSE_GRACE_MS = 100;

/**
 * Run `fn` with a store on a fresh schema and a client of `connections`
 * beside it; afterwards both are closed and the schema dropped.
 */
export async function withStore(
  connections: number,
  fn: (store: PostgresTaskStore, sql: postgres.Sql, schema: string) => Promise<void>,
): Promise<void> {
  const schema = freshSchema();
  const store = await openStore(schema);
  const sql = postgres(databaseUrl()!, { max: connections, onnotice: () => {} });
  try {
    await fn(store, sql, schema);
  } finally {
    await sql.end({ timeout: 5 });
    await store.close();
    await dropSchema(schema);
  }
}

/** One gateway of {@linkcode withGateways}, in this process, on a store of its own. */
export interface Instance {
  readonly gateway: Gateway;
  /** Its store: its own connections, over the schema every instance shares. */
  readonly store: PostgresTaskStore;
  /** Its only provider. */
  readonly provider: Controlled;
  /** What it logs. */
  readonly log: MemoryLogger;
  /** The relay its store reaches PostgreSQL through (`relayed`), else undefined. */
  readonly relay: Relay | undefined;
  /** Stream `text` from the run of the nth task this instance started. */
  emit(n: number, text: string): void;
}

/** How {@linkcode withGateways} makes its instances. */
export interface GatewaysOptions {
  /** The instances (by index) whose stores reach PostgreSQL through a relay each. */
  readonly relayed?: readonly number[];
  /** Every store's lease (`openStore`'s default otherwise). */
  readonly leaseTtlMs?: number;
  /** Every instance's `controlledProvider()` options. */
  readonly provider?: Parameters<typeof controlledProvider>[0];
  /** More options for instance `n`'s gateway (a `taskStore` wrapping its store, say). */
  readonly gateway?: (
    made: { n: number; store: PostgresTaskStore; log: MemoryLogger },
  ) => Partial<GatewayOptions>;
}

/**
 * Run `fn` with `count` gateways in this process, each on a store of its own
 * (its own connections) over one fresh schema, as that many instances, each
 * with a controlled provider and its progress emitters. Afterwards every run
 * is finished, the gateways closed, their scopes disposed, the stores closed
 * before their relays are cut (nothing is left reconnecting), and the schema
 * dropped.
 */
export async function withGateways(
  count: number,
  options: GatewaysOptions,
  fn: (instances: Instance[], schema: string) => Promise<void>,
): Promise<void> {
  const schema = freshSchema();
  const roots: Scope[] = [];
  const relays: Relay[] = [];
  const stores: PostgresTaskStore[] = [];
  const instances: Instance[] = [];
  try {
    for (let n = 0; n < count; n++) {
      let relay: Relay | undefined;
      if (options.relayed?.includes(n)) {
        relay = new Relay(new URL(databaseUrl()!));
        relay.open();
        relays.push(relay);
      }
      const store = await openStore(schema, {
        url: relay?.url,
        leaseTtlMs: options.leaseTtlMs,
        closeGraceMs: relay ? CUT_CLOSE_GRACE_MS : undefined,
      });
      stores.push(store);
      const log = createMemoryLogger();
      const root = createRootScope({ logger: log.logger });
      roots.push(root);
      const provider = controlledProvider(options.provider);
      createSubagentService(root).registerProvider(provider);
      const emitters: ((runId: string, text: string) => void)[] = [];
      const gateway = createGateway({
        scope: root,
        taskStore: store,
        progress: (_parent, emit) => void emitters.push(emit),
        ...options.gateway?.({ n, store, log }),
      });
      instances.push({
        gateway,
        store,
        provider,
        log,
        relay,
        emit: (n, text) => emitters[n](provider.runs[n].id, text),
      });
    }
    await fn(instances, schema);
  } finally {
    for (const { provider } of instances) {
      for (const run of provider.runs) run.finish({ output: "", stopReason: "completed" });
    }
    for (const { gateway } of instances) await gateway.close();
    for (const root of roots) await root.dispose();
    for (const store of stores) await store.close();
    for (const relay of relays) await relay.cut();
    await dropSchema(schema);
  }
}

/**
 * Start a task on `instance` ("go", answered at once), make its run ready
 * and wait until the task is stored WORKING; its id and run.
 */
export async function startTask(
  instance: Pick<Instance, "gateway" | "provider" | "store">,
  headers: Record<string, string> = {},
): Promise<{ id: string; run: ControlledRun }> {
  const sent = await call(instance.gateway, "SendMessage", {
    message: message("go"),
    configuration: { returnImmediately: true },
  }, headers);
  const id: string | undefined = sent.result?.task?.id;
  assert.ok(id, `the task started: ${JSON.stringify(sent)}`);
  const run = instance.provider.runs.at(-1)!;
  run.ready();
  await eventually(
    "the task WORKING",
    async () =>
      (await instance.store.get(id))?.task.status.state === "TASK_STATE_WORKING" || undefined,
  );
  return { id, run };
}

/** What `fn` answers once it answers something (failures are tried again), within `ms`. */
export async function eventually<T>(
  what: string,
  fn: () => Promise<T | undefined>,
  ms = 10_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = await fn().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms / 1_000} s`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const decoder = new TextDecoder();

/** One gateway process of the many-instance tests (testdata/instance.ts). */
export interface InstanceProcess {
  readonly url: string;
  readonly process: Deno.ChildProcess;
  /** SIGTERM, and wait for it to exit. */
  stop(): Promise<void>;
  /** SIGKILL, and wait for it to exit. */
  kill(): Promise<void>;
}

/** Start an instance on `schema`; resolves once it listens. */
export async function startInstance(
  schema: string,
  env: Record<string, string> = {},
): Promise<InstanceProcess> {
  const process = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-net=127.0.0.1",
      "--allow-env",
      "--allow-read",
      new URL("./testdata/instance.ts", import.meta.url).pathname,
    ],
    env: { DATABASE_URL: databaseUrl()!, SEAM_SCHEMA: schema, ...env },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = process.stdout.getReader();
  let buffer = "";
  while (!buffer.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) {
      const err = await new Response(process.stderr).text();
      throw new Error(`the instance exited early: ${buffer}${err}`);
    }
    buffer += decoder.decode(value);
  }
  reader.releaseLock();
  // Keep draining both pipes so the child never blocks on a full one.
  void process.stdout.pipeTo(new WritableStream()).catch(() => {});
  void process.stderr.pipeTo(new WritableStream()).catch(() => {});
  const url = /listening (\S+)/.exec(buffer)![1];
  let exited: Promise<Deno.CommandStatus> | undefined;
  const end = (signal: Deno.Signal) => async () => {
    try {
      process.kill(signal);
    } catch {
      // Already gone.
    }
    await (exited ??= process.status);
  };
  return { url, process, stop: end("SIGTERM"), kill: end("SIGKILL") };
}

/** Wire JSON as the tests read it. */
// deno-lint-ignore no-explicit-any
export type Wire = Record<string, any>;

/** A JSON-RPC call to an instance; `headers` are added. */
export async function rpc(
  url: string,
  method: string,
  params: unknown,
  headers: Record<string, string> = {},
): Promise<Wire> {
  const response = await fetch(`${url}/`, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return await response.json();
}

/** Open a JSON-RPC stream (SendStreamingMessage, SubscribeToTask) on an instance. */
export async function openStream(
  url: string,
  method: string,
  params: unknown,
  headers: Record<string, string> = {},
): Promise<Frames> {
  const response = await fetch(`${url}/`, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0", ...headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return new Frames(response);
}

/** An SSE body read frame by frame: its `id` and its JSON-RPC result (or error). */
export class Frames {
  readonly #reader: ReadableStreamDefaultReader<string> | undefined;
  readonly #response: Response;
  #buffer = "";
  constructor(response: Response) {
    this.#response = response;
    this.#reader = response.headers.get("content-type") === "text/event-stream"
      ? response.body!.pipeThrough(new TextDecoderStream()).getReader()
      : undefined;
  }
  /** The JSON answer of a request that did not open a stream. */
  json(): Promise<Wire> {
    return this.#response.json();
  }
  async next(): Promise<{ id: number; data: Wire } | undefined> {
    if (!this.#reader) throw new Error(`not a stream: ${await this.#response.text()}`);
    while (!this.#buffer.includes("\n\n")) {
      const { value, done } = await this.#reader.read();
      if (done) return undefined;
      this.#buffer += value;
    }
    const at = this.#buffer.indexOf("\n\n");
    const frame = this.#buffer.slice(0, at);
    this.#buffer = this.#buffer.slice(at + 2);
    const id = /^id: (\d+)$/m.exec(frame)?.[1];
    const data = JSON.parse(/^data: (.*)$/m.exec(frame)![1]);
    return { id: Number(id), data: data.result ?? data };
  }
  /** Frames until `predicate` holds for one (included), or the stream ends. */
  async until(
    predicate: (f: { id: number; data: Wire }) => boolean,
  ): Promise<{ id: number; data: Wire }[]> {
    const out = [];
    for (let f = await this.next(); f; f = await this.next()) {
      out.push(f);
      if (predicate(f)) break;
    }
    return out;
  }
  /** Every frame to the end. */
  rest(): Promise<{ id: number; data: Wire }[]> {
    return this.until(() => false);
  }
  async cancel(): Promise<void> {
    if (this.#reader) await this.#reader.cancel();
    else await this.#response.body?.cancel();
  }
}

/** The text of an artifact update frame, else "". */
export function textOf(data: Wire): string {
  return data.artifactUpdate?.artifact?.parts?.[0]?.text ?? "";
}

/** The state of a status update frame, if it is one. */
export function stateOf(data: Wire): string | undefined {
  return data.statusUpdate?.status?.state ?? data.task?.status?.state;
}

/** A TCP relay to PostgreSQL on a fixed local port that can be cut and restored. */
export class Relay {
  #listener: Deno.Listener | undefined;
  readonly #conns = new Set<Deno.Conn>();
  readonly #pipes = new Set<Promise<unknown>>();
  #accepting: Promise<void> | undefined;
  port = 0;
  readonly #target: { hostname: string; port: number };
  /** Sever the connection that next sends this text (`severAfter`). */
  #severOn: string | undefined;
  /** Drop, undelivered, the next message that carries this text, and its connection (`dropOn`). */
  #dropOn: string | undefined;
  /** Hold the next message that carries this text until released (`holdOn`). */
  #holdOn: { text: string; released: Promise<void> } | undefined;
  /** The texts counted in the messages sent to PostgreSQL, and how many carried each (`sent`). */
  readonly #counted = new Map<string, number>();

  readonly #url: URL;

  constructor(target: URL) {
    this.#url = target;
    this.#target = { hostname: target.hostname, port: Number(target.port || 5432) };
  }

  /** The database's URL through this relay (once open). */
  get url(): string {
    const via = new URL(this.#url);
    via.hostname = "127.0.0.1";
    via.port = String(this.port);
    return via.href;
  }

  /** Listen (on the same port once it had one) and relay. */
  open(): void {
    this.#listener = Deno.listen({ hostname: "127.0.0.1", port: this.port });
    this.port = (this.#listener.addr as Deno.NetAddr).port;
    const listener = this.#listener;
    this.#accepting = (async () => {
      for await (const client of listener) {
        let server: Deno.Conn;
        try {
          server = await Deno.connect(this.#target);
        } catch {
          client.close();
          continue;
        }
        this.#conns.add(client);
        this.#conns.add(server);
        const closeBoth = () => {
          for (const c of [client, server]) {
            if (this.#conns.delete(c)) {
              try {
                c.close();
              } catch {
                // closed by the pipe already
              }
            }
          }
        };
        let muted = false;
        for (const [from, to] of [[client, server], [server, client]]) {
          const upstream = from === client;
          const relayed = new TransformStream<Uint8Array, Uint8Array>({
            transform: async (chunk, controller) => {
              if (!upstream && muted) return;
              const held = this.#holdOn;
              if (upstream && held !== undefined && decoder.decode(chunk).includes(held.text)) {
                // Held on its way: what follows on this connection waits behind it.
                this.#holdOn = undefined;
                await held.released;
              }
              if (upstream && this.#counted.size > 0) {
                const text = decoder.decode(chunk);
                for (const [counted, n] of this.#counted) {
                  if (text.includes(counted)) this.#counted.set(counted, n + 1);
                }
              }
              const dropped = this.#dropOn;
              if (upstream && dropped !== undefined && decoder.decode(chunk).includes(dropped)) {
                // Never delivered: the client sees its connection drop as it sends.
                this.#dropOn = undefined;
                muted = true;
                closeBoth();
                return;
              }
              controller.enqueue(chunk);
              const marker = this.#severOn;
              if (upstream && marker !== undefined && decoder.decode(chunk).includes(marker)) {
                // Delivered, its answer never: the client sees its connection drop.
                this.#severOn = undefined;
                muted = true;
                setTimeout(closeBoth, 200);
              }
            },
          });
          const pipe = from.readable.pipeThrough(relayed).pipeTo(to.writable).catch(() => {})
            .finally(() => {
              this.#pipes.delete(pipe);
              for (const c of [from, to]) {
                if (this.#conns.delete(c)) {
                  try {
                    c.close();
                  } catch {
                    // closed by the pipe already
                  }
                }
              }
            });
          this.#pipes.add(pipe);
        }
      }
    })().catch(() => {});
  }

  /**
   * Pass the next message that carries `text` on to PostgreSQL, then drop its
   * connection before any answer gets back (a statement that commits while
   * its client sees only the connection lost).
   */
  severAfter(text: string): void {
    this.#severOn = text;
  }

  /**
   * Drop the next message that carries `text` before PostgreSQL gets it, and
   * its connection (a statement lost with its connection, never run).
   */
  dropOn(text: string): void {
    this.#dropOn = text;
  }

  /**
   * Hold the next message that carries `text` on its way to PostgreSQL (a
   * statement slow to arrive) until the returned function is called.
   */
  holdOn(text: string): () => void {
    const { promise, resolve } = Promise.withResolvers<void>();
    this.#holdOn = { text, released: promise };
    return () => resolve();
  }

  /**
   * How many messages sent to PostgreSQL since the first call with `text`
   * carried it (0 on that first call: counting starts then).
   */
  sent(text: string): number {
    const n = this.#counted.get(text);
    if (n === undefined) this.#counted.set(text, 0);
    return n ?? 0;
  }

  /** Refuse new connections and drop the open ones. */
  async cut(): Promise<void> {
    this.#listener?.close();
    this.#listener = undefined;
    await this.#accepting;
    for (const c of [...this.#conns]) {
      this.#conns.delete(c);
      try {
        c.close();
      } catch {
        // already closed
      }
    }
    await Promise.all([...this.#pipes]);
  }
}
