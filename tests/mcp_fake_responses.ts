/**
 * A fake OpenAI Responses API model server for `codex mcp-server` tests,
 * written from the published wire format: `POST /v1/responses` answers a
 * server-sent event stream (`response.created`, one assistant message as
 * `response.output_item.done`, `response.completed` with usage) whose text
 * repeats the last user message's text after "echo: ". Every other path is
 * 404. Requests are counted.
 */

/** The running fake. */
export interface FakeResponses extends AsyncDisposable {
  readonly baseUrl: string;
  /** Model requests received. */
  readonly requests: number;
}

function sse(events: Record<string, unknown>[]): string {
  return events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join("");
}

/** The last user text of a Responses request body. */
function lastUserText(body: { input?: unknown }): string {
  const items = Array.isArray(body.input) ? body.input : [];
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i] as { role?: string; content?: { type?: string; text?: string }[] };
    if (item.role !== "user" || !Array.isArray(item.content)) continue;
    const text = item.content.map((c) => c.text ?? "").join("");
    if (text.trim() !== "" && !text.includes("<environment_context>")) return text;
  }
  return "";
}

/** Start the fake on loopback. */
export function startFakeResponses(): FakeResponses {
  let requests = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (request) => {
    const path = new URL(request.url).pathname;
    if (request.method !== "POST" || !path.endsWith("/responses")) {
      await request.body?.cancel();
      return new Response("not found", { status: 404 });
    }
    requests++;
    const body = await request.json();
    const text = `echo: ${lastUserText(body)}`;
    const id = `resp_${requests}`;
    return new Response(
      sse([
        { type: "response.created", response: { id } },
        {
          type: "response.output_item.done",
          item: {
            type: "message",
            role: "assistant",
            id: `msg_${requests}`,
            content: [{ type: "output_text", text }],
          },
        },
        {
          type: "response.completed",
          response: {
            id,
            usage: {
              input_tokens: 10,
              input_tokens_details: null,
              output_tokens: 5,
              output_tokens_details: null,
              total_tokens: 15,
            },
          },
        },
      ]),
      { headers: { "content-type": "text/event-stream" } },
    );
  });
  return {
    baseUrl: `http://127.0.0.1:${server.addr.port}/v1`,
    get requests() {
      return requests;
    },
    [Symbol.asyncDispose]: () => server.shutdown(),
  };
}
