/**
 * Group commit: the appends of many tasks that wait at the same time go to
 * PostgreSQL as one statement, one transaction, one commit. While
 * `maxInFlight` batches are being written, new appends gather; when one
 * finishes, everything gathered goes in the next. A lone append is written at
 * once (no added wait), so the batching only shows under load, where a commit
 * (its round trip, its WAL flush and the server's work per statement) was the
 * cost of every task. Each append still succeeds or fails on its own: the
 * statement updates a task only at the generation its writer expected and
 * answers which tasks it wrote; the others are conflicts. Nothing is weaker
 * than one commit per append: an append resolves only once its batch is
 * committed.
 */
import type postgres from "postgres";
import { isTaskStorageError, type TaskAppend, TaskStorageError } from "@seam/gateway";
import { storageError } from "./_errors.ts";
import { isTerminalState } from "@seam/gateway";

/** One append, ready for a batch: its rows as the statement's arrays take them. */
interface Pending {
  readonly id: string;
  readonly create: boolean;
  readonly expected: number;
  readonly generation: number;
  readonly change: TaskAppend;
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
  readonly #context: GroupCommitContext;

  constructor(context: GroupCommitContext) {
    this.#context = context;
  }

  /** Write `change` with whatever waits alongside; answers its new generation once committed. */
  append(change: TaskAppend): Promise<number> {
    this.#context.assertOpen();
    const t = change.record.task;
    return new Promise<number>((resolve, reject) => {
      this.#waiting.push({
        id: t.id,
        create: change.expected === 0,
        expected: change.expected,
        generation: change.expected + change.events.length,
        change,
        resolve,
        reject,
      });
      this.#pump();
    });
  }

  #pump(): void {
    while (this.#inFlight < this.#context.maxInFlight && this.#waiting.length > 0) {
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
      else {
        p.reject(
          new TaskStorageError(
            "CONFLICT",
            `Cannot append to task "${p.id}": it is not at generation ${p.expected} (another writer got there first)`,
          ),
        );
      }
    }
  }

  /** The batch as one statement; answers the tasks it wrote, with their new generations. */
  async #statement(batch: readonly Pending[]): Promise<Map<string, number>> {
    const sql = this.#context.sql;
    const tasks = {
      id: [] as string[],
      context: [] as string[],
      owner: [] as (string | null)[],
      provider: [] as string[],
      state: [] as string[],
      updated: [] as number[],
      generation: [] as number[],
      expected: [] as number[],
      instance: [] as (string | null)[],
      task: [] as string[],
      /** 1: a creation (no stored task yet), 0: an update (a boolean array would not bind). */
      create: [] as number[],
    };
    const events = { task: [] as string[], generation: [] as number[], event: [] as string[] };
    const pushes = { task: [] as string[], ord: [] as number[], body: [] as string[] };
    for (const p of batch) {
      const r = p.change.record;
      const t = r.task;
      tasks.id.push(t.id);
      tasks.context.push(t.contextId);
      tasks.owner.push(r.owner ?? null);
      tasks.provider.push(r.provider);
      tasks.state.push(t.status.state);
      tasks.updated.push(r.updatedAt);
      tasks.generation.push(p.generation);
      tasks.expected.push(p.expected);
      tasks.instance.push(isTerminalState(t.status.state) ? null : p.change.instance ?? null);
      tasks.task.push(JSON.stringify(t));
      tasks.create.push(p.create ? 1 : 0);
      p.change.events.forEach((e, i) => {
        events.task.push(t.id);
        events.generation.push(p.expected + i + 1);
        events.event.push(JSON.stringify(e));
      });
      p.change.pushes?.forEach((body) => {
        pushes.task.push(t.id);
        pushes.ord.push(pushes.ord.length);
        pushes.body.push(body);
      });
    }
    // The outbox rows of these changes, one per push config of each task
    // written, in their transaction: committed together or not at all.
    const outbox = pushes.body.length > 0
      ? sql`, p AS (
          INSERT INTO push_outbox (id, task_id, config_id, url, token, authentication, body, created_at)
          SELECT gen_random_uuid()::text, w.id, c.id, c.url, c.token, c.authentication, b.body, ${Date.now()}
          FROM unnest(${pushes.task}::text[], ${pushes.ord}::integer[], ${pushes.body}::text[])
              AS b(task_id, ord, body)
            JOIN w ON w.id = b.task_id
            JOIN push_configs c ON c.task_id = b.task_id
          ORDER BY b.ord, c.seq
        )`
      : sql``;
    const rows = await sql<{ id: string; generation: number }[]>`
      WITH v AS (
        SELECT * FROM unnest(${tasks.id}::text[], ${tasks.context}::text[], ${tasks.owner}::text[],
          ${tasks.provider}::text[], ${tasks.state}::text[], ${tasks.updated}::float8[],
          ${tasks.generation}::integer[], ${tasks.expected}::integer[], ${tasks.instance}::text[],
          ${tasks.task}::text[], ${tasks.create}::integer[])
          AS v(id, context_id, owner, provider, state, updated_at, generation, expected, instance, task, create_)
      ), c AS (
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
      ), e AS (
        INSERT INTO events (task_id, generation, event)
        SELECT x.task_id, x.generation, x.event
        FROM unnest(${events.task}::text[], ${events.generation}::integer[], ${events.event}::text[])
            AS x(task_id, generation, event)
          JOIN w ON w.id = x.task_id
      )${outbox}
      SELECT w.id, w.generation,
        pg_notify(${this.#context.channel}, w.id || ':' || w.generation::text) AS n
      FROM w WHERE EXISTS (SELECT 1 FROM watchers k WHERE k.task_id = w.id)
      UNION ALL SELECT w.id, w.generation, NULL FROM w
        WHERE NOT EXISTS (SELECT 1 FROM watchers k WHERE k.task_id = w.id)`;
    return new Map(rows.map((row) => [row.id, row.generation]));
  }
}
