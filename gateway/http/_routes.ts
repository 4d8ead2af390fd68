/**
 * Which binding answers a request. The gateway has a handful of routes, so
 * they are matched here rather than by a router library (Hono was ~21 KB of
 * the edge bundle, bench/README.md "Edge bundle"), as Hono matched them:
 * the path is percent-decoded (`decodeURI`, so `%2F` stays in its segment)
 * and a provider segment decoded whole, trailing slashes count, and `HEAD`
 * is routed as `GET`.
 */

/** What answers a request. */
export type Route =
  | { readonly kind: "card"; readonly provider?: string }
  | { readonly kind: "jsonRpc"; readonly provider?: string }
  | { readonly kind: "rest" };

const CARD = "/.well-known/agent-card.json";
const REST: Route = { kind: "rest" };

/**
 * The route of a request with `method` to `url`: the agent cards
 * (`GET {base}/.well-known/agent-card.json`, `GET
 * {base}/{provider}/.well-known/agent-card.json`), JSON-RPC (`POST {base}/`,
 * `POST {base}` under a base path, and with `v03` a provider's own 0.3
 * address `POST {base}/{provider}/`), and HTTP+JSON for anything else.
 */
export function routeOf(
  method: string,
  url: string,
  basePath: string,
  v1Route: ((segment: string) => boolean) | undefined,
): Route {
  const verb = method === "HEAD" ? "GET" : method;
  if (verb !== "GET" && verb !== "POST") return REST;
  const path = pathOf(url);
  if (!path.startsWith(basePath)) return REST;
  const rest = path.slice(basePath.length);
  if (verb === "GET") {
    if (rest === CARD) return { kind: "card" };
    const segment = rest.endsWith(CARD) ? rest.slice(1, -CARD.length) : "";
    return segment === "" || segment.includes("/") || !rest.startsWith("/")
      ? REST
      : { kind: "card", provider: decodeSegment(segment) };
  }
  if (rest === "/" || (rest === "" && basePath !== "")) return { kind: "jsonRpc" };
  if (v1Route && rest.length > 2 && rest.startsWith("/") && rest.endsWith("/")) {
    const segment = rest.slice(1, -1);
    if (!segment.includes("/")) {
      const provider = decodeSegment(segment);
      return v1Route(provider) ? REST : { kind: "jsonRpc", provider };
    }
  }
  return REST;
}

/** The path of `url`, without query and fragment, `decodeURI`d if it has escapes. */
function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf(":") + 4);
  if (start === -1) return "/";
  let end = url.length;
  for (let i = start; i < url.length; i++) {
    const code = url.charCodeAt(i);
    if (code === 63 || code === 35) { // `?` or `#`
      end = i;
      break;
    }
  }
  const path = url.slice(start, end);
  // `%25` stays escaped, so that a provider segment is decoded exactly once.
  return path.includes("%") ? tryDecode(path.replace(/%25/g, "%2525"), decodeURI) : path;
}

function decodeSegment(segment: string): string {
  return segment.includes("%") ? tryDecode(segment, decodeURIComponent) : segment;
}

/** `decoder(text)`, or with malformed escapes each run of valid ones decoded. */
function tryDecode(text: string, decoder: (text: string) => string): string {
  try {
    return decoder(text);
  } catch {
    return text.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
      try {
        return decoder(run);
      } catch {
        return run;
      }
    });
  }
}
