// One step's tool calls, run at once for an agent: each announced
// (`agent/tool-call-start`), executed through the host's tool registry, and
// its end announced while the turn is still the one that made it.
import { type Agent, agentToolCallEnd, agentToolCallStart } from "./agent.ts";
import type { ModelToolCall } from "./model.ts";
import type { ToolOutcome } from "./tools.ts";

/**
 * Run `calls` for `agent`; their outcomes in call order once all settled, or
 * as they stand when `signal` aborts. `current`: whether the turn that made
 * the calls is still the agent's (a late end is not announced).
 */
export function runToolCalls(
  agent: Agent,
  calls: readonly ModelToolCall[],
  signal: AbortSignal,
  current: () => boolean,
): Promise<(ToolOutcome | undefined)[]> {
  const scope = agent.scope;
  const tools = agent.host.tools;
  const outcomes: (ToolOutcome | undefined)[] = new Array(calls.length);
  const promises: Promise<void>[] = new Array(calls.length);
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i];
    if (scope.hasListeners(agentToolCallStart)) {
      scope.emit(agentToolCallStart, {
        agentId: agent.id,
        callId: call.id,
        name: call.name,
        args: call.args,
      });
    }
    promises[i] = tools.execute(agent, call, signal).then((outcome) => {
      outcomes[i] = outcome;
      if (!signal.aborted && current() && scope.hasListeners(agentToolCallEnd)) {
        scope.emit(agentToolCallEnd, {
          agentId: agent.id,
          callId: outcome.callId,
          name: outcome.name,
          content: outcome.content,
          isError: outcome.isError,
          ...(outcome.code === undefined ? {} : { code: outcome.code }),
        });
      }
    });
  }
  const all = promises.length === 1 ? promises[0] : Promise.all(promises);
  return untilAborted(all, signal).then(() => outcomes);
}

/** Resolve when `promise` settles or `signal` aborts, whichever is first. */
function untilAborted(promise: Promise<unknown>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) {
    promise.catch(() => {});
    return Promise.resolve();
  }
  return new Promise<void>((resolve) => {
    const onAbort = () => resolve();
    signal.addEventListener("abort", onAbort, { once: true });
    const done = () => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    };
    promise.then(done, done);
  });
}
