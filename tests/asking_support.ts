// A provider whose runs ask their parent for input (through @seam/subagent's
// SubagentInputs, as any provider asks) and end on what they were told: the
// input-required tests' child, behind a gateway or an ACP server.
import type { ContentInput } from "@seam/host";
import { SubagentInputs } from "@seam/subagent";
import type * as subagent from "@seam/subagent";

/** One run of an {@linkcode askingProvider}, as its body sees it. */
export interface AskingRun {
  /** The request; a resumed run's prompt is what it was resumed with. */
  readonly request: subagent.SubagentRequest;
  /** `<provider name>-<n>` */
  readonly id: string;
  /** 1 for a started run, one more for each resume. */
  readonly turn: number;
  /** Ask the parent; a cancel or dispose of the run refuses what is still open. */
  ask(ask: subagent.SubagentInputAsk): Promise<subagent.SubagentInputAnswer>;
  /** Whether the run was cancelled. */
  readonly cancelled: boolean;
  /** Aborted when the run is cancelled (after its open questions were refused). */
  readonly signal: AbortSignal;
}

/**
 * A provider named `name` whose runs (`<name>-<n>`, started at once) end with
 * what `body` returns; their questions are answered through `respond`, and
 * refused ("cancelled: the run was cancelled") when the run is cancelled or
 * disposed. `resumable`: a run resumes into a new run on the content.
 */
export function askingProvider(
  name: string,
  body: (run: AskingRun) => Promise<subagent.SubagentResultInput>,
  options: { readonly resumable?: boolean } = {},
): subagent.SubagentProvider {
  let n = 0;
  const start = (request: subagent.SubagentRequest, turn: number): subagent.SubagentRunHandle => {
    const id = `${name}-${++n}`;
    const inputs = new SubagentInputs(request.parent.scope, id);
    const stop = new AbortController();
    const result = body({
      request,
      id,
      turn,
      ask: (ask) => inputs.ask(ask),
      get cancelled() {
        return stop.signal.aborted;
      },
      signal: stop.signal,
    });
    return {
      id,
      started: Promise.resolve(),
      result,
      respond: (requestId, answer) => inputs.respond(requestId, answer),
      cancel() {
        inputs.cancelAll("the run was cancelled");
        stop.abort();
      },
      dispose() {
        inputs.cancelAll("the run was disposed");
        return result.then(() => {});
      },
      ...(options.resumable
        ? {
          resume: (content: ContentInput) =>
            start({
              ...request,
              prompt: typeof content === "string" ? [{ type: "text", text: content }] : content,
            }, turn + 1),
        }
        : {}),
    };
  };
  return {
    name,
    capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
    inheritsParentContext: false,
    start: (request) => start(request, 1),
  };
}
