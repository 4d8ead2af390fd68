/**
 * The agent card for A2A 0.3 clients. A gateway serving 0.3 lists its 0.3
 * interfaces in `supportedInterfaces` after the 1.0 ones (1.0 clients pick
 * the 1.0 entry of each binding), and answers a 0.3 card request (no
 * `A2A-Version`, or 0.3) with the card 0.3 clients read: the 1.0 card plus
 * `protocolVersion`, `url`, `preferredTransport`, `additionalInterfaces`,
 * `supportsAuthenticatedExtendedCard`, and `securitySchemes`/`security` in
 * their 0.3 shape.
 */

import { isArray } from "../core/_builtins.ts";
import type { V03CardShape } from "../http/_card.ts";

export type { V03CardShape };

/** The version 0.3 cards declare. */
const PROTOCOL_VERSION = "0.3";

/**
 * Which card: the 1.0 card listing the 0.3 interfaces, the card 0.3 clients
 * read (0.3 JSON), or the same in 0.3 proto JSON (the HTTP+JSON binding's
 * `GET /v1/card`: security schemes and requirements in their proto form).
 */

/**
 * Add 0.3 to a built 1.0 `card` (changed in place): its 0.3 interfaces, and
 * for a 0.3 `shape` the 0.3 fields. `base` is the gateway's origin and base
 * path; `provider` the one provider the card addresses, if any (0.3 has no
 * tenant: a provider's 0.3 addresses carry its name in the path).
 */
export function addV03ToCard(
  card: Record<string, unknown>,
  base: string,
  provider: string | undefined,
  shape: V03CardShape,
): void {
  const prefix = provider === undefined ? base : `${base}/${encodeURIComponent(provider)}`;
  const jsonRpc = `${prefix}/`;
  const rest = prefix;
  const interfaces = card.supportedInterfaces as Record<string, unknown>[];
  interfaces.push(
    { url: jsonRpc, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
    { url: rest, protocolBinding: "HTTP+JSON", protocolVersion: "0.3" },
  );
  if (shape === "1.0") return;
  card.protocolVersion = PROTOCOL_VERSION;
  card.url = jsonRpc;
  card.preferredTransport = "JSONRPC";
  card.additionalInterfaces = [
    { url: jsonRpc, transport: "JSONRPC" },
    { url: rest, transport: "HTTP+JSON" },
  ];
  // 0.3 requires every skill's tags (its clients refuse a card without them).
  card.skills = (card.skills as Record<string, unknown>[]).map((skill) =>
    isArray(skill.tags) ? skill : { ...skill, tags: [] }
  );
  const capabilities = card.capabilities as Record<string, unknown>;
  card.supportsAuthenticatedExtendedCard = capabilities.extendedAgentCard === true;
  if (card.securitySchemes && shape === "0.3-proto") {
    card.security = card.securityRequirements;
  } else if (card.securitySchemes) {
    card.securitySchemes = {
      bearer: {
        type: "http",
        scheme: "bearer",
        description: "A bearer token issued by the gateway's operator",
      },
    };
    card.security = [{ bearer: [] }];
  }
}
