/**
 * The A2A operations, neutral to bindings: each takes checked params and the
 * caller's principal and answers a result (or a stream body) for the binding
 * to frame.
 */
import type { Logger } from "@seam/host";
import type { Engine, Sent } from "../core/_engine.ts";
import { invalidParams, tooMany, unsupportedOperation } from "../core/_errors.ts";
import type { LiveTask } from "../core/_live_task.ts";
import { sseFrame, type StreamFraming, type TaskSubscriber } from "./_sse.ts";
import { stateWord } from "../core/_task_view.ts";
import type { GetParams, IdParams, ListParams, SendParams } from "./_validate.ts";
import { type A2AMessage, type A2ATask, SEAM_EXTENSION_URI } from "../types.ts";
import { freeze, stringify } from "../core/_builtins.ts";

/** Headers a response carries when the request used the seam extension. */
export const EXTENSION_HEADERS: Readonly<Record<string, string>> = freeze({
  "a2a-extensions": SEAM_EXTENSION_URI,
});

/** The headers of an answer to `sent`. */
function headersOf(sent: Sent): Readonly<Record<string, string>> | undefined {
  return sent.extension ? EXTENSION_HEADERS : undefined;
}

/** A result to answer, with the headers it needs. */
export interface Answer {
  readonly result: unknown;
  readonly headers: Readonly<Record<string, string>> | undefined;
}

/** A stream to answer: the subscriber's SSE body. */
export interface StreamAnswer {
  readonly body: ReadableStream<Uint8Array>;
  readonly headers: Readonly<Record<string, string>> | undefined;
}

/** The operations behind both bindings. */
export class Operations {
  readonly #engine: Engine;
  readonly #logger: Logger;
  /** Open streams per principal (all unauthenticated callers share one), on this instance. */
  readonly #streams = new Map<string | undefined, number>();
  readonly #maxStreams: number;

  constructor(engine: Engine, logger: Logger, maxStreamsPerPrincipal: number) {
    this.#engine = engine;
    this.#logger = logger;
    this.#maxStreams = maxStreamsPerPrincipal;
  }

