// The adapter's HTTP exchange: one POST with retries (HTTP 429 and 5xx, an
// exponential backoff with jitter or the server's `Retry-After`), each
// attempt under an idle timer, and an error answer's body read bounded for
// the excerpt its error quotes.
import { delay } from "./delay.ts";
import { messageOf } from "./unknown.ts";

const EXCERPT = 500;
/** The most of an error body read for its excerpt. */
const ERROR_BODY_LIMIT = 16 * 1024;

export interface Config {
  readonly url: string;
  readonly fetch: (input: Request) => Promise<Response>;
  readonly headers: Readonly<Record<string, string>>;
  readonly timeoutMs: number;
  readonly retries: number;
  readonly retryDelayMs: number;
  readonly maxRetryDelayMs: number;
}

export function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  if (flat === "") return "(empty body)";
  return flat.length > EXCERPT ? `${flat.slice(0, EXCERPT)}…` : flat;
}

/**
 * One HTTP attempt's signal: aborted by the caller's signal, or by the
 * attempt's own idle timer (then `timedOut` says what it waited for).
 */
export class Attempt {
  readonly #controller = new AbortController();
  readonly #caller: AbortSignal;
  readonly #ms: number;
  readonly #onAbort: () => void;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #waitingFor = "";
  /** What the attempt waited for when its timer fired, else `undefined`. */
  timedOut: string | undefined;

  constructor(caller: AbortSignal, ms: number) {
    this.#caller = caller;
    this.#ms = ms;
    this.#onAbort = () => this.#controller.abort(caller.reason);
    caller.addEventListener("abort", this.#onAbort, { once: true });
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** (Re)start the idle timer: `what` is what we are waiting for. */
  arm(what: string): void {
    this.#waitingFor = what;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => {
      this.timedOut = this.#waitingFor;
      this.#controller.abort(new Error(`timed out waiting for ${this.#waitingFor}`));
    }, this.#ms);
  }

  /** Restart the timer for the same wait (a piece of the stream arrived). */
  touch = (): void => this.arm(this.#waitingFor);

  /** Stop the timer (the consumer holds the next event: waiting on it is not the server's fault). */
  pause(): void {
    clearTimeout(this.#timer);
  }

  /** `source`'s items, the timer armed only while the next one is awaited from the server. */
  async *watch<T>(source: AsyncGenerator<T>, what: string): AsyncGenerator<T> {
    try {
      for (;;) {
        this.arm(what);
        const next = await source.next();
        this.pause();
        if (next.done) return;
        yield next.value;
      }
    } finally {
      this.pause();
      await source.return(undefined);
    }
  }

  /** Release the timer and the caller's listener. */
  close(): void {
    clearTimeout(this.#timer);
    this.#caller.removeEventListener("abort", this.#onAbort);
  }
}

/** Read at most {@linkcode ERROR_BODY_LIMIT} bytes of `response`'s body as text. */
export async function boundedText(response: Response): Promise<string> {
  if (!response.body) return "";
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let size = 0;
  try {
    while (size < ERROR_BODY_LIMIT) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      size += value.byteLength;
      text += decoder.decode(value, { stream: true });
    }
    await reader.cancel().catch(() => {});
    return text;
  } catch {
    return text; // keep what arrived
  } finally {
    reader.releaseLock();
  }
}

/** The wait `Retry-After` asks for in ms (delta seconds or an HTTP date), if readable. */
function retryAfterMs(headers: Headers): number | undefined {
  const value = headers.get("retry-after")?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

function retryable(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/** POST `body` with retries; the successful event-stream response and its live attempt. */
export async function open(
  config: Config,
  body: string,
  signal: AbortSignal,
): Promise<{ response: Response; attempt: Attempt }> {
  const { url } = config;
  for (let tries = 1;; tries++) {
    const attempt = new Attempt(signal, config.timeoutMs);
    let keep = false;
    try {
      attempt.arm("the response headers");
      let response: Response;
      try {
        response = await config.fetch(
          new Request(url, {
            method: "POST",
            headers: config.headers,
            body,
            signal: attempt.signal,
          }),
        );
      } catch (error) {
        if (signal.aborted) throw signal.reason;
        if (attempt.timedOut) {
          throw new Error(
            `The model server at ${url} did not answer within ${config.timeoutMs} ms`,
          );
        }
        throw new Error(`The model request to ${url} failed: ${messageOf(error)}`, {
          cause: error,
        });
      }
      if (response.ok) {
        keep = true;
        return { response, attempt };
      }
      const text = await boundedText(response);
      if (signal.aborted) throw signal.reason;
      const answered = `The model server at ${url} answered HTTP ${response.status}${
        response.statusText ? ` ${response.statusText}` : ""
      }: ${excerpt(text)}`;
      const after = tries > 1 ? ` (attempt ${tries} of ${config.retries + 1})` : "";
      if (!retryable(response.status) || tries > config.retries) throw new Error(answered + after);
      const asked = retryAfterMs(response.headers);
      if (asked !== undefined && asked > config.maxRetryDelayMs) {
        throw new Error(
          `${answered}${after} (it asked to retry after ${
            Math.ceil(asked / 1000)
          } s, longer than maxRetryDelayMs ${config.maxRetryDelayMs})`,
        );
      }
      const backoff = Math.min(config.maxRetryDelayMs, config.retryDelayMs * 2 ** (tries - 1));
      attempt.close();
      await delay(asked ?? backoff * (0.5 + Math.random() / 2), signal);
    } finally {
      if (!keep) attempt.close();
    }
  }
}
