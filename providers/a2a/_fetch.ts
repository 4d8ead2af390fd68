// The fetch every request goes through: a custom fetch held to its signal,
// the bearer token, and the wire policy (redirects, authentication failures,
// the size of an answer). Runtime-neutral: fetch and web streams only.
import { textHead } from "@seam/host";
import { OutputLimitError, RemoteHttpError } from "./_async.ts";
import { boundEvents } from "./_sse_bound.ts";

/**
 * Make `fetchImpl` honour `init.signal` all the way: the call itself and
 * the response body (an in-process handler's body may not). A response that
 * arrives after the abort has its body cancelled.
 */
export function guardFetch(fetchImpl: typeof fetch): typeof fetch {
  return (input, init) => {
    const signal = init?.signal ?? undefined;
    let pending: Promise<Response>;
    try {
      pending = Promise.resolve(fetchImpl(input, init));
    } catch (error) {
      return Promise.reject(error);
    }
    if (!signal) return pending;
    if (signal.aborted) {
      pending.then((late) => late.body?.cancel().catch(() => {}), () => {});
      return Promise.reject(signal.reason);
    }
    return new Promise<Response>((resolve, reject) => {
      const onAbort = () => {
        pending.then((late) => late.body?.cancel().catch(() => {}), () => {});
        reject(signal.reason);
      };
      signal.addEventListener("abort", onAbort, { once: true });
      pending.then((response) => {
        signal.removeEventListener("abort", onAbort);
        if (signal.aborted) {
          response.body?.cancel().catch(() => {});
          return;
        }
        if (!response.body) return resolve(response);
        const body = response.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>(), {
          signal,
        });
        resolve(
          new Response(body, {
            status: response.status,
            statusText: response.statusText,
            headers: response.headers,
          }),
        );
      }, (error) => {
        signal.removeEventListener("abort", onAbort);
        reject(error);
      });
    });
  };
}

/** `fetchImpl` with `Authorization: Bearer <token>` on every request that has none. */
export function bearerFetch(fetchImpl: typeof fetch, token: string): typeof fetch {
  const value = `Bearer ${token}`;
  return (input, init) => {
    const headers = new Headers(
      init?.headers ?? (input instanceof Request ? input.headers : undefined),
    );
    if (!headers.has("authorization")) headers.set("authorization", value);
    return fetchImpl(input, { ...init, headers });
  };
}

/** The HTTP status of the last answer that was not OK, by the request's signal. */
const failedStatus = new WeakMap<AbortSignal, number>();

/**
 * The status of the last non-OK answer (4xx, 5xx) to a request made with
 * `signal` through a {@linkcode policyFetch}, for a run's `result.error`.
 */
export function failedStatusOf(signal: AbortSignal): number | undefined {
  return failedStatus.get(signal);
}

/** The requests whose OK answer was read to its end, or opened an event stream, by signal. */
const answered = new WeakSet<AbortSignal>();

/**
 * Whether the OK answer (2xx) to the request made with `signal` through a
 * {@linkcode policyFetch} arrived: a body read to its end, or an event
 * stream asked for and opened. What then fails to read it, but a broken
 * connection, is the answer itself.
 */
export function answerArrived(signal: AbortSignal): boolean {
  return answered.has(signal);
}

/** What the provider does with redirects and answers it does not take. */
export interface WirePolicy {
  /** `refuse`: a redirect ends the request; `same-origin`: follow those within the origin. */
  readonly redirects: "refuse" | "same-origin";
  /** The largest body of an answer, or event of an event stream, in bytes. */
  readonly maxBodyBytes: number;
}

const MAX_REDIRECTS = 5;
/** The most of an error body read for its reason, and the most of the reason kept. */
const REASON_BYTES = 4_096;
const REASON_CHARS = 300;

function isRedirect(status: number): boolean {
  return status === 301 || status === 302 || status === 303 || status === 307 || status === 308;
}

function urlOr(location: string, base: string): URL | undefined {
  try {
    return new URL(location, base);
  } catch {
    return undefined;
  }
}

/** A short reason from an error body: a JSON-RPC or google.rpc.Status `error.message`, else its text. */
async function reasonOf(response: Response): Promise<string> {
  let text = "";
  try {
    const reader = response.body?.getReader();
    if (reader) {
      const decoder = new TextDecoder();
      let bytes = 0;
      while (bytes < REASON_BYTES) {
        const { done, value } = await reader.read();
        if (done) break;
        bytes += value.byteLength;
        text += decoder.decode(value, { stream: true });
      }
      await reader.cancel().catch(() => {});
    }
  } catch {
    // The reason is a courtesy: a broken body leaves it out.
  }
  try {
    const json = JSON.parse(text) as { error?: { message?: unknown }; message?: unknown };
    const message = json?.error?.message ?? json?.message;
    if (typeof message === "string" && message !== "") return textHead(message, REASON_CHARS);
  } catch { /* not JSON */ }
  return textHead(text.trim(), REASON_CHARS);
}

