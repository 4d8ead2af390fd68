/**
 * Group commit: the appends of many tasks that wait at the same time go to
 * PostgreSQL as one statement, one transaction, one commit. While a batch
 * is being written, new appends gather; when it finishes, everything
 * gathered goes in the next (beside it, up to `maxInFlight`, another batch
 * only of `MIN_BATCH_BESIDE` or more). An append is written in
 * the next macrotask (`setImmediate`: microseconds), with the others made in
 * the same turn of the event loop, so the batching only shows under load,
 * where a commit (its round trip, its WAL flush and the server's work per
 * statement) was the cost of every task. Each append still succeeds or fails
 * on its own: the statement updates a task only at the generation its writer
 * expected and answers which tasks it wrote; the others are conflicts.
 * Nothing is weaker than one commit per append: an append resolves only once
 * its batch is committed.
 */
import type postgres from "postgres";
import { isTaskStorageError, type TaskAppend, TaskStorageError } from "@seam/gateway";
import { storageError } from "./_errors.ts";
import { isTerminalState } from "@seam/gateway";

const { stringify } = JSON;

/** One append, ready for a batch: its rows as the statement's arrays take them. */
interface Pending {
  readonly id: string;
  readonly create: boolean;
  readonly expected: number;
  readonly generation: number;
  readonly change: TaskAppend;
  /** The snapshot and the events as JSON, made when the append was (see `append`). */
  readonly task: string;
  readonly events: string;
  resolve(generation: number): void;
  reject(error: unknown): void;
}

/** What the batcher needs from its store. */
export interface GroupCommitContext {
  readonly sql: postgres.Sql;
  /** The NOTIFY channel of appends (sent only for watched tasks). */
  readonly channel: string;
  /** Batches written at once; more wait and gather. */
  readonly maxInFlight: number;
  /** The most appends in one statement. */
  readonly maxBatch: number;
  /** Whether the store still writes (a closed store refuses). */
  assertOpen(): void;
  /** After a batch committed: its appends' tasks, and whether any carried pushes. */
  committed(written: readonly { id: string; generation: number }[], pushed: boolean): void;
}

/** Appends gathered and written in batches (see the module doc). */
export class GroupCommit {
  #waiting: Pending[] = [];
  #inFlight = 0;
  /** Whether a pump waits for the next macrotask. */
  #scheduled = false;
  /** The statement's text per shape (`StatementShape`). */
  readonly #texts = new Map<string, string>();
  readonly #context: GroupCommitContext;

  constructor(context: GroupCommitContext) {
    // Padded, the largest statement stays far below PostgreSQL's 65,535 parameters.
    if (!(context.maxBatch >= 1 && context.maxBatch <= 1024)) {
      throw new RangeError(`maxBatch must be 1 to 1,024, got ${context.maxBatch}`);
    }
    this.#context = context;
  }

