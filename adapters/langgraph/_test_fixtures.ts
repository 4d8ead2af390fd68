/**
 * A prompt-driven graph for the tests: a `StateGraph` on `MessagesAnnotation`
 * whose model node answers on LangChain's own fake chat model
 * (`FakeListChatModel`, which streams its answer token by token) and whose
 * tools run in the prebuilt `ToolNode`. The first word of the user's prompt
 * decides: `complete <text>` answers `<text>` (with usage); `hang` waits
 * until the run is aborted; `fail` throws; `max-tokens` stops for length;
 * `persona` replies with its system message; `ask <question>` interrupts
 * with the question and replies with the answer; `review <tool> <json>`
 * interrupts with a prebuilt `HumanInterrupt` and replies with the
 * response; `call <tool> <json>` calls the tool, then replies with what it
 * returned.
 */
import {
  END,
  interrupt,
  MemorySaver,
  MessagesAnnotation,
  START,
  StateGraph,
} from "@langchain/langgraph";
import { ToolNode } from "@langchain/langgraph/prebuilt";
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { StructuredToolInterface } from "@langchain/core/tools";
import { FakeListChatModel } from "@langchain/core/utils/testing";
import type { RunnableConfig } from "@langchain/core/runnables";

const text = (m: BaseMessage | undefined) => typeof m?.content === "string" ? m.content : "";
let calls = 0;

async function agent(
  state: typeof MessagesAnnotation.State,
  config: RunnableConfig,
): Promise<{ messages: BaseMessage[] }> {
  const last = state.messages.at(-1);
  if (last?.getType() === "tool") {
    return { messages: [new AIMessage(`the tool said: ${text(last)}`)] };
  }
  const prompt = text(state.messages.find((m) => m.getType() === "human"));
  const [verb, ...rest] = prompt.trim().split(/\s+/);
  switch (verb) {
    case "complete": {
      const model = new FakeListChatModel({ responses: [rest.join(" ") || "done"] });
      const reply = await model.invoke(state.messages, config);
      return {
        messages: [
          new AIMessage({
            id: reply.id,
            content: reply.content,
            usage_metadata: {
              input_tokens: 10,
              output_tokens: 5,
              total_tokens: 15,
              input_token_details: { cache_read: 2 },
            },
          }),
        ],
      };
    }
    case "hang":
      await new Promise((_, reject) => {
        config.signal?.addEventListener("abort", () => reject(config.signal!.reason));
      });
      return { messages: [] };
    case "fail":
      throw new Error("the model is down");
    case "max-tokens":
      return {
        messages: [
          new AIMessage({ content: "partial", response_metadata: { finish_reason: "length" } }),
        ],
      };
    case "persona":
      return {
        messages: [new AIMessage(text(state.messages.find((m) => m.getType() === "system")))],
      };
    case "ask": {
      const answer = interrupt(rest.join(" "));
      return { messages: [new AIMessage(`you said ${answer}`)] };
    }
    case "review": {
      const response = interrupt({
        action_request: { action: rest[0], args: JSON.parse(rest.slice(1).join(" ") || "{}") },
        config: { allow_accept: true, allow_ignore: true, allow_respond: true, allow_edit: false },
        description: `Run ${rest[0]}?`,
      });
      return { messages: [new AIMessage(`review: ${JSON.stringify(response)}`)] };
    }
    case "call":
      return {
        messages: [
          new AIMessage({
            content: "",
            tool_calls: [{
              name: rest[0],
              args: JSON.parse(rest.slice(1).join(" ") || "{}"),
              id: `c-${++calls}`,
              type: "tool_call",
            }],
          }),
        ],
      };
    default:
      return { messages: [new AIMessage(`unknown verb ${verb}`)] };
  }
}

/** The graph, compiled with a `MemorySaver`, its tools in a `ToolNode`. */
export function promptGraph(tools: StructuredToolInterface[] = []) {
  const hasToolCalls = (state: typeof MessagesAnnotation.State) => {
    const last = state.messages.at(-1) as AIMessage | undefined;
    return (last?.tool_calls?.length ?? 0) > 0 ? "tools" : END;
  };
  return new StateGraph(MessagesAnnotation)
    .addNode("agent", agent)
    .addNode("tools", new ToolNode(tools))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", hasToolCalls, ["tools", END])
    .addEdge("tools", "agent")
    .compile({ checkpointer: new MemorySaver() });
}
