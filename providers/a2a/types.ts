import type { Logger } from "@seam/host";
import type { SubagentProvider } from "@seam/subagent";

/** An A2A protocol binding this provider speaks. */
export type A2ABinding = "JSONRPC" | "HTTP+JSON";

/**
 * An agent card as JSON (the A2A v1.0 shape, or a v0.3 card). Only the
 * fields the provider reads are typed; anything else is carried along.
 */
export interface A2AAgentCard {
  /** The agent's name. */
  readonly name?: string;
  /** The interfaces it serves (v1.0): `{url, protocolBinding, protocolVersion, tenant?}`. */
  readonly supportedInterfaces?: readonly {
    readonly url: string;
    readonly protocolBinding: string;
    readonly protocolVersion?: string;
    readonly tenant?: string;
  }[];
  /** What it can do: `streaming`, `extensions` (a seam gateway declares its own here). */
  readonly capabilities?: {
    readonly streaming?: boolean;
    readonly extensions?: readonly {
      readonly uri: string;
      readonly params?: { readonly [key: string]: unknown };
      readonly [field: string]: unknown;
    }[];
    readonly [field: string]: unknown;
  };
  /** Any other card field (`description`, `skills`, a v0.3 card's `url`, …). */
  readonly [field: string]: unknown;
}

/**
 * How a dropped event stream is re-attached (`SubscribeToTask`, or `GetTask`
 * polling for an agent that does not stream): up to `retries` attempts in a
 * row, waiting `delayMs`, then twice as long each time, at most `maxDelayMs`.
 * An attempt that brings progress (something this run had not seen of the
 * task) resets the count; at most `maxReattaches` attempts a run in all.
 */
export interface A2AReconnectPolicy {
  /**
   * Attempts in a row before the run ends `error` (`CONNECTION_LOST`). A
   * re-attached stream that drops again counts as a failed attempt unless it
   * brought progress: a state, an output or a word from the agent not seen
   * before in this run (a repeated `WORKING` is none, and neither is a flip
   * back to a state or a word seen before: `WORKING` to `SUBMITTED` and back,
   * or one word and another by turns; the last 256 words and outputs are
   * remembered). Default 3.
   */
  readonly retries?: number;
  /** The first wait, in ms. Default 200. */
  readonly delayMs?: number;
  /** The longest wait, in ms. Default 5,000. */
  readonly maxDelayMs?: number;
  /**
   * The most re-attachments (`SubscribeToTask` requests) one run makes in
   * all, whatever they bring: a remote that drops its stream after every
   * event, each new, is let go at the next drop past it, the run ending
   * `error` (`CONNECTION_LOST`, "… after N re-attach(es) in this run: the
   * limit of N was reached (reconnect.maxReattaches)"), the task cancelled.
   * `GetTask` polls do not count. An integer from 0 to 1,000,000. Default 100.
   */
  readonly maxReattaches?: number;
}

