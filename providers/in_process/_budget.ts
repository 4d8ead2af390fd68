import type { Host, ModelAdapter, ModelEvent, ModelRequest, Scope } from "@seam/host";
import type { SubagentBudgetMeter } from "@seam/subagent";

/** Marks a metered adapter, holding the adapter it wraps. */
const INNER = Symbol("seam.budget.inner");

type Metered = ModelAdapter & { readonly [INNER]: ModelAdapter };

/**
 * Enforce a run's budget inside its run scope: the child's model calls
 * charge their tokens (before the step's `finish` reaches the agent, so a
 * call that goes beyond the budget ends the turn there), and each tool call
 * of the child charges one call before it runs (refused once the budget ran
 * out). A grandchild's own run scope meters it with its own budget, which
 * charges every budget above: the wrapped adapter is unwrapped first and the
 * guard counts the child's calls only, so nothing is charged twice.
 */
export function meterRunScope(
  host: Host,
  scope: Scope,
  parentScope: Scope,
  model: string,
  childId: string,
  meter: SubagentBudgetMeter,
): void {
  const resolved = host.models.resolve(parentScope, model) as Partial<Metered>;
  const inner = resolved[INNER] ?? resolved as ModelAdapter;
  const metered: Metered = {
    name: inner.name,
    [INNER]: inner,
    stream: (request) => meteredStream(inner, request, meter),
  };
  host.models.register(scope, model, metered);
  host.tools.guard(scope, (call) => {
    if (call.agent.id !== childId) return undefined;
    if (meter.charge({ toolCalls: 1 })) return undefined;
    return { deny: "the run's tool-call budget ran out (budget.toolCalls)" };
  });
}

async function* meteredStream(
  inner: ModelAdapter,
  request: ModelRequest,
  meter: SubagentBudgetMeter,
): AsyncGenerator<ModelEvent> {
  for await (const event of inner.stream(request)) {
    if (event?.type === "finish" && event.usage) {
      const { inputTokens, outputTokens } = event.usage;
      meter.charge({
        inputTokens: Number.isFinite(inputTokens) ? inputTokens : 0,
        outputTokens: Number.isFinite(outputTokens) ? outputTokens : 0,
      });
    }
    yield event;
  }
}
