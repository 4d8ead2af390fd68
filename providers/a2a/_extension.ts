// The seam A2A extension, seen from the client side: what a seam gateway's
// card declares, what a message carries, what a task's metadata reports.
// The URI is the gateway's (`@seam/gateway` SEAM_EXTENSION_URI); this package
// does not import the gateway (providers sit below it).
import { isRecord, type JsonValue } from "@seam/host";
import type { SubagentCapabilities, SubagentFailure, SubagentStopReason } from "@seam/subagent";
import {
  SUBAGENT_CAPABILITY_FLAGS,
  SUBAGENT_STOP_REASONS,
  type SubagentUsageInput,
} from "@seam/subagent";

/** The seam extension's URI, as a seam gateway declares it in its card. */
export const SEAM_EXTENSION_URI = "https://jsr.io/@seam/gateway/extensions/subagent/v1";

/** One provider of a seam gateway, as its card describes it. */
export interface SeamRemoteProvider {
  readonly name: string;
  readonly capabilities: SubagentCapabilities;
  readonly inheritsParentContext: boolean;
}

/** What the card of a seam gateway says: its providers and the one a bare request reaches. */
export interface SeamCard {
  readonly provider: string | undefined;
  readonly providers: ReadonlyMap<string, SeamRemoteProvider>;
}

/**
 * The seam extension of a card (its `capabilities.extensions` entry with
 * {@linkcode SEAM_EXTENSION_URI}), or `undefined` when the card declares none.
 *
 * @throws {Error} when the entry is there but its `params` are malformed.
 */
export function readSeamCard(card: Record<string, unknown>): SeamCard | undefined {
  const capabilities = card.capabilities;
  if (!isRecord(capabilities) || !Array.isArray(capabilities.extensions)) return undefined;
  const entry = capabilities.extensions.find((e) => isRecord(e) && e.uri === SEAM_EXTENSION_URI);
  if (!entry) return undefined;
  const params = (entry as Record<string, unknown>).params;
  if (!isRecord(params) || !isRecord(params.providers)) {
    throw new Error("its seam extension has no params.providers object");
  }
  const providers = new Map<string, SeamRemoteProvider>();
  for (const [name, value] of Object.entries(params.providers)) {
    const caps = isRecord(value) && isRecord(value.capabilities) ? value.capabilities : undefined;
    if (!caps) {
      throw new Error(`its seam extension describes provider "${name}" without capabilities`);
    }
    providers.set(name, {
      name,
      capabilities: Object.freeze(
        Object.fromEntries(SUBAGENT_CAPABILITY_FLAGS.map((flag) => [flag, caps[flag] === true])),
      ) as unknown as SubagentCapabilities,
      inheritsParentContext: (value as Record<string, unknown>).inheritsParentContext === true,
    });
  }
  const provider = typeof params.provider === "string"
    ? params.provider
    : typeof params.defaultProvider === "string"
    ? params.defaultProvider
    : undefined;
  return { provider, providers };
}

/** What the gateway reports under the extension in a task's metadata. */
export interface SeamTaskReport {
  readonly stopReason?: SubagentStopReason;
  /** What went wrong over there: a typed failure, or (older gateways) its message. */
  readonly error?: string | SubagentFailure;
  readonly resumedFrom?: string;
  /** The remote run's usage (a seam gateway's `result.usage`), when well-formed. */
  readonly usage?: SubagentUsageInput;
}

/** The seam report in a task's (or status update's) metadata, if any. */
export function readSeamReport(
  metadata: { readonly [key: string]: unknown } | undefined,
): SeamTaskReport | undefined {
  const value = metadata?.[SEAM_EXTENSION_URI];
  if (!isRecord(value)) return undefined;
  const report: {
    stopReason?: SubagentStopReason;
    error?: string | SubagentFailure;
    resumedFrom?: string;
    usage?: SubagentUsageInput;
  } = {};
  if (SUBAGENT_STOP_REASONS.includes(value.stopReason as SubagentStopReason)) {
    report.stopReason = value.stopReason as SubagentStopReason;
  }
  if (typeof value.error === "string" && value.error !== "") report.error = value.error;
  else if (isFailure(value.error)) {
    const { code, message, data } = value.error;
    report.error = data === undefined ? { code, message } : { code, message, data };
  }
  if (typeof value.resumedFrom === "string") report.resumedFrom = value.resumedFrom;
  const usage = readUsage(value.usage);
  if (usage) report.usage = usage;
  return report;
}

const USAGE_KEYS = [
  "inputTokens",
  "outputTokens",
  "cachedInputTokens",
  "modelCalls",
  "toolCalls",
  "wallTimeMs",
] as const;

/**
 * Usage figures: each a number from 0 to the largest safe integer; anything
 * else and there are none. A finite but huge figure (1e308) would add up to
 * Infinity in a total above, or in the budget's charge, which then counts
 * nothing.
 */
function readFigures(value: unknown): Record<string, number> | undefined {
  if (!isRecord(value)) return undefined;
  const figures: Record<string, number> = {};
  for (const key of USAGE_KEYS) {
    const n = value[key];
    if (typeof n !== "number" || !(n >= 0 && n <= Number.MAX_SAFE_INTEGER)) return undefined;
    figures[key] = n;
  }
  return figures;
}

/**
 * A seam gateway's `usage` ({self, total, partial}); a malformed one is
 * dropped (the run's usage is then partial, as for any other agent).
 */
function readUsage(value: unknown): SubagentUsageInput | undefined {
  if (!isRecord(value)) return undefined;
  const self = readFigures(value.self);
  const total = readFigures(value.total);
  if (!self || !total) return undefined;
  const { wallTimeMs: _remoteWall, ...own } = self;
  return { self: own, total, partial: value.partial === true };
}

const FAILURE_CODE = /^[A-Z][A-Z0-9_]{0,63}$/;

/** Whether `value` is a `{code, message, data?}` failure as `@seam/subagent` shapes it. */
function isFailure(value: unknown): value is SubagentFailure {
  return isRecord(value) && typeof value.code === "string" && FAILURE_CODE.test(value.code) &&
    typeof value.message === "string" && value.message !== "";
}

/** The seam extension a message carries (`message.metadata[SEAM_EXTENSION_URI]`). */
export type SeamMessageFields = { [field: string]: JsonValue };
