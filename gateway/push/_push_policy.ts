/**
 * Where a webhook may point: http(s) only, no credentials in the URL, and
 * no private, loopback, link-local or otherwise non-public target unless the
 * operator's `allowWebhook(url)` says yes (SSRF, A2A §13.2).
 *
 * What is checked is the URL as written: literal IP addresses (in every
 * form the WHATWG URL parser normalizes, `http://2130706433/` and
 * `http://0x7f.1/` included, IPv4-mapped and NAT64 IPv6 by their embedded
 * address), `localhost` and `*.localhost`, single-label names (`http://metadata/`,
 * resolved through search domains) and the private-use suffixes `.local`,
 * `.internal`, `.lan`, `.home.arpa`. Other names are not resolved here (the
 * core is runtime-neutral, and an answer checked now could differ when the
 * request is made): a gateway that must never reach its own network runs
 * where egress to it is firewalled.
 */
import { invalidParams } from "../core/_errors.ts";
import { stringify } from "../core/_builtins.ts";

/** Decides whether a webhook the built-in policy refuses as non-public may be used. */
export type AllowWebhook = (url: URL) => boolean | Promise<boolean>;

const MAX_URL_LENGTH = 2_048;

/** Why a URL is not public, or `undefined` when it is. */
export function nonPublicReason(url: URL): string | undefined {
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (host.startsWith("[")) return ipv6Reason(host.slice(1, -1));
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(host)) return ipv4Reason(host.split(".").map(Number));
  if (host === "localhost" || host.endsWith(".localhost")) return "a loopback name (localhost)";
  if (!host.includes(".")) return "a single-label name (resolved on the local network)";
  for (const suffix of [".local", ".internal", ".lan", ".home.arpa"]) {
    if (host.endsWith(suffix)) return `a private-use name (*${suffix})`;
  }
  return undefined;
}

function ipv4Reason(o: number[]): string | undefined {
  const [a, b, c] = o;
  if (a === 127) return "a loopback address (127.0.0.0/8)";
  if (a === 10) return "a private address (10.0.0.0/8)";
  if (a === 172 && b >= 16 && b <= 31) return "a private address (172.16.0.0/12)";
  if (a === 192 && b === 168) return "a private address (192.168.0.0/16)";
  if (a === 169 && b === 254) return "a link-local address (169.254.0.0/16)";
  if (a === 100 && b >= 64 && b <= 127) return "a shared address (100.64.0.0/10)";
  if (a === 0) return "an unspecified address (0.0.0.0/8)";
  if (a === 192 && b === 0 && (c === 0 || c === 2)) {
    return "a reserved address (192.0.0.0/24, 192.0.2.0/24)";
  }
  if (a === 198 && (b === 18 || b === 19)) return "a benchmarking address (198.18.0.0/15)";
  if (a === 198 && b === 51 && c === 100) return "a documentation address (198.51.100.0/24)";
  if (a === 203 && b === 0 && c === 113) return "a documentation address (203.0.113.0/24)";
  if (a >= 224) return "a multicast or reserved address (224.0.0.0/3)";
  return undefined;
}

/** The eight 16-bit groups of an IPv6 address as the URL parser writes it (compressed, hex). */
function ipv6Groups(text: string): number[] | undefined {
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const parse = (s: string): number[] => s === "" ? [] : s.split(":").map((g) => parseInt(g, 16));
  const head = parse(halves[0]);
  const tail = halves.length === 2 ? parse(halves[1]) : [];
  const fill = 8 - head.length - tail.length;
  if (fill < 0 || (halves.length === 1 && fill !== 0)) return undefined;
  const groups = [...head, ...new Array(fill).fill(0), ...tail];
  return groups.some((g) => Number.isNaN(g)) ? undefined : groups;
}

function ipv6Reason(text: string): string | undefined {
  const g = ipv6Groups(text);
  if (!g) return "an IPv6 address that cannot be read";
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(7) && g[7] === 1) return "a loopback address (::1)";
  if (zeroUpTo(8)) return "an unspecified address (::)";
  const embedded = (hi: number, lo: number) => [hi >> 8, hi & 255, lo >> 8, lo & 255];
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::a.b.c.d).
  if (zeroUpTo(5) && g[5] === 0xffff) return ipv4Reason(embedded(g[6], g[7]));
  if (zeroUpTo(6)) return ipv4Reason(embedded(g[6], g[7])) ?? "an IPv4-compatible address (::/96)";
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) {
    return ipv4Reason(embedded(g[6], g[7]));
  }
  if ((g[0] & 0xfe00) === 0xfc00) return "a unique-local address (fc00::/7)";
  if ((g[0] & 0xffc0) === 0xfe80) return "a link-local address (fe80::/10)";
  if ((g[0] & 0xff00) === 0xff00) return "a multicast address (ff00::/8)";
  if (g[0] === 0x2001 && g[1] === 0x0db8) return "a documentation address (2001:db8::/32)";
  return undefined;
}

/**
 * Check a webhook URL against the policy.
 *
 * @throws {GatewayError} invalid params naming the field and the reason.
 */
export async function checkWebhookUrl(
  value: string,
  field: string,
  allow: AllowWebhook | undefined,
): Promise<URL> {
  const refuse = (why: string): never => {
    throw invalidParams(`${field} ${why}`);
  };
  if (value.length > MAX_URL_LENGTH) {
    refuse(`is ${value.length} characters long (the limit is ${MAX_URL_LENGTH})`);
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return refuse(`must be an absolute http(s) URL, got ${stringify(value.slice(0, 100))}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    refuse(`must be an http or https URL, got a ${url.protocol.slice(0, 20)} URL`);
  }
  if (url.username || url.password) {
    refuse("must not carry credentials; put them in authentication");
  }
  const reason = nonPublicReason(url);
  if (reason !== undefined) {
    let allowed = false;
    if (allow) {
      try {
        allowed = (await allow(new URL(url.href))) === true;
      } catch {
        allowed = false;
      }
    }
    if (!allowed) {
      refuse(
        `"${
          url.host.slice(0, 100)
        }" is ${reason}, which this gateway does not send webhooks to (the operator's push.allowWebhook did not allow it)`,
      );
    }
  }
  return url;
}
