// The remote task as the run has read it: the pure half of a run. It takes
// the remote agent's answers and stream events as plain objects (the SDK
// client's shapes), keeps the task's id, state, artifacts and last word,
// says what each event brought, and turns the task's end into an outcome.
// No I/O, no timers: `_run.ts` does the talking.
import type { OutputSchema } from "@seam/subagent";
import type { Artifact, Message, StreamResponse, Task, TaskStatus } from "@a2a-js/sdk";
import { type FailureData, OutputLimitError, RemoteProtocolError } from "./_async.ts";
import { clipped } from "./_failure.ts";
import { readSeamReport, type SeamTaskReport } from "./_extension.ts";
import { type TaskOutcome, taskOutcome } from "./_task_outcome.ts";

export { stopReasonOf, type TaskOutcome } from "./_task_outcome.ts";
import { Digest, Seen } from "./_seen.ts";
import {
  appendPieces,
  partsToPieces,
  type Piece,
  stateName,
  TaskStates,
  textOfPieces,
} from "./_wire.ts";

/**
 * Where the remote task stands:
 * - `unknown`: no task yet;
 * - `live`: SUBMITTED or WORKING, its end still to come;
 * - `interrupted`: INPUT_REQUIRED or AUTH_REQUIRED, waiting for an answer
 *   (the task stays open on the remote);
 * - `ended`: COMPLETED, FAILED, CANCELED or REJECTED, for good;
 * - `reply`: the agent answered with a message and made no task.
 */
export type TaskCondition = "unknown" | "live" | "interrupted" | "ended" | "reply";

/** What one answer or event brought. */
export interface TaskNews {
  /** New text for `subagent/progress` (`""` for none). */
  readonly text: string;
  /** Whether anything changed: the state, the output or the agent's last word. */
  readonly changed: boolean;
  /**
   * Whether it changed to something this run had not seen before: a state,
   * an output or a word of the agent's not read earlier in the run (a flip
   * back to one seen, WORKING to SUBMITTED and back, is a change, not progress).
   */
  readonly progress: boolean;
  /** Whether this made the task (or the reply) known for the first time. */
  readonly first: boolean;
}

/** What the reader needs to know about the run. */
export interface TaskReaderOptions {
  /** Read a text part's `metadata.uri` as a resource (a seam gateway's form). */
  readonly resourceUris: boolean;
  /** The most output (text, data, files, the agent's last word) held, in characters. */
  readonly maxOutputChars: number;
  /**
   * A context the remote seam gateway must continue (a resume without a task):
   * its first report must name the run it resumed.
   */
  readonly continuing?: string;
}

const NO_NEWS: TaskNews = Object.freeze({
  text: "",
  changed: false,
  progress: false,
  first: false,
});
const FIRST_NEWS: TaskNews = Object.freeze({
  text: "",
  changed: true,
  progress: true,
  first: true,
});

function merge(a: TaskNews, b: TaskNews): TaskNews {
  if (a === NO_NEWS) return b;
  if (b === NO_NEWS) return a;
  return {
    text: a.text + b.text,
    changed: a.changed || b.changed,
    progress: a.progress || b.progress,
    first: a.first || b.first,
  };
}

/** One artifact held: its pieces, the characters they hold, and the digest of its id and content. */
interface Held {
  pieces: Piece[];
  size: number;
  digest: Digest;
}

/** The digest of an artifact's id and pieces (an append goes on from it). */
function artifactDigest(id: string, pieces: readonly Piece[]): Digest {
  return new Digest().update(id).update("\u0000").pieces(pieces);
}

/**
 * The characters pieces hold: their content and their names (media types,
 * file names), and at least one for each piece (an empty one is held all the
 * same, so a remote sending empty parts without end runs into the bound too).
 */
function sizeOf(pieces: readonly Piece[]): number {
  let size = 0;
  for (const piece of pieces) {
    let chars = 0;
    switch (piece.type) {
      case "text":
        chars = piece.text.length;
        break;
      case "image":
        chars = piece.data.length + piece.mediaType.length;
        break;
      case "file":
        chars = piece.data.length + piece.mediaType.length + (piece.filename?.length ?? 0);
        break;
      case "resource":
        chars = piece.uri.length + (piece.text?.length ?? 0) + (piece.mediaType?.length ?? 0) +
          (piece.filename?.length ?? 0);
        break;
      case "data":
        chars = JSON.stringify(piece.data)?.length ?? 0;
        break;
    }
    size += Math.max(1, chars);
  }
  return size;
}

