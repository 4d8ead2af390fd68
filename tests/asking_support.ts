// A provider whose runs ask their parent for input (through @seam/subagent's
// SubagentInputs, as any provider asks) and end on what they were told: the
// input-required tests' child, behind a gateway or an ACP server.
import { SubagentInputs } from "@seam/subagent";
import type * as subagent from "@seam/subagent";

/** One run of an {@linkcode askingProvider}, as its body sees it. */
export interface AskingRun {
  readonly request: subagent.SubagentRequest;
  /** `<provider name>-<n>` */
  readonly id: string;
  /** Ask the parent; a cancel or dispose of the run refuses what is still open. */
  ask(ask: subagent.SubagentInputAsk): Promise<subagent.SubagentInputAnswer>;
  /** Whether the run was cancelled. */
  readonly cancelled: boolean;
}

/**
 * A provider named `name` whose runs (`<name>-<n>`, started at once) end with
 * what `body` returns; their questions are answered through `respond`, and
 * refused ("cancelled: the run was cancelled") when the run is cancelled or
 * disposed.
 */
export function askingProvider(
  name: string,
  body: (run: AskingRun) => Promise<subagent.SubagentResultInput>,
): subagent.SubagentProvider {
  let n = 0;
  return {
    name,
    capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
    inheritsParentContext: false,
    start(request) {
      const id = `${name}-${++n}`;
      const inputs = new SubagentInputs(request.parent.scope, id);
      let cancelled = false;
      const result = body({
        request,
        id,
        ask: (ask) => inputs.ask(ask),
        get cancelled() {
          return cancelled;
        },
      });
      return {
        id,
        started: Promise.resolve(),
        result,
        respond: (requestId, answer) => inputs.respond(requestId, answer),
        cancel() {
          cancelled = true;
          inputs.cancelAll("the run was cancelled");
        },
        dispose() {
          inputs.cancelAll("the run was disposed");
          return result.then(() => {});
        },
      };
    },
  };
}