/** Options of {@linkcode createA2AProvider}. Give `url` or `card`. */
export interface A2AProviderOptions {
  /**
   * Where the agent card is: its URL (a path ending in `.json`), or the
   * agent's base URL, the card then being read from
   * `{url}/.well-known/agent-card.json` (for a seam gateway,
   * `https://host/{provider}` reads that provider's card).
   */
  readonly url?: string | URL;
  /** The agent card itself (JSON, as served); no discovery request is made. */
  readonly card?: A2AAgentCard;
  /** The name the provider registers under. Default `"a2a"`. */
  readonly name?: string;
  /**
   * For a seam gateway: the remote provider to address (a skill id of its
   * card; sent as the request's `tenant`). Default: the provider the card
   * addresses (a provider's own card), else the gateway's default. Other
   * agents have no providers to address: giving it is an error.
   */
  readonly provider?: string;
  /** The binding to prefer when the card offers both. Default: the card's own order. */
  readonly binding?: A2ABinding;
  /** A bearer token sent as `Authorization: Bearer <token>` with every request. */
  readonly token?: string;
  /**
   * The `fetch` every request goes through (auth, proxies, or a handler
   * called in-process: `(input, init) => gateway.fetch(new Request(input, init))`).
   * Default: the global `fetch`.
   */
  readonly fetch?: typeof fetch;
  /**
   * How long any one request may take to answer, in ms: discovery, a
   * unary call (`GetTask`, `CancelTask`, a steering message), and a stream
   * until its first event (after it, `idleTimeoutMs` bounds the wait).
   * Default 30,000.
   */
  readonly timeoutMs?: number;
  /**
   * How long a run's remote task may bring nothing new, in ms, before the
   * run ends `error` ("brought nothing new for … ms (idleTimeoutMs)") and the
   * task is cancelled. New is a state, an output or a last word of the
   * agent's that this run had not seen before: `: keep-alive` comments, a
   * repeated `WORKING`, a `GetTask` poll with the same answer, a re-attached
   * stream that only repeats what was known and a flip back to what was seen
   * (`WORKING` and `SUBMITTED` by turns, two words by turns) do not count. It runs from the task's first
   * event, across reconnects and polls. Default 300,000 (5 minutes).
   */
  readonly idleTimeoutMs?: number;
  /**
   * How long a whole run may take, in ms, from `start` to its end, however
   * lively the remote: past it the run ends `error` ("did not end within …
   * ms (deadlineMs)") and the task is cancelled. Default: no deadline.
   */
  readonly deadlineMs?: number;
  /**
   * The most output one run holds, in characters (text, `data` parts as
   * JSON, file bytes as base64, the agent's last word, and what names them:
   * artifact ids, media types, file names; at least one a part, but none for an
   * empty text chunk appended, which holds nothing): an answer or event
   * that would pass it ends the run `error`, the output taken before kept,
   * the task cancelled. Any one answer that is not an event stream (a
   * `GetTask`, a `SendMessage`), and any one event of a stream, may also be
   * at most 4 × this many bytes (UTF-8, as sent: text JSON-escaped as
   * `\uXXXX` takes 6 bytes a character, so such a remote meets this first).
   * Default 4,000,000 (a run then holds about 28 MiB at most: bench/README.md).
   */
  readonly maxOutputChars?: number;
  /**
   * What a redirect (HTTP 301, 302, 303, 307, 308) does: `"refuse"` ends
   * the request, and so the run (or discovery), with an error naming the status
   * and the target, so a request and its prompt never go where the card did
   * not say; `"same-origin"` follows a redirect within the request's own
   * origin (5 in a row at most) and refuses one elsewhere. Default `"refuse"`.
   */
  readonly redirects?: "refuse" | "same-origin";
  /**
   * Use only interfaces on the card's own origin (needs `url`). Whatever
   * this says, an interface URL that is not `http:` or `https:` is never
   * used; discovery fails, naming each interface left out, when none is left.
   * Default `false`.
   */
  readonly sameOriginInterfaces?: boolean;
  /** How a dropped stream is re-attached; `false`: never (the run ends `error`). */
  readonly reconnect?: A2AReconnectPolicy | false;
  /** How often a task is polled (`GetTask`) when the agent does not stream, in ms. Default 500. */
  readonly pollIntervalMs?: number;
  /**
   * Whether runs offer `resume` (a follow-up message in the task's context).
   * Default `true`: any A2A agent takes a message in an existing context.
   */
  readonly resume?: boolean;
  /**
   * Whether runs offer `sendMessage` (a message to the running task).
   * Default: `true` for a seam gateway (which steers a running child whose
   * provider can), `false` for other agents.
   */
  readonly sendMessage?: boolean;
  /** Where diagnostics go. Default: the delegating parent's scope logger. */
  readonly logger?: Logger;
}

/** What discovery found out about the remote agent. */
export interface A2ARemoteInfo {
  /** The card's URL (`undefined` when the card was given). */
  readonly cardUrl: string | undefined;
  /** The agent's name, from its card. */
  readonly name: string;
  /** The binding in use. */
  readonly binding: A2ABinding;
  /** The protocol version spoken (`"1.0"`, or `"0.3"` through the SDK's compatibility). */
  readonly protocolVersion: string;
  /** Whether runs stream (`SendStreamingMessage`) or poll (`SendMessage` + `GetTask`). */
  readonly streaming: boolean;
  /** Whether the card declares the seam extension (a seam gateway). */
  readonly seam: boolean;
  /** For a seam gateway: the remote provider addressed. */
  readonly provider: string | undefined;
}

/**
 * A provider whose children run on a remote A2A agent. Dispose it when done:
 * every live run ends `aborted` and its remote task is cancelled.
 */
export interface A2AProvider extends SubagentProvider {
  /** What discovery found out about the remote agent. */
  readonly remote: A2ARemoteInfo;
  /** End every live run (`aborted`, remote tasks cancelled) and refuse new ones. Memoized. */
  dispose(): Promise<void>;
}