/** The remote task of one run, read event by event. */
export class TaskReader {
  readonly #options: TaskReaderOptions;
  #condition: TaskCondition = "unknown";
  #taskId: string | undefined;
  #contextId: string | undefined;
  #state = 0;
  readonly #artifacts = new Map<string, Held>();
  #statusMessage: { pieces: Piece[]; size: number } | undefined;
  #held = 0;
  #report: SeamTaskReport | undefined;
  #continuing: string | undefined;
  /** The status message's id (A2A `messageId`), to tell a new interruption from the one answered. */
  #statusMessageId: string | undefined;
  /** Set once an interruption was answered, until the task moves on: what it said then. */
  #answered: { readonly messageId: string | undefined } | undefined;
  /** The states, the agent's words and the artifacts' contents read so far (digests, bounded). */
  readonly #seenStates = new Seen<number>();
  readonly #seenWords = new Seen<number>();
  readonly #seenOutputs = new Seen<number>();

  constructor(options: TaskReaderOptions) {
    this.#options = options;
    this.#continuing = options.continuing;
  }

  /** Where the task stands. */
  get condition(): TaskCondition {
    return this.#condition;
  }

  /** The task's id, once known. */
  get taskId(): string | undefined {
    return this.#taskId;
  }

  /** The task's (or the reply's) context, once known. */
  get contextId(): string | undefined {
    return this.#contextId;
  }

  /** The last state read (the proto number; 0 before any). */
  get state(): number {
    return this.#state;
  }

  /** The output held, in characters. */
  get held(): number {
    return this.#held;
  }

  /** What the task said last (its status message), as pieces. */
  get statusPieces(): readonly Piece[] {
    return this.#statusMessage?.pieces ?? [];
  }

  /**
   * The interruption was answered (a message is on its way): the task is
   * live again, and reading it again in that same interrupted state (a
   * snapshot from before the answer, its status message unchanged) does not
   * make it interrupted; a new status message in an interrupted state does.
   *
   * @throws {TypeError} when the task is not interrupted.
   */
  answered(): void {
    if (this.#condition !== "interrupted") {
      throw new TypeError(`Cannot answer the remote task: it is ${this.#condition}`);
    }
    this.#answered = { messageId: this.#statusMessageId };
    this.#condition = "live";
  }