/**
 * `response` with its body held to `max` bytes, or each of its events when it
 * is an event stream answering a request that asked for one (`streaming`):
 * another request's answer is read whole (`json()`, `text()`), whatever it
 * calls itself.
 */
function boundBody(
  response: Response,
  max: number,
  streaming: boolean,
  signal: AbortSignal | undefined,
): Response {
  if (!response.body) return response;
  if (streaming && response.headers.get("content-type")?.startsWith("text/event-stream")) {
    const eventTooLarge = () =>
      new OutputLimitError(
        `the remote agent sent a stream event larger than ${max} bytes (4 × maxOutputChars)`,
        { option: "maxOutputChars", maxBodyBytes: max },
      );
    if (response.ok && signal) answered.add(signal);
    return new Response(boundEvents(response.body, max, eventTooLarge), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  }
  const tooLarge = () =>
    new OutputLimitError(
      `the remote agent's answer is larger than ${max} bytes (4 × maxOutputChars)`,
      { option: "maxOutputChars", maxBodyBytes: max },
    );
  const length = Number(response.headers.get("content-length") ?? NaN);
  if (Number.isSafeInteger(length) && length > max) {
    response.body.cancel().catch(() => {});
    throw tooLarge();
  }
  let seen = 0;
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > max) controller.error(tooLarge());
        else controller.enqueue(chunk);
      },
      flush() {
        if (response.ok && signal) answered.add(signal);
      },
    }),
  );
  return new Response(body, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/**
 * `fetchImpl` under the wire policy: redirects are not followed (or only
 * within the origin, 5 at most), a 401 or 403 ends the request with a
 * {@linkcode RemoteHttpError} saying authentication failed and why, and an
 * answer's body is held to `maxBodyBytes` (an event stream asked for with
 * `Accept: text/event-stream`: each of its events).
 */
export function policyFetch(fetchImpl: typeof fetch, policy: WirePolicy): typeof fetch {
  return async (input, init) => {
    let url = input instanceof Request ? input.url : String(input);
    let method = (init?.method ?? (input instanceof Request ? input.method : "GET")).toUpperCase();
    let next: RequestInit = { ...init, redirect: "manual" };
    let target: RequestInfo | URL = input;
    const accept = new Headers(
      init?.headers ?? (input instanceof Request ? input.headers : undefined),
    )
      .get("accept");
    const streaming = accept?.includes("text/event-stream") ?? false;
    for (let hop = 0;; hop++) {
      const response = await fetchImpl(target, next);
      const status = response.status;
      if (isRedirect(status)) {
        const location = response.headers.get("location");
        await response.body?.cancel().catch(() => {});
        const to = location === null ? undefined : urlOr(location, url);
        const where = { location: to?.href ?? location };
        const what = `${method} ${url} answered HTTP ${status}, a redirect ${
          to ? `to ${to.href}` : location === null ? "with no Location" : "to a malformed Location"
        }`;
        if (policy.redirects === "refuse") {
          throw new RemoteHttpError(
            status,
            `${what}; redirects are not followed (options.redirects "same-origin" follows those within the origin)`,
            where,
          );
        }
        if (!to || to.origin !== new URL(url).origin) {
          throw new RemoteHttpError(
            status,
            `${what}, outside ${
              new URL(url).origin
            }; only same-origin redirects are followed (options.redirects)`,
            where,
          );
        }
        if (hop >= MAX_REDIRECTS) {
          throw new RemoteHttpError(
            status,
            `${what}: more than ${MAX_REDIRECTS} redirects in a row`,
            where,
          );
        }
        const headers = new Headers(next.headers);
        // fetch's own rules: a 303, or a 301/302 on a POST, continues as a GET without a body.
        if (
          (status === 303 && method !== "HEAD") ||
          ((status === 301 || status === 302) && method === "POST")
        ) {
          method = "GET";
          headers.delete("content-type");
          next = { ...next, method, body: undefined, headers };
        } else if (next.body !== undefined && next.body !== null && typeof next.body !== "string") {
          throw new RemoteHttpError(status, `${what}: its body cannot be sent again`, where);
        }
        url = to.href;
        target = to.href;
        continue;
      }
      if (status === 401 || status === 403) {
        const reason = await reasonOf(response);
        throw new RemoteHttpError(
          status,
          `authentication failed${
            status === 403 ? " (access denied)" : ""
          }: ${method} ${url} answered HTTP ${status}${
            response.statusText ? ` ${response.statusText}` : ""
          }${reason ? ` (${reason})` : ""}; check options.token or options.fetch`,
          reason ? { reason } : {},
        );
      }
      if (!response.ok && init?.signal) failedStatus.set(init.signal, status);
      return boundBody(response, policy.maxBodyBytes, streaming, init?.signal ?? undefined);
    }
  };
}