  /** `SendMessage`: the task once it ended, or at once with `returnImmediately`. */
  async send(params: SendParams, principal: string | undefined, ctx: unknown): Promise<Answer> {
    const sent = await this.#engine.send(params, principal);
    const live = sent.live;
    if (!live) {
      // A steering message to a task another instance runs, or a follow-up it continued.
      return { result: { task: await sent.answer(params, principal) }, headers: headersOf(sent) };
    }
    this.#waitUntil(ctx, live);
    if (live.reply === "message") {
      await live.done;
      return {
        result: { message: replyOf(live) },
        headers: headersOf(sent),
      };
    }
    // A blocking send answers at the end, or where the task stops to ask.
    if (!params.configuration?.returnImmediately) await live.untilSettledOrInterrupted();
    // Answered once stored where any instance finds it as answered.
    const committed = this.#engine.home.committed?.(sent.taskId);
    if (committed) await committed;
    return {
      result: { task: this.#engine.view(live.record, params.configuration?.historyLength) },
      headers: headersOf(sent),
    };
  }

  /** `SendStreamingMessage`: the task, then its updates, as they happen. */
  async stream(
    params: SendParams,
    principal: string | undefined,
    ctx: unknown,
    framing: StreamFraming,
  ): Promise<StreamAnswer> {
    // Taken before the task exists: a refused stream starts nothing.
    const release = this.#slot(principal);
    let subscriber: TaskSubscriber | undefined;
    try {
      const home = this.#engine.home;
      let reply: ReadableStream<Uint8Array> | undefined;
      const sent = await this.#engine.send(params, principal, (live) => {
        if (live.reply === "message") {
          reply = replyStream(live, framing, release);
          return;
        }
        subscriber = home.stream(
          live,
          framing,
          () => this.#engine.view(live.record, params.configuration?.historyLength),
        );
      });
      if (sent.live) this.#waitUntil(ctx, sent.live);
      if (reply) return { body: reply, headers: headersOf(sent) };
      // Another instance runs it (a steered task, or a follow-up it continued).
      // Another instance runs it (a steered task, or a follow-up it continued); one that
      // runs here had its subscriber opened by onLive.
      if (!sent.live) subscriber = sent.stream(framing);
      // A message with the seam extension activates it: the stream hears the task's descendants.
      subscriber!.seam = sent.extension;
      subscriber!.onClose = release;
      return { body: subscriber!.body, headers: headersOf(sent) };
    } catch (error) {
      // A steered run that refused the message: its subscriber is no one's.
      subscriber?.end();
      release();
      throw error;
    }
  }

  /** `GetTask`. */
  async get(params: GetParams, principal: string | undefined): Promise<A2ATask> {
    const found = await this.#engine.find(params.id, principal, params.tenant);
    return this.#engine.view(found.record, params.historyLength);
  }

  /** `CancelTask`. */
  cancel(params: IdParams, principal: string | undefined): Promise<A2ATask> {
    return this.#engine.cancel(params.id, principal, params.tenant, params.metadata);
  }

  /** `ListTasks`. */
  list(params: ListParams, principal: string | undefined): Promise<Record<string, unknown>> {
    return this.#engine.list(params, principal);
  }

  /**
   * `SubscribeToTask`: a live task's current state, then its updates. On a
   * shared storage: the task's log after `cursor` (`Last-Event-ID`; from its
   * start without one), then its updates, on any instance. `seam`: the
   * request activated the seam extension.
   */
  async subscribe(
    params: IdParams,
    principal: string | undefined,
    framing: StreamFraming,
    cursor?: number,
    seam?: boolean,
  ): Promise<StreamAnswer> {
    const release = this.#slot(principal);
    try {
      const found = await this.#engine.find(params.id, principal, params.tenant);
      const subscriber = await this.#engine.home.subscribe(
        found,
        framing,
        cursor,
        (live) => this.#engine.view(live.record),
      );
      if (!subscriber) {
        const t = found.record.task;
        throw unsupportedOperation(
          `task "${t.id}" is ${stateWord(t)}; nothing to subscribe to (use GetTask)`,
        );
      }
      subscriber.seam = seam === true;
      subscriber.onClose = release;
      return { body: subscriber.body, headers: undefined };
    } catch (error) {
      release();
      throw error;
    }
  }

  /**
   * One of `principal`'s streams, refused beyond
   * `limits.maxStreamsPerPrincipal`; the release, run once however the
   * stream ends, gives its slot back.
   *
   * @throws {GatewayError} beyond the cap.
   */
  #slot(principal: string | undefined): () => void {
    const streams = this.#streams;
    const open = streams.get(principal) ?? 0;
    if (open >= this.#maxStreams) {
      throw tooMany(
        `Too many streams: ${open} are open for ${
          principal === undefined ? "unauthenticated callers" : `principal "${principal}"`
        } (limits.maxStreamsPerPrincipal is ${this.#maxStreams}); end one, or poll with GetTask`,
        "TOO_MANY_STREAMS_PER_PRINCIPAL",
      );
    }
    streams.set(principal, open + 1);
    let held = true;
    return () => {
      if (held) {
        held = false;
        const left = streams.get(principal)! - 1;
        if (left) streams.set(principal, left);
        else streams.delete(principal);
      }
    };
  }

  /** Hand a task that outlives its response to an edge runtime's `ctx.waitUntil`. */
  #waitUntil(ctx: unknown, live: LiveTask): void {
    const w = (ctx as { waitUntil?: unknown } | undefined)?.waitUntil;
    if (typeof w === "function") {
      try {
        w.call(ctx, live.done);
      } catch (error) {
        this.#logger.warn("ctx.waitUntil threw", error);
      }
    }
  }
}

/**
 * The generation a client resumes after: its `Last-Event-ID` header, if any.
 *
 * @throws {GatewayError} `invalidParams` for anything but a generation.
 */
export function lastEventId(request: Request): number | undefined {
  const header = request.headers.get("last-event-id");
  if (header === null || header === "") return undefined;
  const value = Number(header);
  if (!/^[0-9]{1,15}$/.test(header) || !Number.isSafeInteger(value)) {
    throw invalidParams(
      `Last-Event-ID must be an event id this gateway sent, got ${stringify(header.slice(0, 40))}`,
    );
  }
  return value;
}

/**
 * The direct reply of a task whose provider asked for one
 * (`replyWithMessage`): the run's output as an agent message, or, when the
 * run produced nothing, the status message saying how it ended.
 */
function replyOf(live: LiveTask): A2AMessage {
  const t = live.record.task;
  const parts = t.artifacts?.[0]?.parts ?? t.status.message?.parts ?? [];
  return {
    messageId: `${t.id}/reply`,
    role: "ROLE_AGENT",
    parts: parts.length ? parts : [{ text: "" }],
    contextId: t.contextId,
  };
}

/** A stream of one event: the direct reply, once the run ended. */
function replyStream(
  live: LiveTask,
  framing: StreamFraming,
  release: () => void,
): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    cancel: release,
    async start(controller) {
      await live.done;
      release();
      try {
        controller.enqueue(sseFrame(framing.event({ message: replyOf(live) })));
        controller.close();
      } catch {
        // The client went away; the reply had no one to reach.
      }
    },
  });
}
