/** The agent cards: one for the gateway, one per provider; built, cached and served. */
import {
  type RegisteredSubagentProvider,
  SUBAGENT_CAPABILITY_FLAGS,
  SUBAGENT_START_FIELDS,
  type SubagentCapabilities,
  type SubagentService,
} from "@seam/subagent";
import { GatewayError, refusedWith, unsupportedOperation } from "../core/_errors.ts";
import { restErrorResponse } from "./_http.ts";
import type { GatewayExtendedCardOptions, GatewayRequiredExtension } from "../options.ts";
import {
  SEAM_EXTENSION_URI,
  type SeamCardExtensionParams,
  type SeamProviderDescriptor,
} from "../types.ts";
import { stringify } from "../core/_builtins.ts";

/** Which card a request asks for: 1.0, or 0.3 (JSON, or the proto names). */
export type V03CardShape = "1.0" | "0.3" | "0.3-proto";

/** What adds A2A 0.3 to a built 1.0 card (the `a2a03` feature: a2a03/_v03_card.ts). */
export type AddV03ToCard = (
  card: Record<string, unknown>,
  base: string,
  provider: string | undefined,
  shape: V03CardShape,
) => void;

/** The card side of the `a2a03` feature (a2a03/_v03_card.ts, a2a03/_v03_version.ts). */
export interface V03Card {
  /** What adds A2A 0.3 to a built 1.0 card. */
  readonly add: AddV03ToCard;
  /** Which card a card request asks for (0.3 without an `A2A-Version`). */
  readonly shapeOf: (request: Request) => "0.3" | "1.0";
}

/** What the card says about the gateway itself. */
export interface CardInfo {
  readonly name: string;
  readonly description: string;
  readonly version: string;
  readonly provider?: { readonly organization: string; readonly url: string };
  readonly documentationUrl?: string;
  readonly iconUrl?: string;
}

/** A card's JSON text and its entity tag. */
export interface BuiltCard {
  readonly body: string;
  readonly etag: string;
}

const INPUT_MODES = ["text/plain", "application/json", "image/*"];
const OUTPUT_MODES = ["text/plain", "application/json"];

function describeProvider(provider: RegisteredSubagentProvider): string {
  const caps = provider.capabilities;
  const options = SUBAGENT_START_FIELDS.filter((spec) => caps[spec.capability]).map((spec) =>
    spec.field
  );
  return `A child agent through "${provider.name}" that ${
    provider.inheritsParentContext ? "sees the parent's turns" : "starts fresh (say all it needs)"
  }. Start-time options through the seam extension: ${
    options.length ? options.join(", ") : "none"
  }.`;
}

function descriptor(provider: RegisteredSubagentProvider): SeamProviderDescriptor {
  const c = provider.capabilities;
  return {
    capabilities: Object.fromEntries(
      SUBAGENT_CAPABILITY_FLAGS.map((flag) => [flag, c[flag]]),
    ) as unknown as SubagentCapabilities,
    inheritsParentContext: provider.inheritsParentContext,
  };
}

/**
 * Build the card served at `{base}/.well-known/agent-card.json` (`only`
 * undefined: every provider, requests without a tenant go to the default)
 * or at `{base}/{only}/.well-known/agent-card.json` (one provider, addressed
 * through the interfaces' `tenant`).
 */
