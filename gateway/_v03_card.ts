/**
 * The agent card for A2A 0.3 clients. A gateway serving 0.3 lists its 0.3
 * interfaces in `supportedInterfaces` after the 1.0 ones (1.0 clients pick
 * the 1.0 entry of each binding), and answers a 0.3 card request (no
 * `A2A-Version`, or 0.3) with the card 0.3 clients read: the 1.0 card plus
 * `protocolVersion`, `url`, `preferredTransport`, `additionalInterfaces`,
 * `supportsAuthenticatedExtendedCard`, and `securitySchemes`/`security` in
 * their 0.3 shape.
 */

/** The version 0.3 cards declare. */
const PROTOCOL_VERSION = "0.3";

/**
 * Add 0.3 to a built 1.0 `card` (changed in place): its 0.3 interfaces, and
 * with `shape03` the 0.3 fields. `base` is the gateway's origin and base
 * path; `provider` the one provider the card addresses, if any (0.3 has no
 * tenant: a provider's 0.3 addresses carry its name in the path).
 */
export function addV03ToCard(
  card: Record<string, unknown>,
  base: string,
  provider: string | undefined,
  shape03: boolean,
): void {
  const prefix = provider === undefined ? base : `${base}/${encodeURIComponent(provider)}`;
  const jsonRpc = `${prefix}/`;
  const rest = prefix;
  const interfaces = card.supportedInterfaces as Record<string, unknown>[];
  interfaces.push(
    { url: jsonRpc, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
    { url: rest, protocolBinding: "HTTP+JSON", protocolVersion: "0.3" },
  );
  if (!shape03) return;
  card.protocolVersion = PROTOCOL_VERSION;
  card.url = jsonRpc;
  card.preferredTransport = "JSONRPC";
  card.additionalInterfaces = [
    { url: jsonRpc, transport: "JSONRPC" },
    { url: rest, transport: "HTTP+JSON" },
  ];
  const capabilities = card.capabilities as Record<string, unknown>;
  card.supportsAuthenticatedExtendedCard = capabilities.extendedAgentCard === true;
  if (card.securitySchemes) {
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
