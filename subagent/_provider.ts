import { describe, isRecord } from "@seam/host";
import { SUBAGENT_CAPABILITY_FLAGS } from "./start_fields.ts";
import { cannot } from "./_invalid.ts";
import type {
  RegisteredSubagentProvider,
  SubagentCapabilities,
  SubagentRequest,
  SubagentRunHandle,
} from "./types.ts";
import { freeze } from "./_builtins.ts";

/** A provider name: a letter or digit, then letters, digits, `.`, `_`, `:`, `-`; at most 64. */
const PROVIDER_NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

function fail(message: string): never {
  cannot("register provider", message);
}

/** What registration accepted: the public snapshot and the provider's own disposer. */
export interface AcceptedProvider {
  /** The frozen snapshot `getProvider` hands out. */
  readonly snapshot: RegisteredSubagentProvider;
  /** The provider's `dispose`, bound to it, when it has one (never exposed on the snapshot). */
  readonly dispose: (() => Promise<void>) | undefined;
}

/**
 * Read every fixed field of `provider` exactly once, validate it, and return
 * the frozen acceptance snapshot. `start` and `dispose` stay bound to the
 * original provider receiver.
 */
export function snapshotProvider(
  provider: unknown,
): AcceptedProvider {
  if (provider === null || typeof provider !== "object") {
    fail(`expected a provider object, got ${describe(provider)}`);
  }
  const source = provider as Record<string, unknown>;
  const name = source.name;
  if (typeof name !== "string" || !PROVIDER_NAME.test(name)) {
    fail(
      `provider.name must be 1-64 characters of letters, digits, ".", "_", ":" or "-" starting with a letter or digit, got ${
        describe(name)
      }`,
    );
  }
  const capabilities = source.capabilities;
  if (
    !isRecord(capabilities)
  ) {
    fail(
      `provider.capabilities of "${name}" must be an object, got ${describe(capabilities)}`,
    );
  }
  for (const key of Object.keys(capabilities)) {
    if (!(SUBAGENT_CAPABILITY_FLAGS as readonly string[]).includes(key)) {
      fail(
        `provider.capabilities of "${name}" has unknown flag "${key}" (expected exactly ${
          SUBAGENT_CAPABILITY_FLAGS.join(", ")
        })`,
      );
    }
  }
  const accepted = {} as Record<keyof SubagentCapabilities, boolean>;
  for (const flag of SUBAGENT_CAPABILITY_FLAGS) {
    let value = (capabilities as Record<string, unknown>)[flag];
    // The flag added after the first four: a declaration without it lacks it.
    if (flag === "budget" && value === undefined) value = false;
    if (typeof value !== "boolean") {
      fail(
        `provider.capabilities.${flag} of "${name}" must be a boolean, got ${describe(value)}`,
      );
    }
    accepted[flag] = value;
  }
  const inheritsParentContext = source.inheritsParentContext;
  if (typeof inheritsParentContext !== "boolean") {
    fail(
      `provider.inheritsParentContext of "${name}" must be a boolean, got ${
        describe(inheritsParentContext)
      }`,
    );
  }
  const start = source.start;
  if (typeof start !== "function") {
    fail(
      `provider.start of "${name}" must be a function, got ${describe(start)}`,
    );
  }
  const dispose = source.dispose;
  if (dispose !== undefined && typeof dispose !== "function") {
    fail(
      `provider.dispose of "${name}" must be a function or absent, got ${describe(dispose)}`,
    );
  }
  const boundStart = freeze((request: SubagentRequest) =>
    Reflect.apply(start, provider, [request]) as SubagentRunHandle
  );
  return {
    snapshot: freeze({
      name,
      capabilities: freeze(accepted),
      inheritsParentContext,
      start: boundStart,
    }),
    dispose: dispose === undefined ? undefined : async () => {
      await Reflect.apply(dispose, provider, []);
    },
  };
}
