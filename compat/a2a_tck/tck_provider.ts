/**
 * The conformance kit's system under test, as a seam provider: it acts on
 * the message id's prefix as a2a-tck's `scenarios/*.feature` say
 * (`tck-complete-task`, `tck-artifact-*`, `tck-stream-*`, `tck-reject-task`,
 * `test-resubscribe-message-id`, …), reading the accepted message through
 * `getGatewayTask` like any provider may. Anything else completes with the
 * prompt's text.
 */
import { type ContentBlock, delay, textOf } from "@seam/host";
import {
  SubagentInputs,
  subagentProgress,
  type SubagentProvider,
  type SubagentResultInput,
  type SubagentRunHandle,
} from "@seam/subagent";
import { getGatewayTask } from "../../gateway/mod.ts";

/** What one prefix does: stream these texts (or ask a question first), then end with this result. */
interface Behaviour {
  readonly stream?: readonly string[];
  readonly waitMs?: number;
  /** Ask this question (the task goes INPUT_REQUIRED) and reply with the answer. */
  readonly ask?: string;
  readonly result: SubagentResultInput;
}

const FILE: ContentBlock = {
  type: "file",
  mediaType: "text/plain",
  filename: "output.txt",
  data: btoa("file content"),
};
const FILE_URL: ContentBlock = {
  type: "resource",
  uri: "https://example.com/output.txt",
  mediaType: "text/plain",
  filename: "output.txt",
};

function completed(output: string | ContentBlock[]): Behaviour {
  return { result: { output, stopReason: "completed" } };
}

function streamed(...texts: string[]): Behaviour {
  return { stream: texts, result: { output: texts.join(""), stopReason: "completed" } };
}

/** The behaviour for a message id (longest prefix first: `tck-artifact-file-url` before `tck-artifact-file`). */
function behaviourOf(messageId: string, prompt: string, streamingTimeoutS: number): Behaviour {
  const table: [string, () => Behaviour][] = [
    ["tck-complete-task", () => completed("Hello from TCK")],
    ["tck-artifact-text", () => completed("Generated text content")],
    ["tck-artifact-file-url", () => completed([FILE_URL])],
    ["tck-artifact-file", () => completed([FILE])],
    ["tck-artifact-data", () => completed([{ type: "data", data: { key: "value", count: 42 } }])],
    ["tck-message-response", () => completed("Direct message response")],
    ["tck-reject-task", () => ({ result: { output: "rejected", stopReason: "refusal" } })],
    ["tck-input-required", () => ({
      ask: "The TCK task needs more input: what should it do?",
      result: { output: "", stopReason: "completed" },
    })],
    ["tck-stream-001", () => streamed("Stream hello from TCK")],
    ["tck-stream-002", () => completed([])],
    ["tck-stream-003", () => streamed("Stream task lifecycle")],
    ["tck-stream-ordering-001", () => streamed("Ordered output")],
    ["tck-stream-artifact-text", () => streamed("Streamed text content")],
    ["tck-stream-artifact-file", () => completed([FILE])],
    ["tck-stream-artifact-chunked", () => streamed("chunk-1 ", "chunk-2")],
    ["test-resubscribe-message-id", () => ({
      waitMs: 2_000 * streamingTimeoutS,
      result: { output: "done", stopReason: "completed" },
    })],
  ];
  for (const [prefix, make] of table) if (messageId.startsWith(prefix)) return make();
  return completed(prompt || "Hello from TCK");
}

/** Options of {@linkcode createTckProvider}. */
export interface TckProviderOptions {
  /** `TCK_STREAMING_TIMEOUT` in seconds (the long-running task lasts twice that). Default 2. */
  readonly streamingTimeoutS?: number;
}

/** The SUT provider (see the module doc). */
export function createTckProvider(options: TckProviderOptions = {}): SubagentProvider {
  const streamingTimeoutS = options.streamingTimeoutS ?? 2;
  let n = 0;
  return {
    name: "tck",
    capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
    inheritsParentContext: false,
    start(request): SubagentRunHandle {
      const id = `tck-${++n}`;
      const task = getGatewayTask(request.parent.scope);
      const messageId = task?.message.messageId ?? "";
      if (messageId.startsWith("tck-message-response")) task!.replyWithMessage();
      const behaviour = behaviourOf(messageId, textOf(request.prompt), streamingTimeoutS);
      const abort = new AbortController();
      const inputs = new SubagentInputs(request.parent.scope, id);
      abort.signal.addEventListener("abort", () => inputs.cancelAll("the task was cancelled"));
      const result = (async (): Promise<SubagentResultInput> => {
        await Promise.resolve();
        if (behaviour.ask) {
          const answer = await inputs.ask({ kind: "question", message: behaviour.ask });
          if (answer.outcome !== "answered") return { output: "", stopReason: "aborted" };
          return { output: `You said: ${answer.text}`, stopReason: "completed" };
        }
        for (const text of behaviour.stream ?? []) {
          request.parent.scope.emit(subagentProgress, { runId: id, kind: "text", text });
          await delay(5, abort.signal).catch(() => {});
        }
        if (behaviour.waitMs) {
          try {
            await delay(behaviour.waitMs, abort.signal);
          } catch {
            return { output: "", stopReason: "aborted" };
          }
        }
        if (abort.signal.aborted) return { output: "", stopReason: "aborted" };
        return behaviour.result;
      })();
      return {
        id,
        started: Promise.resolve(),
        result,
        respond: (requestId, answer) => inputs.respond(requestId, answer),
        cancel: () => abort.abort(),
        dispose: () => {
          abort.abort();
          return result.then(() => {});
        },
      };
    },
  };
}
