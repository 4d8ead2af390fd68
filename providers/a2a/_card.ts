// Discovery: where the agent card is, reading it, and screening the
// interfaces it offers before the SDK client picks one.
import { isRecord, messageOf } from "@seam/host";
import { Deadline } from "./_async.ts";

function bad(message: string): never {
  throw new TypeError(`Cannot create A2A provider: ${message}`);
}

/** The card's URL for `url`: itself when its path ends in `.json`, else its well-known card. */
export function cardUrlOf(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    bad(`options.url must be an absolute URL, got ${JSON.stringify(String(url))}`);
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") {
    bad(`options.url must be an http(s) URL, got "${parsed.protocol}"`);
  }
  if (parsed.pathname.endsWith(".json")) return parsed.href;
  parsed.pathname = `${parsed.pathname.replace(/\/+$/, "")}/.well-known/agent-card.json`;
  return parsed.href;
}

/** Read the card at `url` (bounded by `timeoutMs`); errors say what went wrong. */
export async function fetchCard(
  url: string,
  fetchImpl: typeof fetch,
  timeoutMs: number,
): Promise<Record<string, unknown>> {
  const deadline = new Deadline(
    undefined,
    timeoutMs,
    () => `the agent card at ${url} did not arrive within ${timeoutMs} ms (timeoutMs)`,
  );
  try {
    const response = await fetchImpl(url, {
      headers: { accept: "application/json", "a2a-version": "1.0" },
      signal: deadline.signal,
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => {});
      throw new Error(`the agent card at ${url} answered HTTP ${response.status}`);
    }
    const text = await response.text();
    let card: unknown;
    try {
      card = JSON.parse(text);
    } catch {
      throw new Error(`the agent card at ${url} is not JSON`);
    }
    if (!isRecord(card)) throw new Error(`the agent card at ${url} is not a JSON object`);
    return card;
  } catch (error) {
    const why = deadline.timedOut ? deadline.signal.reason : error;
    throw new Error(`Cannot create A2A provider: ${messageOf(why)}`, { cause: error });
  } finally {
    deadline.release();
  }
}

/** An interface of a normalized (v1.0-shaped) card, as the SDK reads it. */
interface CardInterface {
  readonly url?: unknown;
  readonly protocolBinding?: unknown;
}

/**
 * The card with only the interfaces this provider may reach: an absolute
 * `http:` or `https:` URL, on `origin` when one is given. Interfaces left out
 * are named in the error when none is left.
 *
 * @param card A normalized card (`supportedInterfaces`, as the SDK's resolver makes it).
 * @param where How to name the card in errors.
 */
export function screenInterfaces<T extends { supportedInterfaces?: readonly CardInterface[] }>(
  card: T,
  where: string,
  origin: string | undefined,
): T {
  const offered = card.supportedInterfaces ?? [];
  const kept: CardInterface[] = [];
  const refused: string[] = [];
  for (const entry of offered) {
    const binding = String(entry?.protocolBinding ?? "?");
    let url: URL | undefined;
    try {
      url = new URL(String(entry?.url));
    } catch {
      refused.push(`${binding} at ${JSON.stringify(entry?.url)} (not an absolute URL)`);
      continue;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      refused.push(`${binding} at ${url.href} (${url.protocol} URL; only http: and https:)`);
    } else if (origin !== undefined && url.origin !== origin) {
      refused.push(
        `${binding} at ${url.href} (not the card's origin ${origin}; options.sameOriginInterfaces)`,
      );
    } else {
      kept.push(entry);
    }
  }
  if (kept.length === 0 && refused.length > 0) {
    throw new Error(
      `Cannot create A2A provider: the agent card ${where} offers no interface this provider may reach: ${
        refused.join("; ")
      }`,
    );
  }
  return refused.length === 0 ? card : { ...card, supportedInterfaces: kept };
}
