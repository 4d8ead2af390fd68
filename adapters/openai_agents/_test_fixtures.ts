/**
 * A prompt-driven model for the tests, made of OpenAI Agents JS's own
 * `ScriptedModel` (one stream responder per call). The first word of the
 * user's prompt decides: `complete <text>` streams `<text>`; `hang` waits
 * until the run is aborted; `fail` throws; `max-tokens` leaves its message
 * incomplete; `structured` answers `{"answer":"42"}`; `persona` replies with
 * its instructions; `call <tool> <json>` calls the tool, then replies with
 * what the tool returned.
 */
import { Agent, type AgentInputItem, type Tool, tool } from "@openai/agents";
import {
  assistantMessage,
  functionCall,
  type RecordedModelCall,
  ScriptedModel,
} from "@openai/agents-core/testing";
import type { StreamEvent } from "@openai/agents-core/types";

const usage = (input: number, output: number) => ({
  inputTokens: input,
  outputTokens: output,
  totalTokens: input + output,
  inputTokensDetails: { cached_tokens: 1 },
});

let responses = 0;

function done(output: unknown[], tokens = [10, 5]): StreamEvent {
  return {
    type: "response_done",
    response: { id: `r-${++responses}`, usage: usage(tokens[0], tokens[1]), output },
  } as StreamEvent;
}

function textOfItem(item: AgentInputItem | undefined): string {
  if (!item || !("content" in item)) return "";
  const content = item.content;
  if (typeof content === "string") return content;
  return content.map((c) => ("text" in c ? c.text : "")).join("");
}

async function* waitForAbort(signal: AbortSignal | undefined): AsyncIterable<StreamEvent> {
  yield { type: "response_started" } as StreamEvent;
  await new Promise<void>((_, reject) => {
    if (signal?.aborted) reject(signal.reason);
    signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}

function respond(call: RecordedModelCall): Iterable<StreamEvent> | AsyncIterable<StreamEvent> {
  const input = call.request.input;
  const items: AgentInputItem[] = typeof input === "string"
    ? [{ role: "user", content: input } as AgentInputItem]
    : [...input];
  const last = items.at(-1) as { type?: string; output?: unknown } | undefined;
  if (last?.type === "function_call_result") {
    const output = last.output as { text?: string } | string;
    const text = `the tool said: ${typeof output === "string" ? output : output?.text}`;
    return [
      { type: "output_text_delta", delta: text } as StreamEvent,
      done([assistantMessage(text)]),
    ];
  }
  const prompt = textOfItem(items.find((i) => "role" in i && i.role === "user"));
  const [verb, ...rest] = prompt.trim().split(/\s+/);
  switch (verb) {
    case "complete": {
      const words = rest.length > 0 ? rest : ["done"];
      return [
        ...words.map((w, i) =>
          ({ type: "output_text_delta", delta: (i ? " " : "") + w }) as StreamEvent
        ),
        done([assistantMessage(words.join(" "))]),
      ];
    }
    case "hang":
      return waitForAbort(call.request.signal);
    case "fail":
      throw new Error("the model is down");
    case "max-tokens":
      return [done([{ ...assistantMessage("partial"), status: "incomplete" }])];
    case "structured":
      return [done([assistantMessage('{"answer":"42"}')])];
    case "persona":
      return [done([assistantMessage(call.request.systemInstructions ?? "")])];
    case "call":
      return [
        done([
          functionCall(rest[0], rest.slice(1).join(" ") || "{}", { callId: `c-${++responses}` }),
        ]),
      ];
    default:
      return [done([assistantMessage(`unknown verb ${verb}`)])];
  }
}

/** A model answering by the prompt's first word, for `calls` model calls. */
export function promptModel(calls = 200): ScriptedModel {
  return new ScriptedModel(
    Array.from({ length: calls }, () => ({ type: "stream_responder" as const, respond })),
  );
}

/** An agent on {@linkcode promptModel}. */
export function promptAgent(tools: Tool[] = [], instructions = "Be brief."): Agent {
  return new Agent({ name: "child", instructions, model: promptModel(), tools });
}

/** A tool that needs approval: `danger({target})` answers `deleted <target>`. */
export function approvalTool(name = "danger"): Tool {
  return tool({
    name,
    description: "Does something that needs approval.",
    parameters: {
      type: "object",
      properties: { target: { type: "string" } },
      required: ["target"],
      additionalProperties: false,
    },
    strict: true,
    needsApproval: true,
    execute: (args: unknown) => `deleted ${(args as { target: string }).target}`,
  });
}
