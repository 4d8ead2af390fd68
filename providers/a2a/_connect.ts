// Reaching the remote agent from its card: the seam gateway's provider the
// card offers (when it is one), and the SDK client over the card's
// interfaces that this client speaks.
import { messageOf } from "@seam/host";
import type { AgentCard } from "@a2a-js/sdk";
import {
  type Client,
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from "@a2a-js/sdk/client";
import { screenInterfaces } from "./_card.ts";
import { readSeamCard, type SeamCard, type SeamRemoteProvider } from "./_extension.ts";
import type { A2ABinding } from "./types.ts";

/**
 * The provider of a seam gateway that the runs address (`wanted`, else the
 * card's default), or `undefined` for an agent that is no seam gateway
 * (`where` names the card in errors).
 *
 * @throws {Error} when the gateway has no such provider or its extension is malformed.
 * @throws {TypeError} when `wanted` is given for an agent that is no seam gateway.
 */
export function addressedProvider(
  raw: Record<string, unknown>,
  wanted: string | undefined,
  where: string,
): SeamRemoteProvider | undefined {
  let seamCard: SeamCard | undefined;
  try {
    seamCard = readSeamCard(raw);
  } catch (error) {
    throw new Error(`Cannot create A2A provider: the agent card ${where}: ${messageOf(error)}`);
  }
  let seam: SeamRemoteProvider | undefined;
  if (seamCard) {
    const addressed = wanted ?? seamCard.provider;
    const known = [...seamCard.providers.keys()].join(", ") || "none";
    if (addressed === undefined) {
      throw new Error(
        `Cannot create A2A provider: the seam gateway ${where} has no provider to address (registered: ${known})`,
      );
    }
    seam = seamCard.providers.get(addressed);
    if (!seam) {
      throw new Error(
        `Cannot create A2A provider: the seam gateway ${where} has no provider "${addressed}" (registered: ${known})`,
      );
    }
  } else if (wanted !== undefined) {
    throw new TypeError(
      `Cannot create A2A provider: options.provider ("${wanted}") addresses a provider of a seam gateway, but the agent ${where} declares no seam extension`,
    );
  }

  return seam;
}

/**
 * The SDK client for the card `raw` (normalized from v0.3 where needed), over
 * its http(s) interfaces only (and only those on `origin`, when given),
 * preferring `binding`.
 *
 * @throws {Error} when the card offers nothing this client speaks.
 */
export async function clientFor(
  raw: Record<string, unknown>,
  fetchImpl: typeof fetch,
  binding: A2ABinding | undefined,
  where: string,
  origin: string | undefined,
  warn?: (message: string) => void,
): Promise<Client> {
  const legacyCompat = { enabled: true };
  const resolver = new DefaultAgentCardResolver({ fetchImpl, legacyCompat });
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [
        new JsonRpcTransportFactory({ fetchImpl, legacyCompat }),
        new RestTransportFactory({ fetchImpl, legacyCompat }),
      ],
      ...(binding ? { preferredTransports: [binding] } : {}),
      // The card is read, normalized and screened here: the factory takes it as it is.
      cardResolver: {
        resolve: () => Promise.reject(new Error("the card is read by createA2AProvider")),
        normalizeAgentCard: (card) => card as AgentCard,
      },
    }),
  );
  const unusable: (error: unknown) => never = (error) => {
    throw new Error(
      `Cannot create A2A provider: the agent card ${where} is not usable (it needs a JSONRPC or HTTP+JSON interface of A2A 1.0 or 0.3): ${
        messageOf(error)
      }`,
      { cause: error },
    );
  };
  let normalized;
  try {
    normalized = resolver.normalizeAgentCard(raw as never);
  } catch (error) {
    unusable(error);
  }
  // Only http(s) interfaces (and only the card's origin, when asked) reach the SDK's choice.
  const screened = screenInterfaces(normalized!, where, origin);
  const offered = screened.supportedInterfaces ?? [];
  if (binding && !offered.some((i) => i.protocolBinding === binding)) {
    warn?.(
      `A2A provider: the agent card ${where} offers no ${binding} interface (binding: "${binding}"); using ${
        [...new Set(offered.map((i) => i.protocolBinding))].join(" or ") || "none"
      } instead`,
    );
  }
  try {
    return await factory.createFromAgentCard(screened);
  } catch (error) {
    unusable(error);
  }
}
