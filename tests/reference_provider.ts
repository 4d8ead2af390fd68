/**
 * A reference provider written for the tests: in-memory children driven by
 * the first word of the prompt, with asynchronous readiness, so the
 * conformance suite and the service tests have a real, well-behaved
 * backend to run against.
 *
 * Prompts: `complete <text>` replies `<text>`; `hang` runs until cancelled;
 * `fail` ends `error`; `max-tokens` ends `max-tokens` with partial output;
 * `structured` answers `{answer}`; `persona` replies with its persona.
 */
import { textOf } from "@seam/host";
import type {
  SubagentCapabilities,
  SubagentProvider,
  SubagentRequest,
  SubagentResultInput,
  SubagentRunHandle,
} from "@seam/subagent";

/** Options of {@linkcode createReferenceProvider}. */
export interface ReferenceProviderOptions {
  name?: string;
  capabilities?: Partial<SubagentCapabilities>;
  /** Make the provider broken in one way, to prove the suite can fail. */
  misbehave?: "ignore-cancel" | "error-instead-of-max-tokens";
}

/** The reference provider plus a view of its live children. */
export interface ReferenceProvider extends SubagentProvider {
  /** Children not yet disposed. */
  readonly live: Set<string>;
}

const ALL: SubagentCapabilities = {
  outputSchema: true,
  depthLimit: true,
  toolFilter: true,
  persona: true,
};

let counter = 0;

/** Make a reference provider (all four capabilities unless told otherwise). */
export function createReferenceProvider(
  options: ReferenceProviderOptions = {},
): ReferenceProvider {
  const live = new Set<string>();
  return {
    name: options.name ?? "reference",
    capabilities: { ...ALL, ...options.capabilities },
    inheritsParentContext: false,
    live,
    start(request: SubagentRequest): SubagentRunHandle {
      const id = `ref-${++counter}`;
      live.add(id);
      const [verb, ...rest] = textOf(request.prompt).trim().split(/\s+/);
      let cancelled = false;
      let settle!: (result: SubagentResultInput) => void;
      const result = new Promise<SubagentResultInput>((resolve) => settle = resolve);
      let settled = false;
      const finish = (value: SubagentResultInput) => {
        if (settled) return;
        settled = true;
        settle(value);
      };
      // Readiness is asynchronous: a cancel in the same tick comes first.
      const started = Promise.resolve().then(() => {
        if (cancelled) throw new Error("cancelled before the child existed");
      });
      started.then(() => {
        switch (verb) {
          case "complete":
            return finish({ output: rest.join(" ") || "done", stopReason: "completed" });
          case "fail":
            return finish({
              output: "the child failed",
              stopReason: "error",
              error: { code: "CHILD_FAILED", message: "the reference child failed on purpose" },
            });
          case "max-tokens":
            return finish({
              output: "partial",
              stopReason: options.misbehave === "error-instead-of-max-tokens"
                ? "error"
                : "max-tokens",
            });
          case "structured":
            return finish({
              output: "see structured",
              structured: { answer: "42" },
              stopReason: "completed",
            });
          case "persona":
            return finish({ output: request.persona ?? "no persona", stopReason: "completed" });
          case "hang":
            return;
          default:
            return finish({ output: `unknown verb ${verb}`, stopReason: "error" });
        }
      }, () => finish({ output: "", stopReason: "aborted" }));
      const cancel = () => {
        if (options.misbehave === "ignore-cancel") return;
        cancelled = true;
        finish({ output: "", stopReason: "aborted" });
      };
      return {
        id,
        started,
        result,
        cancel,
        dispose() {
          cancelled = true;
          finish({ output: "", stopReason: "aborted" });
          live.delete(id);
          return Promise.resolve();
        },
      };
    },
  };
}
