// A run is one prompt turn on an ACP session: the handle a provider returns
// from `start` and `resume`.
import {
  type AgentRef,
  type ContentBlock,
  type ContentInput,
  deepFreeze,
  messageOf,
} from "@seam/host";
import {
  cancelOnAbort,
  type SubagentBudgetMeter,
  type SubagentInputAnswer,
  subagentProgress,
  type SubagentResultInput,
  type SubagentResumeRequest,
  type SubagentRunHandle,
  type SubagentRunPlace,
  type SubagentStopReason,
} from "@seam/subagent";
import { Aborted, race, settledWithin, TimedOut } from "./_async.ts";
import { ChildTree } from "./_children.ts";
import { fromAcpUpdate, toAcpPrompt } from "./_content.ts";
import { AcpError, type AcpFailure, type AcpFailureCode, quoted, resultOf } from "./_failure.ts";
import { toProgress } from "./_progress.ts";
import { TurnClock } from "./_turn_clock.ts";
import type { PermissionOutcome, PermissionParams } from "./_connection.ts";
import { type Refusal, RunPermissions } from "./_run_permissions.ts";
import type { AcpSession } from "./_session.ts";
import { type AcpUpdate, acpUpdate } from "./events.ts";
import { traceMeta } from "./_trace.ts";
import { describeFailure } from "./_not_agent.ts";

const noop = () => {};
let runCounter = 0;

/** The phases before the prompt: a failure there is the start's, and quotes stderr. */
const STARTUP_PHASES: ReadonlySet<string> = new Set(["initialize", "authenticate", "session/new"]);

function describeRefusal(refusal: Refusal): string {
  const what = refusal.title === undefined ? "a tool call" : JSON.stringify(refusal.title);
  return `${what} (tool call ${refusal.toolCallId}, answered ${JSON.stringify(refusal.answer)}${
    refusal.reason === undefined ? "" : `: ${refusal.reason}`
  })`;
}

/** The run's output: the agent's message chunks, adjacent text merged. */
class Output {
  readonly blocks: ContentBlock[] = [];

  append(content: readonly ContentBlock[]): void {
    for (const block of content) {
      const last = this.blocks[this.blocks.length - 1];
      if (block.type === "text" && last?.type === "text") {
        this.blocks[this.blocks.length - 1] = { type: "text", text: last.text + block.text };
      } else {
        this.blocks.push(block);
      }
    }
  }
}

/** What a run needs to know about its request. */
export interface RunRequest {
  readonly prompt: readonly ContentBlock[];
  readonly parent: AgentRef;
  readonly signal?: AbortSignal;
  /** Where the run sits in the tree (the service's), for its progress events. */
  readonly place?: SubagentRunPlace;
  /** The run's OpenTelemetry context (the service's, when tracing), sent on in `_meta`. */
  readonly traceContext?: unknown;
  /** Where the run charges its tool calls and tokens, when a budget applies. */
  readonly budgetMeter?: SubagentBudgetMeter;
}

/** One prompt turn: the handle a provider returns from `start` or `resume`. */
export class AcpRun implements SubagentRunHandle {
  readonly id: string;
  readonly started: Promise<void>;
  readonly result: Promise<SubagentResultInput>;
  /**
   * Answer a pending input request (`permission: "ask"` only; absent
   * otherwise, as such a run never asks).
   */
  readonly respond?: (requestId: string, answer: SubagentInputAnswer) => void;
  #session: AcpSession;
  #request: RunRequest;
  #resumed: boolean;
  #abort = new AbortController();
  #settled = false;
  #isStarted = false;
  #resolveStarted!: () => void;
  #rejectStarted!: (error: Error) => void;
  #resolveResult!: (result: SubagentResultInput) => void;
  #output = new Output();
  #prompting = false;
  /** What the agent said of its usage: `usage_update`'s context tokens, and its tool calls. */
  #usage = { contextTokens: 0, toolCalls: 0 };
  /** The highest context size charged to the budget so far. */
  #chargedContextTokens = 0;
  #disposal: Promise<void> | undefined;
  #unbindSignal = noop;
  #clock: TurnClock | undefined;
  readonly #permissions: RunPermissions;
  /** The child sessions the agent tells of during this turn. */
  readonly #children: ChildTree;

