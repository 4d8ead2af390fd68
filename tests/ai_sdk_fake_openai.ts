// A fake OpenAI-compatible chat-completions server on loopback, written from
// the API's published streaming format: every request is answered with the
// same reply, streamed word by word, then its usage and [DONE]. For the
// tests and the bench that put aiSdkModel (through @ai-sdk/openai-compatible)
// and the host's OpenAI-compatible adapter against the same server.

/** The server: its base URL (`…/v1`), how many requests it answered, how to stop it. */
export interface FakeOpenAI {
  readonly baseUrl: string;
  readonly requests: () => number;
  close(): Promise<void>;
}

/** Serve `reply` (streamed word by word) with the given usage. */
export function serveFakeOpenAI(
  reply = "Hello from the fake model.",
  usage = { prompt: 10, completion: 5, cached: 4 },
): FakeOpenAI {
  let requests = 0;
  const encoder = new TextEncoder();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    async (request) => {
      if (
        request.method !== "POST" || !new URL(request.url).pathname.endsWith("/chat/completions")
      ) {
        return new Response("not found", { status: 404 });
      }
      requests++;
      const body = await request.json();
      const chunk = (delta: unknown, finish: string | null, extra: Record<string, unknown> = {}) =>
        `data: ${
          JSON.stringify({
            id: "chatcmpl-fake",
            object: "chat.completion.chunk",
            created: 0,
            model: body.model,
            choices: [{ index: 0, delta, finish_reason: finish }],
            ...extra,
          })
        }\n\n`;
      let text = chunk({ role: "assistant", content: "" }, null);
      for (const word of reply.split(/(?<= )/)) text += chunk({ content: word }, null);
      text += chunk({}, "stop", {
        usage: {
          prompt_tokens: usage.prompt,
          completion_tokens: usage.completion,
          total_tokens: usage.prompt + usage.completion,
          prompt_tokens_details: { cached_tokens: usage.cached },
        },
      });
      text += "data: [DONE]\n\n";
      return new Response(encoder.encode(text), {
        headers: { "content-type": "text/event-stream", "cache-control": "no-cache" },
      });
    },
  );
  return {
    baseUrl: `http://127.0.0.1:${server.addr.port}/v1`,
    requests: () => requests,
    close: () => server.shutdown(),
  };
}
