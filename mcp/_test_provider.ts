/**
 * A provider for the tests, driven by the prompt's first word:
 * `echo <words>` streams each word as progress, then answers the words;
 * `ask` asks permission and answers what was decided; `question` asks a
 * question and answers the answer (`question-data`: the whole answer, as JSON); `hang` runs until cancelled; `nest
 * <prompt>` runs `<prompt>` in a grandchild through the service and answers
 * its output; `image` answers an image; `structured` answers `{answer: 42}`;
 * `fail` ends `error`; `complete <words>` answers the words at once; `max-tokens`
 * ends `max-tokens`; `flood <n>` streams n 1000-character chunks, then hangs; `stream <n>`
 * streams them, then answers "streamed"; `say <words>` streams the words as echo does,
 * then runs until cancelled. `live` holds the runs not yet ended.
 */
import { textOf } from "@seam/host";
import {
  type SubagentInputAnswer,
  SubagentInputs,
  subagentProgress,
  type SubagentProvider,
  type SubagentRequest,
  type SubagentResultInput,
  type SubagentRunHandle,
  subagentRunPath,
  subagentRunPathKey,
  type SubagentService,
} from "@seam/subagent";

/** The test provider and its live runs. */
export interface TestProvider extends SubagentProvider {
  readonly live: Set<string>;
  /** Every run started, by id, with its prompt. */
  readonly started: Map<string, string>;
}

let next = 0;

/** A test provider named `name`; `subagents` lets `nest` start a grandchild. */
/** Stream `count` chunks of 1,000 characters, yielding every 100. */
async function chunks(count: number, progress: (text: string) => void): Promise<void> {
  const chunk = "x".repeat(999) + "\n";
  for (let i = 0; i < count; i++) {
    progress(chunk);
    if (i % 100 === 99) await new Promise((r) => setTimeout(r, 0));
  }
}

export function createTestProvider(
  name = "test",
  options: { inherits?: boolean; subagents?: () => SubagentService } = {},
): TestProvider {
  const live = new Set<string>();
  const started = new Map<string, string>();
  return {
    name,
    capabilities: { outputSchema: true, depthLimit: false, toolFilter: false, persona: false },
    inheritsParentContext: options.inherits ?? false,
    live,
    started,
    start(request: SubagentRequest): SubagentRunHandle {
      const id = `${name}-${++next}`;
      const prompt = textOf(request.prompt);
      started.set(id, prompt);
      live.add(id);
      const controller = new AbortController();
      const inputs = new SubagentInputs(request.parent.scope, id);
      const runScope = request.parent.scope.child(`run ${id}`);
      runScope.provide(subagentRunPathKey, [...subagentRunPath(request.parent.scope), id]);
      const progress = (text: string) =>
        request.parent.scope.emit(subagentProgress, {
          ...request.place,
          runId: id,
          kind: "text",
          text,
        });
      const work = async (): Promise<SubagentResultInput> => {
        const [command, ...rest] = prompt.split(" ");
        const aborted = new Promise<SubagentResultInput>((resolve) =>
          controller.signal.addEventListener(
            "abort",
            () => resolve({ output: "", stopReason: "aborted" }),
            { once: true },
          )
        );
        const body = async (): Promise<SubagentResultInput> => {
          switch (command) {
            case "echo":
              for (const word of rest) {
                progress(`${word} `);
                await new Promise((r) => setTimeout(r, 1));
              }
              return {
                output: rest.join(" "),
                stopReason: "completed",
                usage: { self: { inputTokens: 3, outputTokens: rest.length, modelCalls: 1 } },
              };
            case "ask": {
              const answer = await inputs.ask({
                kind: "permission",
                message: "May I delete build/?",
                toolCall: {
                  name: "shell",
                  title: "rm -rf build",
                  rawInput: { cmd: "rm -rf build" },
                },
                options: [
                  { id: "allow", label: "Allow", kind: "allow_once" },
                  { id: "reject", label: "Reject", kind: "reject_once" },
                ],
              });
              return { output: describe(answer), stopReason: "completed" };
            }
            case "question": {
              const answer = await inputs.ask({ kind: "question", message: "Which branch?" });
              return { output: describe(answer), stopReason: "completed" };
            }
            case "question-data": {
              const answer = await inputs.ask({ kind: "question", message: "Which branch?" });
              return { output: JSON.stringify(answer), stopReason: "completed" };
            }
            case "flood":
              await chunks(Number(rest[0]), progress);
              return await new Promise<never>(() => {});
            case "say":
              for (const word of rest) {
                progress(`${word} `);
                await new Promise((r) => setTimeout(r, 1));
              }
              return await new Promise<never>(() => {});
            case "stream":
              await chunks(Number(rest[0]), progress);
              return { output: "streamed", stopReason: "completed" };
            case "hang":
              return await new Promise<never>(() => {});
            case "nest": {
              const grandchild = options.subagents!().start(name, {
                prompt: rest.join(" "),
                parent: { id, scope: runScope },
              });
              try {
                const result = await grandchild.result;
                return { output: result.output, stopReason: result.stopReason };
              } finally {
                await grandchild.dispose();
              }
            }
            case "complete":
              return { output: rest.join(" "), stopReason: "completed" };
            case "max-tokens":
              return { output: "partial words", stopReason: "max-tokens" };
            case "image":
              return {
                output: [{ type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" }],
                stopReason: "completed",
              };
            case "structured":
              return { output: "done", structured: { answer: 42 }, stopReason: "completed" };
            case "fail":
              return {
                output: "half done",
                stopReason: "error",
                error: { code: "CHILD_CRASHED", message: "the child fell over" },
              };
            default:
              return { output: `unknown command ${command}`, stopReason: "completed" };
          }
        };
        try {
          return await Promise.race([body(), aborted]);
        } finally {
          live.delete(id);
        }
      };
      const result = work();
      return {
        id,
        started: Promise.resolve(),
        result,
        respond: (requestId, answer) => inputs.respond(requestId, answer),
        cancel: () => {
          inputs.cancelAll("cancelled");
          controller.abort();
        },
        dispose: async () => {
          inputs.cancelAll("disposed");
          controller.abort();
          await result.catch(() => {});
          await runScope.dispose();
        },
      };
    },
  };
}

function describe(answer: SubagentInputAnswer): string {
  switch (answer.outcome) {
    case "selected":
      return `selected ${answer.optionId}`;
    case "answered":
      return `answered ${answer.text}`;
    case "refused":
      return `refused: ${answer.reason}`;
  }
}