  /** Write `change` with whatever waits alongside; answers its new generation once committed. */
  append(change: TaskAppend): Promise<number> {
    this.#context.assertOpen();
    const t = change.record.task;
    // Serialized now, not when the batch is written: under load a batch in
    // flight is what an append waits for, and the JSON made meanwhile no
    // longer lengthens the statement every waiting request's answer is behind.
    const task = stringify(t);
    // The append's events as one row: its JSON array, one stringify.
    const events = stringify(change.events);
    return new Promise<number>((resolve, reject) => {
      this.#waiting.push({
        id: t.id,
        create: change.expected === 0,
        expected: change.expected,
        generation: change.expected + change.events.length,
        change,
        task,
        events,
        resolve,
        reject,
      });
      // Not at once: in the next macrotask, so the appends made in this turn
      // of the event loop (the journals of the requests it read) go together.
      if (!this.#scheduled) {
        this.#scheduled = true;
        nextMacrotask(() => {
          this.#scheduled = false;
          this.#pump();
        });
      }
    });
  }

  #pump(): void {
    while (this.#inFlight < this.#context.maxInFlight && this.#waiting.length > 0) {
      // Beside a batch in flight, only a batch worth its statement's fixed cost.
      if (this.#inFlight > 0 && this.#waiting.length < MIN_BATCH_BESIDE) return;
      // One append per task in a batch: a second one for the same task waits for the next.
      const batch: Pending[] = [];
      const ids = new Set<string>();
      const rest: Pending[] = [];
      for (const p of this.#waiting) {
        if (batch.length < this.#context.maxBatch && !ids.has(p.id)) {
          ids.add(p.id);
          batch.push(p);
        } else {
          rest.push(p);
        }
      }
      this.#waiting = rest;
      this.#inFlight++;
      this.#write(batch).finally(() => {
        this.#inFlight--;
        this.#pump();
      });
    }
  }

  async #write(batch: Pending[]): Promise<void> {
    let written: Map<string, number>;
    try {
      written = await this.#statement(batch);
    } catch (error) {
      const failure = storageError(error, "append to a task's log");
      if (batch.length > 1 && !isTaskStorageError(failure, "UNAVAILABLE")) {
        // Not the database out of reach: find the append it was by writing each alone.
        for (const p of batch) await this.#write([p]);
        return;
      }
      for (const p of batch) p.reject(failure);
      return;
    }
    const done: { id: string; generation: number }[] = [];
    for (const p of batch) {
      if (written.get(p.id) === p.generation) done.push({ id: p.id, generation: p.generation });
    }
    this.#context.committed(done, batch.some((p) => p.change.pushes?.length));
    for (const p of batch) {
      if (written.get(p.id) === p.generation) p.resolve(p.generation);
      else p.reject(conflict(p));
    }
  }

  /** The batch as one statement; answers the tasks it wrote, with their new generations. */
  async #statement(batch: readonly Pending[]): Promise<Map<string, number>> {
    const params: (string | number | null | string[] | number[])[] = [this.#context.channel];
    const pushes = { task: [] as string[], ord: [] as number[], body: [] as string[] };
    for (const p of batch) {
      const r = p.change.record;
      const t = r.task;
      params.push(
        t.id,
        t.contextId,
        r.owner ?? null,
        r.provider,
        t.status.state,
        r.updatedAt,
        p.generation,
        p.expected,
        isTerminalState(t.status.state) ? null : p.change.instance ?? null,
        p.task,
        p.create ? 1 : 0,
        p.events,
      );
      p.change.pushes?.forEach((body) => {
        pushes.task.push(t.id);
        pushes.ord.push(pushes.ord.length);
        pushes.body.push(body);
      });
    }
    // Padded with rows of nulls (which write nothing) to one of a few sizes.
    const rows = statementRows(batch.length);
    for (let i = batch.length * COLUMNS.length; i < rows * COLUMNS.length; i++) params.push(null);
    const withPushes = pushes.body.length > 0;
    if (withPushes) params.push(pushes.task, pushes.ord, pushes.body, Date.now());
    const shape = { rows, withPushes, creations: batch.every((p) => p.create) };
    let written;
    try {
      written = await this.#execute(params, shape);
    } catch (error) {
      // A task id taken already (a creation retried after its answer was
      // lost): again as the statement that answers it as a conflict.
      if (!shape.creations || (error as { code?: unknown })?.code !== "23505") throw error;
      written = await this.#execute(params, { ...shape, creations: false });
    }
    return new Map(written.map((row) => [row.id, row.generation]));
  }

  /** Run the statement of `shape` (one text per shape, prepared once per connection). */
  #execute(
    params: (string | number | null | string[] | number[])[],
    shape: StatementShape,
  ): Promise<{ id: string; generation: number }[]> {
    const key = `${shape.rows}${shape.withPushes ? "p" : ""}${shape.creations ? "c" : ""}`;
    let text = this.#texts.get(key);
    if (text === undefined) this.#texts.set(key, text = appendStatement(shape));
    return this.#context.sql.unsafe<{ id: string; generation: number }[]>(
      text,
      params,
      { prepare: true },
    );
  }
}

/** What a statement's text depends on. */
interface StatementShape {
  /** Its rows of appends (`statementRows`). */
  readonly rows: number;
  /** Whether it writes push outbox rows (the last four parameters). */
  readonly withPushes: boolean;
  /** Whether every append is a creation (inserted plainly, see `appendStatement`). */
  readonly creations: boolean;
}

/** The error of an append whose task was not at the generation it expected. */
function conflict(p: Pending): TaskStorageError {
  return new TaskStorageError(
    "CONFLICT",
    `Cannot append to task "${p.id}": it is not at generation ${p.expected} (another writer got there first)`,
  );
}

/**
 * While a batch is in flight, another starts only once this many appends
 * wait; fewer wait for the one in flight to finish (within one statement's
 * time) and go with those that came meanwhile. A statement costs the client
 * and PostgreSQL about 100 µs of CPU each, whatever its size, and an append
 * about 20 more: a second statement for two or three appends cost more CPU
 * than the wait it saved, and under load the CPU is the bound (the
 * blocking `SendMessage` load of bench/gateway_load.ts: 4.3 → 5.4 appends
 * per statement, req/s +27%; bench/README.md, "Gateway on PostgreSQL",
 * session 6).
 */
const MIN_BATCH_BESIDE = 8;

/**
 * The rows of the statement that writes `n` appends: `n` up to 4, else the
 * next of 6, 8, 12, 16, 24, 32, 48, 64, … (the rest rows of nulls). Each
 * size is a statement text, which every connection prepares and PostgreSQL
 * plans anew for its first five runs (custom plans of ~800 parameters, then
 * a generic one): one text per batch size made a burst of large batches
 * mostly planning, on each of the pool's connections (100 concurrent
 * requests: statements of 29 appends took 6.4 ms, p50; bench/README.md,
 * "Gateway on PostgreSQL", session 7). A padded row costs 12 null
 * parameters; padding is under a third of a statement's rows (a batch of 33
 * pads to 48).
 */
