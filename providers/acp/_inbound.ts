// What the agent writes on stdout, screened before the SDK meets it: lines
// that are no JSON-RPC message (a banner, a stray print; too many before any
// message and the command speaks no ACP at all), and answers to no request
// this client sent (the SDK would print them and wait on). The requests
// sent are remembered, bounded, so that an answer can be placed.
import { isRecord, type Logger, textHead } from "@seam/host";
import { AcpError, cut } from "./_failure.ts";

type Json = Record<string, unknown>;

/**
 * Lines that are not JSON-RPC tolerated before the agent's first message (a
 * banner, a stray debug print); more, and it is not speaking ACP at all.
 */
const GARBAGE_BEFORE_PROTOCOL = 100;
/** Requests remembered as unanswered at most (see `#outstanding`). */
const OUTSTANDING_MAX = 4096;
/** The most characters of an unplaceable answer's id or message quoted. */
const QUOTED_CHARS = 600;
/** Garbage lines logged one by one; the rest are only counted. */
const GARBAGE_LOGGED = 20;
/** The first lines printed before any message kept to quote (each already cut). */
const FIRST_LINES_KEPT = 3;
/** Messages sent before the agent spoke remembered to recognise an echo (`cat`). */
const ECHO_WATCHED = 8;

/**
 * What to do with a message from the agent: `garbage` (no JSON-RPC message),
 * `drop` (an error tied to no request, logged), `pass` (to the SDK, or
 * routed when it is a `session/update`), or fail the connection with the error.
 */
export type Inbound = "garbage" | "drop" | "pass" | AcpError;

/** The screen of one connection's inbound messages. */
export class InboundScreen {
  readonly #logger: Logger;
  /** Whether a JSON-RPC message came from the agent yet. */
  #spoke = false;
  #garbageLines = 0;
  #firstGarbage: string | undefined;
  /** The first lines printed before any message, to quote. */
  #firstLines: string[] = [];
  /** The compact JSON of messages sent before the agent spoke: an echo of one is no answer. */
  #echoable: string[] = [];
  /** Ids of the requests sent and not yet answered. */
  #outstanding = new Set<string | number>();

  /** The command line that was started (command, then its arguments). */
  readonly commandLine: readonly string[];

  constructor(logger: Logger, commandLine: readonly string[] = []) {
    this.#logger = logger;
    this.commandLine = commandLine;
  }

  /**
   * A line that is no JSON-RPC message: logged (the first ones), counted;
   * the failure to end the connection with when the agent printed too many
   * before any message.
   */
  garbage(line: string): AcpError | undefined {
    const count = ++this.#garbageLines;
    this.#firstGarbage ??= line;
    if (!this.#spoke && this.#firstLines.length < FIRST_LINES_KEPT) this.#firstLines.push(line);
    if (count <= GARBAGE_LOGGED) {
      this.#logger.warn(
        `Ignored a line on the ACP agent's stdout that is not a JSON-RPC message: ${line}`,
      );
    } else if (count === GARBAGE_LOGGED + 1) {
      this.#logger.warn("The ACP agent keeps printing lines that are not JSON-RPC: counting them");
    }
    if (this.#spoke || count <= GARBAGE_BEFORE_PROTOCOL) return undefined;
    return new AcpError(
      "PROTOCOL_ERROR",
      `the command does not speak ACP: its first ${count} lines on stdout were not JSON-RPC messages (the first: ${
        JSON.stringify(this.#firstGarbage)
      })`,
    );
  }

  /** `; …` naming the garbage the agent printed before any message, or "". */
  note(): string {
    if (this.#spoke || this.#garbageLines === 0) return "";
    const lines = this.#garbageLines === 1 ? "1 line" : `${this.#garbageLines} lines`;
    return `; it printed ${lines} on stdout that ${
      this.#garbageLines === 1 ? "is" : "are"
    } not JSON-RPC (the first: ${JSON.stringify(this.#firstGarbage)})`;
  }

  /** How many requests this client sent that were not answered yet. */
  get outstanding(): number {
    return this.#outstanding.size;
  }

  /** Whether the agent sent a JSON-RPC message of its own yet. */
  get spoke(): boolean {
    return this.#spoke;
  }

  /** The first lines (at most 3, each cut) the agent printed before any message. */
  firstLines(): readonly string[] {
    return this.#firstLines;
  }

  /** A message from the agent: what to do with it. */
  screen(message: Json): Inbound {
    const echo = this.#spoke ? undefined : JSON.stringify(message);
    if (echo !== undefined && this.#echoable.includes(echo)) {
      if (this.#firstLines.length < FIRST_LINES_KEPT) this.#firstLines.push(cut(echo, 200));
      return new AcpError(
        "PROTOCOL_ERROR",
        `the command echoed back the ${
          typeof message.method === "string" ? `${cut(message.method, 100)} request` : "message"
        } this client sent it (as \`cat\` does), instead of answering it`,
      );
    }
    const isResponse = !("method" in message) && "id" in message &&
      ("result" in message || "error" in message);
    // An object that is no JSON-RPC message (a structured log line, say).
    if (!("method" in message) && !isResponse) return "garbage";
    this.#spoke = true;
    if (!isResponse) return "pass";
    // Screened here, so the SDK never meets an answer it cannot place (it
    // would print to the console and wait on).
    const id = message.id;
    const said = isRecord(message.error) && typeof message.error.message === "string"
      ? message.error.message
      : undefined;
    // The agent's words, quoted in a failure and a log line: bounded.
    const reason = said === undefined ? "" : `: ${cut(said, QUOTED_CHARS)}`;
    if (id === null) {
      // JSON-RPC's answer to what it could not read: tied to no request.
      this.#logger.warn(`The ACP agent sent an error tied to no request${reason}`);
      return "drop";
    }
    if (this.#outstanding.delete(id as string | number)) return "pass";
    return new AcpError(
      "PROTOCOL_ERROR",
      `the ACP agent answered a request this client never sent (id ${
        textHead(String(JSON.stringify(id)), QUOTED_CHARS)
      })${reason}`,
    );
  }

  /** A message this client sends: a request's id is remembered until answered. */
  sent(message: Json): void {
    if (!this.#spoke && this.#echoable.length < ECHO_WATCHED) {
      this.#echoable.push(JSON.stringify(message));
    }
    if (typeof message.method !== "string" || !("id" in message)) return;
    if (this.#outstanding.size >= OUTSTANDING_MAX) {
      // Requests the agent never answered (an abandoned session/close):
      // forget the oldest rather than grow for the life of the process.
      this.#outstanding.delete(this.#outstanding.values().next().value!);
    }
    this.#outstanding.add(message.id as string | number);
  }
}
