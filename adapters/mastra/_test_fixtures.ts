/**
 * A prompt-driven Mastra agent for the tests, on Mastra's own mock model
 * (`MastraLanguageModelV2Mock`), registered in a `Mastra` with in-memory
 * storage (what approvals and suspended tools resume from). The first word
 * of the user's prompt decides: `complete <text>` streams `<text>`; `hang`
 * streams nothing until the run is aborted; `fail` throws; `max-tokens`
 * finishes for length; `structured` answers `{"answer":"42"}`; `persona`
 * replies with its system messages; `call <tool> <json>` calls the tool,
 * then replies with what it returned.
 */
import { Agent } from "@mastra/core/agent";
import { Mastra } from "@mastra/core/mastra";
import { InMemoryStore } from "@mastra/core/storage";
import { MastraLanguageModelV2Mock } from "@mastra/core/test-utils/llm-mock";

type Part = Record<string, unknown>;
// deno-lint-ignore no-explicit-any
type Prompt = { role: string; content: any }[];

const usage = { inputTokens: 10, outputTokens: 5, totalTokens: 15, cachedInputTokens: 1 };

function streamOf(parts: Part[], signal?: AbortSignal, hang = false): ReadableStream<Part> {
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      if (!hang) return controller.close();
      signal?.addEventListener("abort", () => controller.error(signal.reason), { once: true });
    },
  });
}

function text(reply: string, finishReason = "stop"): Part[] {
  return [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id: "t" },
    ...reply.split(/(?= )/).map((delta) => ({ type: "text-delta", id: "t", delta })),
    { type: "text-end", id: "t" },
    { type: "finish", finishReason, usage },
  ];
}

let calls = 0;

// deno-lint-ignore no-explicit-any
const doStream = (options: any) => Promise.resolve(options).then(respond);

// deno-lint-ignore no-explicit-any
function respond(options: any): { stream: ReadableStream<Part> } {
  const prompt = options.prompt as Prompt;
  const last = prompt.at(-1);
  if (last?.role === "tool") {
    const output = last.content[0]?.output;
    const said = typeof output?.value === "string" ? output.value : JSON.stringify(output?.value);
    return { stream: streamOf(text(`the tool said: ${said}`)) };
  }
  const user = prompt.find((m) => m.role === "user");
  const words = (user?.content ?? []).map((c: { text?: string }) => c.text ?? "").join("");
  const [verb, ...rest] = words.trim().split(/\s+/);
  switch (verb) {
    case "complete":
      return { stream: streamOf(text(rest.join(" ") || "done")) };
    case "hang":
      return {
        stream: streamOf([{ type: "stream-start", warnings: [] }], options.abortSignal, true),
      };
    case "fail":
      throw new Error("the model is down");
    case "max-tokens":
      return { stream: streamOf(text("partial", "length")) };
    case "structured":
      return { stream: streamOf(text('{"answer":"42"}')) };
    case "persona": {
      const system = prompt.filter((m) => m.role === "system").map((m) => m.content).join("\n");
      return { stream: streamOf(text(system)) };
    }
    case "call":
      return {
        stream: streamOf([
          { type: "stream-start", warnings: [] },
          {
            type: "tool-call",
            toolCallId: `c-${++calls}`,
            toolName: rest[0],
            input: rest.slice(1).join(" ") || "{}",
          },
          { type: "finish", finishReason: "tool-calls", usage },
        ]),
      };
    default:
      return { stream: streamOf(text(`unknown verb ${verb}`)) };
  }
}

/** A prompt-driven agent with `tools`, registered in a `Mastra` with in-memory storage. */
// deno-lint-ignore no-explicit-any
export function promptAgent(tools: Record<string, any> = {}, id = "child"): Agent {
  const agent = new Agent({
    id,
    name: id,
    instructions: "Be brief.",
    model: new MastraLanguageModelV2Mock({ doStream: doStream as never }) as never,
    tools,
  });
  new Mastra({ agents: { [id]: agent }, storage: new InMemoryStore(), logger: false });
  return agent;
}