export function buildCard(
  options: CardCacheOptions & {
    readonly base: string;
    readonly providers: readonly RegisteredSubagentProvider[];
    /** The default provider, if it is registered. */
    readonly defaultProvider: string | undefined;
    readonly only: RegisteredSubagentProvider | undefined;
    /** With A2A 0.3 served: the card for 1.0 clients, or for 0.3 clients. */
    readonly shape?: V03CardShape;
    /** Build the extended card (`extendedCard`'s additions shown). */
    readonly extended?: boolean;
  },
): BuiltCard {
  const { info, base, only } = options;
  const tenant = only ? { tenant: only.name } : {};
  const providers: Record<string, SeamProviderDescriptor> = {};
  for (const p of options.providers) providers[p.name] = descriptor(p);
  const params: SeamCardExtensionParams = {
    ...(only || options.defaultProvider ? { provider: only?.name ?? options.defaultProvider } : {}),
    ...(options.defaultProvider ? { defaultProvider: options.defaultProvider } : {}),
    providers,
  };
  const shown = only ? [only] : options.providers;
  const card: Record<string, unknown> = {
    name: only ? `${info.name} · ${only.name}` : info.name,
    description: only
      ? `${info.description} (the "${only.name}" provider's card)`
      : info.description,
    version: info.version,
    supportedInterfaces: [
      { url: `${base}/`, protocolBinding: "JSONRPC", protocolVersion: "1.0", ...tenant },
      { url: base, protocolBinding: "HTTP+JSON", protocolVersion: "1.0", ...tenant },
    ],
    capabilities: {
      streaming: true,
      pushNotifications: options.push === true,
      extendedAgentCard: options.extendedCard !== undefined,
      extensions: [
        ...options.requiredExtensions.map((e) => ({
          uri: e.uri,
          ...(e.description ? { description: e.description } : {}),
          required: true,
        })),
        {
          uri: SEAM_EXTENSION_URI,
          description:
            "Start-time options in message.metadata[uri]; params: each provider's capabilities. One a provider lacks is refused.",
          required: false,
          params,
        },
      ],
    },
    defaultInputModes: INPUT_MODES,
    defaultOutputModes: OUTPUT_MODES,
    skills: shown.map((p) => ({
      id: p.name,
      name: p.name,
      description: describeProvider(p),
      tags: ["subagent", "delegation", p.name],
      inputModes: INPUT_MODES,
      outputModes: OUTPUT_MODES,
    })),
  };
  const extendedCard = options.extendedCard;
  if (options.extended && extendedCard) {
    if (extendedCard.description) card.description = extendedCard.description;
    if (extendedCard.skills?.length) {
      card.skills = [...(card.skills as unknown[]), ...extendedCard.skills];
    }
  }
  if (info.provider) card.provider = info.provider;
  if (info.documentationUrl) card.documentationUrl = info.documentationUrl;
  if (info.iconUrl) card.iconUrl = info.iconUrl;
  if (options.auth) {
    card.securitySchemes = {
      bearer: {
        httpAuthSecurityScheme: {
          scheme: "Bearer",
          description: "A bearer token issued by the gateway's operator",
        },
      },
    };
    card.securityRequirements = [{ schemes: { bearer: { list: [] } } }];
  }
  if (options.shape) options.v03!.add(card, base, only?.name, options.shape);
  const body = stringify(card);
  return { body, etag: `W/"${hash(body)}"` };
}

/** Two FNV-1a passes with different seeds: a stable 64-bit content hash (not a secret). */
function hash(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ 0x5bd1e995;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995) ^ (b >>> 15);
  }
  return (a >>> 0).toString(16).padStart(8, "0") + (b >>> 0).toString(16).padStart(8, "0") +
    "-" + text.length.toString(36);
}

