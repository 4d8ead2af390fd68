/**
 * W3C trace context in MCP's `_meta` (`traceparent`, `tracestate`, as the
 * 2026-07-28 line carries it, read and written on the 2025-11-25 line too):
 * a call's runs continue the caller's trace, and the provider's calls carry
 * the run's. Through `@opentelemetry/api` only: with no propagator
 * registered nothing is read or written.
 */
import { type Context, propagation, ROOT_CONTEXT } from "@opentelemetry/api";

const KEYS = ["traceparent", "tracestate"];

const getter = {
  get: (carrier: Record<string, unknown>, key: string) =>
    typeof carrier[key] === "string" ? carrier[key] as string : undefined,
  keys: (carrier: Record<string, unknown>) => Object.keys(carrier).filter((k) => KEYS.includes(k)),
};

/** The caller's trace context from a request's `_meta`, when it carries one. */
export function traceContextOf(meta: unknown): Context | undefined {
  if (meta === null || typeof meta !== "object") return undefined;
  if (typeof (meta as Record<string, unknown>).traceparent !== "string") return undefined;
  const context = propagation.extract(ROOT_CONTEXT, meta as Record<string, unknown>, getter);
  return context === ROOT_CONTEXT ? undefined : context;
}

/** `_meta` fields carrying `context` (none without a propagator or a context). */
export function traceMetaOf(context: unknown): Record<string, string> {
  const carrier: Record<string, string> = {};
  if (context !== undefined) propagation.inject(context as Context, carrier);
  return carrier;
}