  /** One stream event (`task`, `message`, `statusUpdate` or `artifactUpdate`). */
  read(event: StreamResponse): TaskNews {
    const payload = event?.payload;
    switch (payload?.$case) {
      case "task":
        return this.readTask(payload.value);
      case "message":
        return this.readMessage(payload.value);
      case "statusUpdate": {
        const update = payload.value;
        // The 0.3 SDK's server publishes an agent's throw on a new task as FAILED under
        // another task id: it is this task's failure, with the agent's own words.
        if (
          this.#taskId !== undefined && update?.taskId !== this.#taskId &&
          this.#condition !== "reply" && update?.status?.state === TaskStates.FAILED
        ) {
          return this.#readStatus(update.status, update.metadata, false);
        }
        const first = this.#noteTask(update?.taskId, update?.contextId) ? FIRST_NEWS : NO_NEWS;
        return merge(first, this.#readStatus(update.status, update.metadata, false));
      }
      case "artifactUpdate": {
        const update = payload.value;
        const first = this.#noteTask(update?.taskId, update?.contextId) ? FIRST_NEWS : NO_NEWS;
        if (!update.artifact) {
          throw new RemoteProtocolError(
            "the remote agent sent an artifact update with no artifact",
          );
        }
        return merge(first, this.#readArtifact(update.artifact, update.append === true));
      }
      default:
        throw new RemoteProtocolError(
          `the remote agent sent an event that is none of task, message, statusUpdate, artifactUpdate: ${
            clipped(JSON.stringify(event) ?? String(event), 200)
          }`,
        );
    }
  }

  /** An answer to `SendMessage`: a task or a message. */
  readAnswer(answer: Task | Message): TaskNews {
    if (answer && typeof answer === "object" && "messageId" in answer) {
      return this.readMessage(answer as Message);
    }
    return this.readTask(answer as Task);
  }

  /** A task snapshot (an answer, a `GetTask`, the first event of a stream). */
  readTask(task: Task): TaskNews {
    if (!task || typeof task !== "object") {
      throw new RemoteProtocolError("the remote agent answered with neither a task nor a message");
    }
    let news = this.#noteTask(task.id, task.contextId) ? FIRST_NEWS : NO_NEWS;
    for (const artifact of task.artifacts ?? []) {
      news = merge(news, this.#readArtifact(artifact, false));
    }
    return merge(news, this.#readStatus(task.status, task.metadata, true));
  }

  /** A message: about the task (progress, its latest word), or a direct reply (the whole run). */
  readMessage(message: Message): TaskNews {
    const pieces = partsToPieces(message?.parts, this.#options.resourceUris);
    if (message?.taskId) {
      const first = this.#noteTask(message.taskId, message.contextId);
      const word = this.#setStatusMessage(pieces);
      return {
        text: textOfPieces(pieces),
        changed: word.changed || first,
        progress: word.progress || first,
        first,
      };
    }
    if (this.#condition === "reply") return NO_NEWS;
    if (this.#condition !== "unknown") {
      throw new RemoteProtocolError(
        `the remote agent sent a message with no task id on the stream of task "${this.#taskId}"`,
      );
    }
    const size = sizeOf(pieces);
    this.#checkRoom(size);
    this.#artifacts.set("", { pieces, size, digest: artifactDigest("", pieces) });
    this.#held += size;
    if (message?.contextId) this.#contextId = message.contextId;
    this.#state = TaskStates.COMPLETED;
    this.#condition = "reply";
    return FIRST_NEWS;
  }

  /** Replace the artifacts with a final snapshot's (a task read once more at its end). */
  replaceArtifacts(artifacts: readonly Artifact[] | undefined): void {
    let held = this.#statusMessage?.size ?? 0;
    const next = new Map<string, Held>();
    for (const artifact of artifacts ?? []) {
      const pieces = partsToPieces(artifact.parts, this.#options.resourceUris, true);
      const id = typeof artifact.artifactId === "string" ? artifact.artifactId : "";
      const size = sizeOf(pieces) + id.length;
      held += size;
      this.#checkRoom(size, held - size);
      next.set(id, { pieces, size, digest: artifactDigest(id, pieces) });
    }
    this.#artifacts.clear();
    for (const [id, entry] of next) this.#artifacts.set(id, entry);
    this.#held = held;
  }

  /** Every piece of output held, artifacts in order. */
  pieces(): Piece[] {
    const pieces: Piece[] = [];
    for (const artifact of this.#artifacts.values()) pieces.push(...artifact.pieces);
    return pieces;
  }

  /**
   * The outcome of a task that ended here (or stopped for input): see
   * {@linkcode taskOutcome}. `refused`: why the interruption's input request
   * was refused (the run ends at it).
   */
  outcome(
    schema: OutputSchema | undefined,
    offerResume: boolean,
    refused?: string,
  ): TaskOutcome {
    return taskOutcome(
      {
        state: this.#state,
        report: this.#report,
        pieces: this.pieces(),
        statusPieces: this.#statusMessage?.pieces,
        ids: this.#ids(),
      },
      schema,
      offerResume,
      refused,
    );
  }

  #ids(): FailureData {
    const ids: { taskId?: string; contextId?: string } = {};
    if (this.#taskId !== undefined) ids.taskId = this.#taskId;
    if (this.#contextId !== undefined) ids.contextId = this.#contextId;
    return ids;
  }

  // ---- reading ----

  /** Note the task an event is about; `true` when it is the first news of it. */
  #noteTask(taskId: string | undefined, contextId: string | undefined): boolean {
    if (typeof taskId !== "string" || taskId === "") {
      throw new RemoteProtocolError("the remote agent sent a task event with no task id");
    }
    if (this.#condition === "reply") {
      throw new RemoteProtocolError(
        `the remote agent sent an event of task "${taskId}" after answering with a message`,
      );
    }
    if (this.#taskId === undefined) {
      this.#taskId = taskId;
      if (contextId) this.#contextId = contextId;
      this.#condition = "live";
      return true;
    }
    if (taskId !== this.#taskId) {
      throw new RemoteProtocolError(
        `the remote agent sent an event of task "${taskId}" on the stream of task "${this.#taskId}"`,
      );
    }
    return false;
  }

  #readStatus(
    status: TaskStatus | undefined,
    metadata: Task["metadata"],
    snapshot: boolean,
  ): TaskNews {
    if (!status || typeof status.state !== "number") {
      throw new RemoteProtocolError("the remote agent sent a task status with no state");
    }
    const report = readSeamReport(metadata);
    if (report) this.#report = report;
    if (this.#continuing !== undefined && report) {
      const context = this.#continuing;
      this.#continuing = undefined;
      if (report.resumedFrom === undefined) {
        throw new RemoteProtocolError(
          `the seam gateway did not continue context "${context}": it started a fresh run (it kept no run for a follow-up in that context, or its provider cannot resume); that task was cancelled`,
        );
      }
    }
    let changed = false;
    let progress = false;
    if (status.message) {
      ({ changed, progress } = this.#setStatusMessage(
        partsToPieces(status.message.parts, this.#options.resourceUris),
      ));
      const id = status.message.messageId;
      this.#statusMessageId = typeof id === "string" && id !== "" ? id : undefined;
    }
    const state = status.state;
    let condition: TaskCondition;
    switch (state) {
      case TaskStates.SUBMITTED:
      case TaskStates.WORKING:
        condition = "live";
        break;
      case TaskStates.COMPLETED:
      case TaskStates.FAILED:
      case TaskStates.CANCELED:
      case TaskStates.REJECTED:
        condition = "ended";
        break;
      // The task waits for an answer from this side (the run asks its parent), unless
      // this is the interruption already answered, read again.
      case TaskStates.INPUT_REQUIRED:
      case TaskStates.AUTH_REQUIRED: {
        const answered = this.#answered;
        const id = status.message ? this.#statusMessageId : undefined;
        const stale = answered !== undefined &&
          (answered.messageId !== undefined && id !== undefined
            ? id === answered.messageId
            : snapshot && state === this.#state);
        condition = stale ? "live" : "interrupted";
        break;
      }
      default:
        throw new RemoteProtocolError(`the remote task entered ${stateName(state)}`);
    }
    if (state !== this.#state) {
      changed = true;
      if (this.#seenStates.add(state)) progress = true;
    }
    if (condition !== "live" || state !== this.#state) this.#answered = undefined;
    this.#state = state;
    this.#condition = condition;
    return changed ? { text: "", changed, progress, first: false } : NO_NEWS;
  }

  #readArtifact(artifact: Artifact, append: boolean): TaskNews {
    const id = typeof artifact.artifactId === "string" ? artifact.artifactId : "";
    const pieces = partsToPieces(artifact.parts, this.#options.resourceUris, true);
    const previous = this.#artifacts.get(id);
    if (append && previous) {
      // An empty text chunk merges into the text before it and holds nothing
      // (one that follows no text is held, but the next ones merge into it).
      const size = sizeOf(pieces.filter((piece) => piece.type !== "text" || piece.text !== ""));
      this.#checkRoom(size);
      appendPieces(previous.pieces, pieces);
      previous.size += size;
      previous.digest.pieces(pieces);
      this.#held += size;
      const text = textOfPieces(pieces);
      return text === "" && pieces.every((piece) => piece.type === "text") ? NO_NEWS : {
        text,
        changed: true,
        progress: this.#seenOutputs.add(previous.digest.value()),
        first: false,
      };
    }
    // A new artifact holds its id too.
    const size = sizeOf(pieces) + id.length;
    this.#checkRoom(size, this.#held - (previous?.size ?? 0));
    const text = textOfPieces(pieces);
    const before = previous ? textOfPieces(previous.pieces) : "";
    const digest = artifactDigest(id, pieces);
    this.#artifacts.set(id, { pieces, size, digest });
    this.#held += size - (previous?.size ?? 0);
    // A replacement that extends what was streamed adds only its new end.
    const added = text.startsWith(before) ? text.slice(before.length) : text;
    const changed = previous === undefined || added !== "" || text !== before ||
      size !== previous.size;
    if (!changed) return NO_NEWS;
    return {
      text: added,
      changed,
      progress: this.#seenOutputs.add(digest.value()),
      first: false,
    };
  }

  /** Take the agent's word; whether it changed, and whether to one not seen before. */
  #setStatusMessage(pieces: Piece[]): { changed: boolean; progress: boolean } {
    const size = sizeOf(pieces);
    const previous = this.#statusMessage;
    this.#checkRoom(size, this.#held - (previous?.size ?? 0));
    const changed = previous === undefined ||
      textOfPieces(previous.pieces) !== textOfPieces(pieces) || previous.size !== size;
    this.#statusMessage = { pieces, size };
    this.#held += size - (previous?.size ?? 0);
    const progress = changed && this.#seenWords.add(new Digest().pieces(pieces).value());
    return { changed, progress };
  }

  /** Throw, before anything is taken, when `size` more characters would pass the bound. */
  #checkRoom(size: number, base = this.#held): void {
    const max = this.#options.maxOutputChars;
    if (base + size > max) {
      throw new OutputLimitError(
        `the remote agent sent more output than this run holds (${max} characters, maxOutputChars); what came before is kept`,
        { option: "maxOutputChars", maxOutputChars: max },
      );
    }
  }
}