  constructor(
    session: AcpSession,
    request: RunRequest,
    resumed: boolean,
  ) {
    this.id = `${session.settings.provider}-${++runCounter}`;
    this.#session = session;
    this.#request = request;
    this.#resumed = resumed;
    this.#permissions = new RunPermissions({
      id: this.id,
      parent: request.parent,
      session,
      signal: this.#abort.signal,
      clock: () => this.#clock,
    });
    this.#children = new ChildTree(this.id, session, request);
    const respond = this.#permissions.respondFunction();
    if (respond) this.respond = respond;
    this.started = new Promise<void>((resolve, reject) => {
      this.#resolveStarted = resolve;
      this.#rejectStarted = reject;
    });
    this.started.catch(noop);
    this.result = new Promise((resolve) => this.#resolveResult = resolve);
    session.hold();
    session.settings.live.add(this);
    if (!resumed) session.turn = this;
    const signal = request.signal;
    if (signal) {
      this.#unbindSignal = cancelOnAbort(signal, (reason) => this.cancel(reason), { defer: true });
    }
    this.#drive().catch((error) => {
      session.logger.error(`ACP run ${this.id} failed unexpectedly`, error);
      this.#finishError("the run", error);
    });
  }

  /** Whether the result has settled. */
  get settled(): boolean {
    return this.#settled;
  }

  async #drive(): Promise<void> {
    const session = this.#session;
    const connection = session.connection;
    const { startupTimeoutMs } = session.settings;
    const signal = this.#abort.signal;
    let phase = "initialize";
    try {
      if (!this.#resumed) {
        const at = performance.now() + startupTimeoutMs;
        const late = (what: string) => ({
          at,
          // Read when the time is up: by then the agent may have printed garbage.
          get message() {
            return `the ACP agent did not answer ${what} within ${startupTimeoutMs} ms (startupTimeoutMs)` +
              connection.inbound.note();
          },
        });
        await race(connection.ready, signal, late("initialize"));
        phase = "authenticate";
        await race(connection.authenticated(), signal, late("authenticate"));
        phase = "session/new";
        session.sessionId = await race(
          connection.newSession(
            session.settings.cwd,
            session,
            signal,
            traceMeta(this.#request.traceContext),
          ),
          signal,
          late("session/new"),
        );
      } else {
        phase = "session/prompt";
        const previous = session.pendingPrompt;
        const { cancelGraceMs } = session.settings;
        if (previous && !await race(settledWithin(previous, cancelGraceMs), signal)) {
          throw new AcpError(
            "TIMEOUT",
            `the ACP agent did not end the previous (cancelled) turn within ${cancelGraceMs} ms (cancelGraceMs)`,
          );
        }
        session.turn = this;
      }
      phase = "session/prompt";
      this.#isStarted = true;
      this.#resolveStarted();
      let prompt;
      try {
        prompt = toAcpPrompt(this.#request.prompt, connection.info!.promptCapabilities);
      } catch (error) {
        throw new AcpError("UNSUPPORTED_CONTENT", messageOf(error), undefined, { cause: error });
      }
      this.#prompting = true;
      const answer = connection.prompt(
        session.sessionId!,
        prompt,
        traceMeta(this.#request.traceContext),
      );
      session.trackPrompt(answer);
      const { turnTimeoutMs } = session.settings;
      if (turnTimeoutMs !== undefined) {
        this.#clock = new TurnClock(turnTimeoutMs, () => this.#turnTimedOut(turnTimeoutMs));
      }
      const stopReason = await race(answer, signal);
      this.#finishWithStop(stopReason);
    } catch (error) {
      if (error instanceof Aborted || signal.aborted) return; // cancel() settled it
      if (error instanceof TimedOut) {
        // A process that never answers is of no further use (shared or not).
        connection.dispose(`the ACP agent process was stopped: ${error.message}`).catch(noop);
      }
      // The failure quotes stderr: let what the agent wrote before it arrive.
      if (STARTUP_PHASES.has(phase)) await connection.stderrQuiet();
      this.#finishError(phase, error);
    }
  }

  #finishWithStop(stopReason: unknown): void {
    switch (stopReason) {
      case "end_turn":
        return this.#finish("completed");
      case "max_tokens":
        return this.#finish("max-tokens");
      case "refusal":
        return this.#finish("refusal");
      case "cancelled": {
        // The agent's own cancel: after a refused permission (codex ends
        // the turn so), say so, or the parent takes it for its own cancel.
        const refusals = this.#permissions.refusals;
        if (refusals.length === 0) return this.#finish("aborted");
        const more = this.#permissions.refusalCount - refusals.length;
        return this.#finish("aborted", {
          code: "PERMISSION_REFUSED",
          message: `The ACP agent stopped its turn after a permission request was refused: ${
            refusals.map(describeRefusal).join("; ")
          }${more === 0 ? "" : `; and ${more} more`}`,
          data: { refused: this.#permissions.refusalData() },
        });
      }
      case "max_turn_requests":
        return this.#finishError(
          "session/prompt",
          new AcpError(
            "CHILD_FAILED",
            "the ACP agent ended the turn with stop reason max_turn_requests",
          ),
        );
      default:
        return this.#finishError(
          "session/prompt",
          new AcpError(
            "PROTOCOL_ERROR",
            `the ACP agent ended the turn with stop reason ${quoted(stopReason)}`,
          ),
        );
    }
  }

  /** `turnTimeoutMs` ran out: ask the agent to stop, end the run `error`. */
  #turnTimedOut(ms: number): void {
    if (this.#settled) return;
    const session = this.#session;
    if (session.sessionId !== undefined) session.connection.cancel(session.sessionId);
    this.#finishError(
      "session/prompt",
      new AcpError("TIMEOUT", `the ACP agent did not end its turn within ${ms} ms (turnTimeoutMs)`),
    );
  }

  #finishError(phase: string, error: unknown): void {
    if (this.#settled) return;
    const startup = STARTUP_PHASES.has(phase);
    const code: AcpFailureCode = error instanceof AcpError
      ? error.code
      : error instanceof TimedOut
      ? "TIMEOUT"
      : startup
      ? "START_FAILED"
      : "CHILD_FAILED";
    const tail = this.#session.connection.stderrTail();
    const { message, notAnAcpAgent } = describeFailure(phase, code, messageOf(error), tail, {
      startup,
      inbound: this.#session.connection.inbound,
    });
    this.#session.logger.warn(`ACP run ${this.id}: ${message}`);
    this.#finish("error", {
      code,
      message,
      data: {
        phase,
        ...(error instanceof AcpError ? error.data : {}),
        ...(notAnAcpAgent ? { notAnAcpAgent } : {}),
        ...(tail === "" ? {} : { stderr: tail }),
        ...(this.#permissions.refusals.length === 0
          ? {}
          : { refused: this.#permissions.refusalData() }),
      },
    });
  }

  #finish(stopReason: SubagentStopReason, failure?: AcpFailure): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#prompting = false;
    this.#clock?.stop();
    // What still waits is answered `cancelled` to the agent (see onPermission).
    this.#permissions.cancelAll(`the run ended ${stopReason}`);
    this.#unbindSignal();
    this.#abort.abort(new Error(`the run ended (${stopReason})`));
    if (!this.#isStarted) {
      this.#rejectStarted(
        new Error(
          failure?.message ?? `the run ended "${stopReason}" before its ACP session was ready`,
        ),
      );
    }
    this.#children.end(stopReason);
    this.#resolveResult({
      ...resultOf(this.#output.blocks, stopReason, failure),
      usage: this.#children.rollUp(this.#usage),
    });
  }

  /**
   * Ask the agent to stop (`session/cancel`) and end the run `aborted` at
   * once, whatever the agent answers later. Idempotent.
   */
  cancel(reason?: string): void {
    if (this.#settled) return;
    const session = this.#session;
    if (this.#prompting && session.sessionId !== undefined) {
      session.connection.cancel(session.sessionId);
    }
    this.#abort.abort(new Error(reason ?? "cancelled"));
    this.#permissions.cancelAll(reason ?? "the run was cancelled");
    this.#finish("aborted");
  }

  /** Cancel if live, then let go of the session (and, last, its process). Memoized. */
  dispose(): Promise<void> {
    return this.#disposal ??= (async () => {
      this.cancel("disposed");
      try {
        await this.#session.release();
      } finally {
        this.#session.settings.live.delete(this);
      }
    })();
  }

  /** Another prompt on the same session, as a new run (the agent keeps its context). */
  resume(content: ContentInput, request?: SubagentResumeRequest): SubagentRunHandle {
    const session = this.#session;
    const problem = this.#disposal !== undefined
      ? "it was disposed"
      : !this.#settled
      ? "it has not finished"
      : session.sessionId === undefined
      ? "its ACP session was never opened"
      : session.turn !== this && session.turn?.settled === false
      ? "another run on its session is live"
      : undefined;
    if (problem) throw new TypeError(`Cannot resume run "${this.id}": ${problem}`);
    const prompt: readonly ContentBlock[] = typeof content === "string"
      ? [{ type: "text", text: content }]
      : content;
    return new AcpRun(
      session,
      {
        prompt,
        parent: this.#request.parent,
        place: this.#request.place,
        // The resumed run's own span rides the prompt's `_meta`, not the first run's.
        traceContext: request?.traceContext,
        budgetMeter: this.#request.budgetMeter,
      },
      true,
    );
  }

  /** A `session/update` for this run's session. */
  onUpdate(raw: unknown): void {
    if (this.#settled) return;
    const update = fromAcpUpdate(raw);
    if (!update) {
      this.#session.logger.warn(
        `ACP run ${this.id}: ignored a malformed session/update: ${quoted(raw)}`,
      );
      return;
    }
    if (update.kind === "message" && this.#prompting) this.#output.append(update.content);
    const meter = this.#request.budgetMeter;
    if (update.type === "tool_call") {
      this.#usage.toolCalls++;
      // The agent already runs the call; charging it ends the run when it goes beyond.
      meter?.charge({ toolCalls: 1 });
    } else if (update.type === "usage_update") {
      const used = (update.raw as { used?: unknown }).used;
      // A count of tokens: a figure beyond the safe integers (or negative) is
      // no count, and summed over a tree it would make the totals Infinity.
      if (typeof used === "number" && Number.isSafeInteger(used) && used >= 0) {
        // Charged above the highest figure seen: a context that shrank (compacted)
        // and grew back is not charged twice.
        const grown = used - this.#chargedContextTokens;
        this.#usage.contextTokens = used;
        if (grown > 0) {
          this.#chargedContextTokens = used;
          meter?.charge({ inputTokens: grown });
        }
      }
    }
    if (update.kind === "tool-call" || update.kind === "tool-call-update") {
      this.#permissions.remember(update.raw);
      this.#children.own(update.raw);
    }
    try {
      this.#emit(update);
    } catch (error) {
      // Freezing the event recurses: an update nested thousands deep (the
      // agent's JSON) overflows the stack. Skip the event, not the connection.
      this.#session.logger.warn(
        `ACP run ${this.id}: did not emit a session/update it cannot freeze (${messageOf(error)})`,
      );
    }
  }

  #emit(update: AcpUpdate): void {
    const scope = this.#request.parent.scope;
    // A message chunk between turns is not this run's: no progress for it.
    if (
      scope.hasListeners(subagentProgress) && (update.kind !== "message" || this.#prompting)
    ) {
      const progress = toProgress(update);
      if (progress) {
        scope.emit(
          subagentProgress,
          deepFreeze({ ...this.#request.place, runId: this.id, ...progress }),
        );
      }
    }
    if (!scope.hasListeners(acpUpdate)) return;
    scope.emit(
      acpUpdate,
      deepFreeze({
        runId: this.id,
        provider: this.#session.settings.provider,
        parentId: this.#request.parent.id,
        sessionId: this.#session.sessionId ?? "",
        update,
      }),
    );
  }

  /** A `session/update` of a child session the agent announced. */
  onChildUpdate(from: string, update: unknown): void {
    if (!this.#settled) this.#children.update(from, update);
  }

  /** A `session/request_permission` for this run's session. */
  onPermission(params: PermissionParams, agentSignal: AbortSignal): Promise<PermissionOutcome> {
    return this.#permissions.answer(params, agentSignal);
  }
}