function statementRows(n: number): number {
  if (n <= 4) return n;
  let size = 4;
  while (size < n) size = size % 3 === 0 ? (size / 3) * 4 : (size / 2) * 3;
  return size;
}

/** `setImmediate` (Deno, Node and Bun have it), else a zero timeout. */
const nextMacrotask: (fn: () => void) => void =
  (globalThis as { setImmediate?: (fn: () => void) => unknown }).setImmediate ??
    ((fn) => setTimeout(fn, 0));

/** Columns of one append in the statement's `VALUES`, with their types. */
const COLUMNS = [
  "id text",
  "context_id text",
  "owner text",
  "provider text",
  "state text",
  "updated_at float8",
  "generation integer",
  "expected integer",
  "instance text",
  "task text",
  "create_ integer",
  "events text",
] as const;

/**
 * The text of the statement of `n` rows of appends (`$1` the NOTIFY
 * channel, then each row's columns; a row of nulls writes nothing): one text
 * per row count (`statementRows`), prepared once per connection. Plain parameters in a `VALUES` list, not arrays: neither side
 * escapes or parses array literals of JSON (bench/README.md). The snapshot is
 * updated only at the expected generation (created only where none exists),
 * the events inserted for the tasks written, the outbox rows of their pushes
 * (`withPushes`: the last four parameters) inserted in the same transaction,
 * and a NOTIFY sent for each task some instance watches. Answers the tasks
 * written with their generations; the others are conflicts.
 */
function appendStatement({ rows: n, withPushes, creations }: StatementShape): string {
  const rows: string[] = [];
  let i = 2;
  for (let row = 0; row < n; row++) {
    rows.push(`(${COLUMNS.map((c) => `$${i++}::${c.slice(c.indexOf(" ") + 1)}`).join(", ")})`);
  }
  const names = COLUMNS.map((c) => c.slice(0, c.indexOf(" "))).join(", ");
  // The outbox rows of these changes, one per push config of each task
  // written, in their transaction: committed together or not at all.
  const outbox = withPushes
    ? `, p AS (
        INSERT INTO push_outbox (id, task_id, config_id, url, token, authentication, body, created_at)
        SELECT gen_random_uuid()::text, w.id, c.id, c.url, c.token, c.authentication, b.body, $${
      i + 3
    }::float8
        FROM unnest($${i}::text[], $${i + 1}::integer[], $${i + 2}::text[]) AS b(task_id, ord, body)
          JOIN w ON w.id = b.task_id
          JOIN push_configs c ON c.task_id = b.task_id
        ORDER BY b.ord, c.seq
      )`
    : "";
  // A batch of creations only (a task that ends at once is one) inserts
  // them plainly: ON CONFLICT's speculative insertion cost PostgreSQL ~9% of
  // its CPU per request (bench/README.md, session 11). A task id taken
  // already fails the statement (23505), and the batch is written again with
  // ON CONFLICT, which answers that one as a conflict.
  const written = creations
    ? `c AS (
      INSERT INTO tasks (id, context_id, owner, provider, state, updated_at, generation, instance, task)
      SELECT id, context_id, owner, provider, state, updated_at, generation, instance, task
      FROM v WHERE create_ = 1 RETURNING id, generation
    ), w AS (SELECT id, generation FROM c)`
    : `c AS (
      INSERT INTO tasks (id, context_id, owner, provider, state, updated_at, generation, instance, task)
      SELECT id, context_id, owner, provider, state, updated_at, generation, instance, task
      FROM v WHERE create_ = 1
      ON CONFLICT (id) DO NOTHING RETURNING id, generation
    ), u AS (
      UPDATE tasks t SET context_id = v.context_id, owner = v.owner, provider = v.provider,
        state = v.state, updated_at = v.updated_at, generation = v.generation,
        instance = v.instance, task = v.task
      FROM v WHERE v.create_ = 0 AND t.id = v.id AND t.generation = v.expected
      RETURNING t.id, t.generation
    ), w AS (
      SELECT id, generation FROM c UNION ALL SELECT id, generation FROM u
    )`;
  return `
    WITH v (${names}) AS (
      VALUES ${rows.join(",\n        ")}
    ), ${written}, e AS (
      INSERT INTO events (task_id, generation, events)
      SELECT v.id, v.generation, v.events FROM v JOIN w ON w.id = v.id
    )${outbox}
    SELECT w.id, w.generation,
      CASE WHEN EXISTS (SELECT 1 FROM watchers k WHERE k.task_id = w.id)
        THEN pg_notify($1, w.id || ':' || w.generation::text) END AS n
    FROM w`;
}
