import type { Host, JsonValue, Scope } from "@seam/host";
import type { OutputSchema } from "@seam/subagent";

/** The name of the capture tool a structured child calls with its answer. */
export const STRUCTURED_RESULT_TOOL = "submit_result";

/** What a structured run captured. */
export interface Capture {
  /** The committed value, once a capture call succeeded. */
  value: JsonValue | undefined;
  /** Whether a value was committed. */
  committed: boolean;
  /** While the structured run is live; a resumed turn closes the capture. */
  open: boolean;
}

const INSTRUCTIONS = [
  "Your answer is structured.",
  `When you have it, call the \`${STRUCTURED_RESULT_TOOL}\` tool once with the answer as its`,
  "arguments; they must match the tool's schema (an invalid call tells you why, so fix it and",
  "call again). The call ends your turn; no tool may be called after it.",
].join(" ");

/**
 * Give the child's run scope its own capture tool (with the run's real
 * schema), its instructions, and a guard that denies every call once a
 * value is committed. Everything lives in `scope`, never globally.
 */
export function installCapture(host: Host, scope: Scope, schema: OutputSchema): Capture {
  const capture: Capture = { value: undefined, committed: false, open: true };
  host.tools.register(scope, {
    name: STRUCTURED_RESULT_TOOL,
    description: "Submit your final structured answer. Its arguments are the answer.",
    parameters: schema,
    execute(args: JsonValue) {
      // The registry ran validation and the guards (which deny any call once
      // a value is committed, a second capture in the same step included)
      // before this point, and this successful result is final: commit now.
      capture.value = args;
      capture.committed = true;
      return { content: "Result recorded.", stopTurn: true };
    },
  });
  host.tools.guard(scope, (call) => {
    if (capture.committed && capture.open) {
      return { deny: `the structured result was already submitted; "${call.name}" is not run` };
    }
  });
  host.prompts.register(scope, { name: "structured-output", order: 1000, text: INSTRUCTIONS });
  return capture;
}