/** Whether an `If-None-Match` header matches `etag` (weak comparison). */
export function etagMatches(header: string | null, etag: string): boolean {
  if (!header) return false;
  const bare = etag.replace(/^W\//, "");
  for (const candidate of header.split(",")) {
    const c = candidate.trim();
    if (c === "*" || c.replace(/^W\//, "") === bare) return true;
  }
  return false;
}

/** What the card cache needs: the gateway's settings of these names (`GatewaySettings`), and a few. */
export interface CardCacheOptions {
  readonly subagents: SubagentService;
  readonly info: CardInfo;
  readonly publicUrl: string | undefined;
  readonly basePath: string;
  readonly trustedHosts: ReadonlySet<string> | undefined;
  readonly cardMaxAge: number;
  readonly extendedCard: GatewayExtendedCardOptions | undefined;
  readonly requiredExtensions: readonly GatewayRequiredExtension[];
  readonly auth: boolean;
  readonly defaultProvider: string | undefined;
  /** With A2A 0.3 served, what adds it to a card (a 0.3 card request gets the 0.3 card). */
  readonly v03?: V03Card;
  /** Whether push notifications are configured. */
  readonly push?: boolean;
}

/**
 * The cards as served: built on first request per base URL and provider,
 * dropped whenever the providers change, answered with an ETag (304 on a
 * match). A card whose URLs come from the request's own host is cached
 * privately (`Vary: Host`) unless that host is trusted, so no shared cache
 * ever serves one client's `Host` to another.
 */
export class CardCache {
  readonly #cards = new Map<string, BuiltCard>();
  readonly #options: CardCacheOptions;
  /** `Last-Modified`: when the cards last changed (the providers did), to the second. */
  #changed: string = new Date().toUTCString();

  constructor(options: CardCacheOptions) {
    this.#options = options;
  }

  /** Forget every card (the providers changed). */
  invalidate(): void {
    this.#cards.clear();
    this.#changed = new Date().toUTCString();
  }

  /**
   * The extended card for an authenticated caller, as JSON (the public card
   * plus `extendedCard`'s additions); with A2A 0.3 served, in the `v03`
   * shape asked for (default: the 1.0 card listing the 0.3 interfaces).
   *
   * @throws {GatewayError} -32004 (`unsupportedOperation`) when no extended card is configured.
   */
  extended(request: Request, v03: V03CardShape = "1.0"): unknown {
    if (!this.#options.extendedCard) {
      // Undeclared (A2A 1.0 §: UnsupportedOperationError); the card declares one exactly when it is configured.
      throw unsupportedOperation(
        "this gateway's card declares no extended agent card (capabilities.extendedAgentCard is false)",
      );
    }
    const base = (this.#options.publicUrl ?? new URL(request.url).origin) +
      this.#options.basePath;
    return JSON.parse(this.#build(base, undefined, this.#options.v03 ? v03 : undefined, true).body);
  }

  /** The card at `base`: every provider, or `only` one; `extended` for authenticated callers. */
  #build(
    base: string,
    only: RegisteredSubagentProvider | undefined,
    v03: V03CardShape | undefined,
    extended: boolean,
  ): BuiltCard {
    const { subagents } = this.#options;
    const providers = [];
    for (const name of subagents.list()) {
      const p = subagents.getProvider(name);
      if (p) providers.push(p);
    }
    const fallback = this.#options.defaultProvider ?? subagents.list()[0];
    return buildCard({
      ...this.#options,
      base,
      providers,
      defaultProvider: fallback !== undefined && subagents.getProvider(fallback)
        ? fallback
        : undefined,
      only,
      shape: v03,
      extended,
    });
  }

  /** The card response for `request`: every provider, or `only` one. */
  respond(request: Request, only: string | undefined): Response {
    const { subagents, publicUrl, trustedHosts, cardMaxAge: maxAge } = this.#options;
    let origin = publicUrl;
    let shared = publicUrl !== undefined;
    if (origin === undefined) {
      const url = new URL(request.url);
      origin = url.origin;
      if (trustedHosts) {
        if (!trustedHosts.has(url.host.toLowerCase())) {
          return restErrorResponse(
            refusedWith(
              421,
              `Misdirected request: host "${
                url.host.slice(0, 100)
              }" is not one this gateway answers for (trustedHosts)`,
            ),
          );
        }
        shared = true;
      }
    }
    const base = origin + this.#options.basePath;
    const v03 = this.#options.v03?.shapeOf(request);
    const key = `${base}\n${only ?? ""}\n${v03 ?? ""}`;
    let card = this.#cards.get(key);
    if (!card) {
      const single = only === undefined ? undefined : subagents.getProvider(only);
      if (only !== undefined && !single) {
        return restErrorResponse(
          new GatewayError("methodNotFound", `Not found: no provider named "${only.slice(0, 64)}"`),
        );
      }
      card = this.#build(base, single, v03, false);
      if (this.#cards.size >= 64) this.#cards.clear();
      this.#cards.set(key, card);
    }
    const headers: Record<string, string> = {
      etag: card.etag,
      "last-modified": this.#changed,
      "cache-control": maxAge === 0
        ? "no-cache"
        : `${shared ? "public" : "private"}, max-age=${maxAge}`,
    };
    if (publicUrl === undefined) headers.vary = "Host";
    if (v03) headers.vary = headers.vary ? `${headers.vary}, A2A-Version` : "A2A-Version";
    if (etagMatches(request.headers.get("if-none-match"), card.etag)) {
      return new Response(null, { status: 304, headers });
    }
    headers["content-type"] = "application/json";
    return new Response(card.body, { headers });
  }
}
