import { defineEvent, type EventKey } from "@seam/host";
import type {
  RegisteredSubagentProvider,
  SubagentNestedRunInfo,
  SubagentProgressInfo,
  SubagentProviderRemovedInfo,
  SubagentRunEndInfo,
  SubagentRunInfo,
} from "./types.ts";

/** `subagent/provider-added`: a provider was registered (payload: its frozen snapshot). */
export const subagentProviderAdded: EventKey<RegisteredSubagentProvider> = defineEvent(
  "subagent/provider-added",
);

/** `subagent/provider-removed`: a provider was unregistered (payload: its accepted name). */
export const subagentProviderRemoved: EventKey<SubagentProviderRemovedInfo> = defineEvent(
  "subagent/provider-removed",
);

/**
 * `subagent/start`: a run's child exists (fired after `started` fulfils), in
 * the delegating parent's scope.
 */
export const subagentStart: EventKey<SubagentRunInfo> = defineEvent(
  "subagent/start",
);

/**
 * `subagent/end`: a started run settled (always after its `subagent/start`),
 * in the delegating parent's scope. A run whose `started` and `result` settle
 * in the same turn has both events emitted together, so `subagent/end` may
 * be heard before the caller's own reactions to `run.started` run.
 */
export const subagentEnd: EventKey<SubagentRunEndInfo> = defineEvent(
  "subagent/end",
);

/**
 * `subagent/nested-run`: a nested run (one a provider reports below its own
 * run: an ACP agent's child session, a remote gateway's descendant) is new,
 * or its title, state, usage or cancellability changed. Emitted in the
 * delegating parent's scope: the first just before the nested run's
 * `subagent/start`, none after its `subagent/end` (which tells how it
 * ended). Providers tell it through `NestedRuns`; `onSubagentNestedRun`
 * also hears providers that still tell the deprecated `acp/child`.
 */
export const subagentNestedRun: EventKey<SubagentNestedRunInfo> = defineEvent(
  "subagent/nested-run",
);

/**
 * `subagent/progress`: a running child streamed text, called a tool or
 * planned. Emitted by providers in the delegating parent's scope while the
 * run is live (so a parent's listener also sees its grandchildren's
 * progress, each with its own `runId`). Providers may skip the work when
 * nothing listens (`scope.hasListeners(subagentProgress)`).
 */
export const subagentProgress: EventKey<SubagentProgressInfo> = defineEvent(
  "subagent/progress",
);
