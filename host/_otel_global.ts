/**
 * The application's tracer provider, context manager and propagator, read
 * from `@opentelemetry/api`'s global registry as the api's own `trace`,
 * `context` and `propagation` would read them. The registry is the api's
 * contract between its copies (`Symbol.for("opentelemetry.js.api.1")`,
 * written by `setGlobalTracerProvider` & co.); reading it here instead of
 * importing those three singletons keeps ~8 kB of the api (its diag logger,
 * baggage, proxy and no-op classes) out of an edge bundle (bench/README.md,
 * "Edge room (session 14)"). Only `ROOT_CONTEXT` and the enums come from the
 * api itself.
 */
import type {
  Context,
  ContextManager,
  TextMapPropagator,
  TracerProvider,
} from "@opentelemetry/api";
import { ROOT_CONTEXT } from "@opentelemetry/api";

/** The registry's entries (what the api's `getGlobal` hands out). */
interface OtelRegistry {
  readonly version?: unknown;
  readonly trace?: TracerProvider;
  readonly context?: ContextManager;
  readonly propagation?: TextMapPropagator;
}

/** The global key of the api's registry: its major version's. */
const OTEL_REGISTRY = Symbol.for("opentelemetry.js.api.1");

/** The last registry found compatible (the api caches it the same way). */
let compatible: OtelRegistry | undefined;

/**
 * The registry's `type` entry, when the registry is one the api this
 * package depends on (1.10) would use: a release (no pre-release tag) of
 * major 1, of minor 10 or later (the api's `isCompatible`).
 */
export function registered<K extends "trace" | "context" | "propagation">(
  type: K,
): OtelRegistry[K] | undefined {
  const registry = (globalThis as Record<symbol, OtelRegistry | undefined>)[OTEL_REGISTRY];
  if (registry == null) return undefined;
  if (registry !== compatible) {
    const version = /^(\d+)\.(\d+)\.\d+$/.exec(String(registry.version || "-"));
    if (!version || +version[1] !== 1 || +version[2] < 10) return undefined;
    compatible = registry;
  }
  return registry[type];
}

/** The active context: the registered context manager's, else the root (the api's no-op manager). */
export function activeContext(): Context {
  const manager = registered("context");
  return manager ? manager.active() : ROOT_CONTEXT;
}

/** `context` with `span` set in it, under the api's span key (its `trace.setSpan`). */
export function withSpan(context: Context, span: unknown): Context {
  return context.setValue(Symbol.for("OpenTelemetry Context Key SPAN"), span);
}
