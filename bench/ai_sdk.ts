// @seam/ai-sdk's costs, each against its peer in the same process, in
// alternating batches so machine noise hits both alike (medians of rounds):
//
// - provider: one run of an AI SDK agent (ToolLoopAgent on ai/test's mock
//   model, answering at once) called directly (agent.stream, read to the
//   end; and the same made cancellable with an abortSignal, as the
//   provider's call is) against the same agent run as a seam child
//   (subagents.start → result → dispose) through createAiSdkProvider;
// - model: one model step through aiSdkModel (an @ai-sdk/openai-compatible
//   model) against the host's own createOpenAICompatibleModel, both talking
//   to the same fake chat-completions server on loopback (real HTTP, SSE).
//
// Run: deno task bench:ai-sdk (or `… provider` / `… model` for one).
import { createOpenAICompatibleModel, createRootScope, type ModelAdapter } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { aiSdkModel, createAiSdkProvider } from "@seam/ai-sdk";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { jsonSchema, streamText, tool, ToolLoopAgent } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { finish, streamOf, textParts } from "../adapters/ai_sdk/_test_models.ts";
import { serveFakeOpenAI } from "../tests/ai_sdk_fake_openai.ts";

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];

/** Alternate `a` and `b` in batches; µs per call, median over rounds. */
async function compare(
  batchSize: number,
  rounds: number,
  a: () => Promise<void>,
  b: () => Promise<void>,
): Promise<{ a: number; b: number; added: number }> {
  const time = async (fn: () => Promise<void>) => {
    const t0 = performance.now();
    for (let i = 0; i < batchSize; i++) await fn();
    return ((performance.now() - t0) * 1000) / batchSize;
  };
  for (let i = 0; i < 3; i++) await time(a), await time(b); // warm-up
  const as: number[] = [], bs: number[] = [], added: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const ta = await time(a);
    const tb = await time(b);
    as.push(ta), bs.push(tb), added.push(tb - ta);
  }
  return { a: median(as), b: median(bs), added: median(added) };
}

async function providerOverhead(): Promise<void> {
  const model = new MockLanguageModelV4({
    doStream: () =>
      Promise.resolve(
        streamOf([
          ...textParts("The answer is forty-two."),
          finish("stop", { input: 20, output: 6 }),
        ]),
      ),
  });
  const agent = new ToolLoopAgent({ model, maxRetries: 0 });
  const root = createRootScope();
  const subagents = createSubagentService(root);
  subagents.registerProvider(createAiSdkProvider({ name: "kid", agent }));
  const parent = { id: "main", scope: root };
  const direct = async () => {
    const result = await agent.stream({ prompt: "What is the answer?" });
    for await (const _ of result.fullStream) { /* read it all, as the provider does */ }
    await result.text;
  };
  const viaSeam = async () => {
    const run = subagents.start("kid", { prompt: "What is the answer?", parent });
    await run.result;
    await run.dispose();
  };
  // The same direct call made cancellable, as the provider's is (its abortSignal).
  const cancellable = async () => {
    const controller = new AbortController();
    const result = await agent.stream({
      prompt: "What is the answer?",
      abortSignal: controller.signal,
    });
    for await (const _ of result.fullStream) { /* read it all */ }
    await result.text;
  };
  const r = await compare(300, 41, direct, viaSeam);
  console.log(
    `provider: direct agent.stream ${r.a.toFixed(1)} µs/run, through createAiSdkProvider ${
      r.b.toFixed(1)
    } µs/run: +${r.added.toFixed(1)} µs (${((r.added / r.a) * 100).toFixed(1)}%)`,
  );
  const c = await compare(300, 41, cancellable, viaSeam);
  console.log(
    `  against a cancellable direct call (abortSignal): ${
      c.a.toFixed(1)
    } µs/run, through the provider ${c.b.toFixed(1)} µs/run: +${c.added.toFixed(1)} µs (${
      ((c.added / c.a) * 100).toFixed(1)
    }%)`,
  );
  await root.dispose();
}

async function modelPeers(): Promise<void> {
  const fake = serveFakeOpenAI("Hello from the fake model, streamed word by word.");
  const seam = createOpenAICompatibleModel({ baseUrl: fake.baseUrl, retries: 0 });
  const provider = createOpenAICompatible({ name: "fake", baseURL: fake.baseUrl });
  const viaAiSdk = aiSdkModel(provider("fake-model"), { maxRetries: 0 });
  const step = (adapter: ModelAdapter) => async () => {
    const events = adapter.stream({
      model: "fake-model",
      system: "Be brief.",
      messages: [{ role: "user", content: [{ type: "text", text: "Say hello" }] }],
      tools: [{
        name: "lookup",
        description: "Look something up",
        parameters: { type: "object", properties: { q: { type: "string" } } },
      }],
      signal: new AbortController().signal,
    });
    for await (const _ of events) { /* consume */ }
  };
  // The floor of any AI SDK use: streamText itself on the same model, read to the end.
  const model = provider("fake-model");
  const lookup = tool({
    description: "Look something up",
    inputSchema: jsonSchema({ type: "object", properties: { q: { type: "string" } } }),
  });
  const bare = async () => {
    const result = streamText({
      model,
      system: "Be brief.",
      messages: [{ role: "user", content: [{ type: "text", text: "Say hello" }] }],
      tools: { lookup },
      maxRetries: 0,
    });
    for await (const _ of result.fullStream) { /* consume */ }
  };
  const pct = (x: { a: number; added: number }) => `${((x.added / x.a) * 100).toFixed(1)}%`;
  const r = await compare(60, 25, step(seam), step(viaAiSdk));
  console.log(
    `model step over HTTP: createOpenAICompatibleModel ${r.a.toFixed(0)} µs, aiSdkModel ${
      r.b.toFixed(0)
    } µs: +${r.added.toFixed(0)} µs (${pct(r)})`,
  );
  const floor = await compare(60, 25, bare, step(viaAiSdk));
  console.log(
    `  the AI SDK's own share: streamText directly ${floor.a.toFixed(0)} µs, aiSdkModel ${
      floor.b.toFixed(0)
    } µs: +${floor.added.toFixed(0)} µs (${pct(floor)}); ${fake.requests()} requests in all`,
  );
  await fake.close();
}

const only = Deno.args[0];
if (!only || only === "provider") await providerOverhead();
if (!only || only === "model") await modelPeers();
