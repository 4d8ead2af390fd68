import assert from "node:assert/strict";
import { createMemoryLogger, createRootScope } from "@seam/host";
import { delegationContextKey, SubagentDepthError } from "@seam/subagent";
import { type A2AAgentCard, createA2AProvider } from "./mod.ts";

const CARD: A2AAgentCard = {
  name: "plain",
  supportedInterfaces: [
    { url: "http://agent.test/rpc", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
    { url: "http://agent.test/rest", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
  ],
  capabilities: { streaming: true },
};

/** A fetch serving `card` at any URL, recording the URLs asked for. */
function cardFetch(card: unknown, status = 200): { fetch: typeof fetch; urls: string[] } {
  const urls: string[] = [];
  return {
    urls,
    fetch: (input) => {
      urls.push(String(input instanceof Request ? input.url : input));
      return Promise.resolve(
        typeof card === "string" ? new Response(card, { status }) : Response.json(card, { status }),
      );
    },
  };
}

Deno.test("createA2AProvider() refuses bad options, naming them", async () => {
  const cases: [unknown, RegExp][] = [
    [{}, /give exactly one of options.url and options.card/],
    [{ url: "http://a.test", card: CARD }, /exactly one/],
    [
      { card: CARD, colour: "red" },
      /^Cannot create A2A provider: unknown option colour \(known: url, card, name, .*logger\)$/,
    ],
    [
      { card: CARD, reconnect: { retry: 1 } },
      /unknown option reconnect\.retry \(known: retries, delayMs, maxDelayMs, maxReattaches\)$/,
    ],
    [{ card: CARD, name: "" }, /options.name must be a non-empty string/],
    [{ card: CARD, binding: "GRPC" }, /options.binding must be "JSONRPC" or "HTTP\+JSON"/],
    [{ card: CARD, token: "two words" }, /options.token/],
    [{ card: CARD, fetch: "no" }, /options.fetch must be a function/],
    [{ card: CARD, resume: "yes" }, /options.resume must be a boolean/],
    [{ card: CARD, reconnect: 3 }, /options.reconnect must be a policy object or false/],
    [{ url: "ftp://a.test" }, /must be an http\(s\) URL/],
    [{ url: "not a url" }, /must be an absolute URL/],
    [{ card: CARD, provider: "spawn" }, /declares no seam extension/],
    [{ card: CARD, redirects: "follow" }, /options.redirects must be "refuse" or "same-origin"/],
    [{ card: CARD, sameOriginInterfaces: "yes" }, /options.sameOriginInterfaces must be a boolean/],
    [{ card: CARD, sameOriginInterfaces: true }, /options.sameOriginInterfaces needs options.url/],
  ];
  for (const [options, message] of cases) {
    await assert.rejects(
      createA2AProvider(options as never),
      (error: unknown) => error instanceof TypeError && message.test(error.message),
      message.source,
    );
  }
  await assert.rejects(createA2AProvider({ card: CARD, timeoutMs: 0 }), RangeError);
  const ranges: [Record<string, unknown>, RegExp][] = [
    [{ idleTimeoutMs: 0 }, /options.idleTimeoutMs must be an integer from 1 to 2147483647, got 0/],
    [{ idleTimeoutMs: 2 ** 31 }, /options.idleTimeoutMs must be an integer from 1/],
    [
      { deadlineMs: "soon" },
      /options.deadlineMs must be an integer from 1 to 2147483647, got soon/,
    ],
    [{ maxOutputChars: 1.5 }, /options.maxOutputChars must be an integer from 1/],
    [
      { reconnect: { maxReattaches: -1 } },
      /options.reconnect.maxReattaches must be an integer from 0 to 1000000, got -1/,
    ],
    [
      { reconnect: { maxReattaches: "many" } },
      /options.reconnect.maxReattaches must be an integer from 0 to 1000000, got many/,
    ],
    [{ reconnect: { maxReattaches: 2.5 } }, /options.reconnect.maxReattaches must be an integer/],
    [
      { reconnect: { maxReattaches: 1_000_001 } },
      /options.reconnect.maxReattaches must be an integer from 0 to 1000000, got 1000001/,
    ],
  ];
  for (const [extra, message] of ranges) {
    await assert.rejects(
      createA2AProvider({ card: CARD, ...extra } as never),
      (error: unknown) => error instanceof RangeError && message.test(error.message),
      message.source,
    );
  }
  await assert.rejects(
    createA2AProvider({ card: CARD, reconnect: { retries: -1 } }),
    /options.reconnect.retries must be an integer from 0 to/,
  );
});

Deno.test("createA2AProvider() finds the card from a base URL or takes a card URL as is", async () => {
  const served = cardFetch(CARD);
  await createA2AProvider({ url: "http://agent.test", fetch: served.fetch });
  await createA2AProvider({ url: "http://agent.test/team/", fetch: served.fetch });
  await createA2AProvider({ url: "http://agent.test/cards/plain.json", fetch: served.fetch });
  assert.deepEqual(served.urls, [
    "http://agent.test/.well-known/agent-card.json",
    "http://agent.test/team/.well-known/agent-card.json",
    "http://agent.test/cards/plain.json",
  ]);
});

Deno.test("createA2AProvider() says why discovery failed", async () => {
  await assert.rejects(
    createA2AProvider({ url: "http://agent.test", fetch: cardFetch("nope", 404).fetch }),
    /Cannot create A2A provider: the agent card at http:\/\/agent\.test\/\.well-known\/agent-card\.json answered HTTP 404/,
  );
  await assert.rejects(
    createA2AProvider({ url: "http://agent.test", fetch: cardFetch("<html>").fetch }),
    /is not JSON/,
  );
  await assert.rejects(
    createA2AProvider({
      url: "http://agent.test",
      timeoutMs: 20,
      fetch: () => new Promise<Response>(() => {}),
    }),
    /did not arrive within 20 ms \(timeoutMs\)/,
  );
  await assert.rejects(
    createA2AProvider({ card: { name: "nowhere", supportedInterfaces: [] } }),
    /is not usable \(it needs a JSONRPC or HTTP\+JSON interface of A2A 1.0 or 0.3\)/,
  );
});

Deno.test("a plain A2A agent: no capabilities; resume by default, no sendMessage", async () => {
  const provider = await createA2AProvider({ card: CARD, binding: "HTTP+JSON" });
  assert.deepEqual({ ...provider.capabilities }, {
    outputSchema: false,
    depthLimit: false,
    toolFilter: false,
    persona: false,
    budget: false,
  });
  assert.equal(provider.inheritsParentContext, false);
  assert.deepEqual({ ...provider.remote }, {
    cardUrl: undefined,
    name: "plain",
    binding: "HTTP+JSON",
    protocolVersion: "1.0",
    streaming: true,
    seam: false,
    provider: undefined,
  });
  const root = createRootScope({ logger: createMemoryLogger().logger });
  const parent = { id: "p", scope: root.child("p") };
  const run = provider.start({ prompt: [{ type: "text", text: "hi" }], parent });
  assert.equal(typeof run.resume, "function");
  assert.equal(run.sendMessage, undefined);
  run.cancel();
  assert.equal((await run.result).stopReason, "aborted");
  await assert.rejects(run.started);
  await run.dispose();
  const noResume = await createA2AProvider({ card: CARD, resume: false, sendMessage: true });
  const other = noResume.start({ prompt: [{ type: "text", text: "hi" }], parent });
  assert.equal(other.resume, undefined);
  assert.equal(typeof other.sendMessage, "function");
  await other.dispose();
  await Promise.all([provider.dispose(), noResume.dispose()]);
  await root.dispose();
});

Deno.test("a v0.3 card is spoken to through the SDK's compatibility layer", async () => {
  const provider = await createA2AProvider({
    card: {
      protocolVersion: "0.3.0",
      name: "old",
      description: "a v0.3 agent",
      version: "1.0.0",
      url: "http://old.test/rpc",
      preferredTransport: "JSONRPC",
      capabilities: { streaming: false },
      defaultInputModes: ["text"],
      defaultOutputModes: ["text"],
      skills: [],
    },
  });
  assert.equal(provider.remote.protocolVersion, "0.3");
  assert.equal(provider.remote.binding, "JSONRPC");
  assert.equal(provider.remote.streaming, false);
  await provider.dispose();
});

Deno.test("start() holds an inherited depth cap for any agent, before any request", async () => {
  let requests = 0;
  const provider = await createA2AProvider({
    card: CARD,
    fetch: () => {
      requests++;
      return Promise.reject(new TypeError("offline"));
    },
  });
  const root = createRootScope({ logger: createMemoryLogger().logger });
  const scope = root.child("capped");
  scope.provide(delegationContextKey, { depth: 1, maxDepth: 1 });
  assert.throws(
    () => provider.start({ prompt: [{ type: "text", text: "hi" }], parent: { id: "x", scope } }),
    SubagentDepthError,
  );
  assert.equal(requests, 0);
  await provider.dispose();
  await root.dispose();
});

Deno.test("createA2AProvider() warns when the card offers no interface for the binding asked", async () => {
  const rpcOnly: A2AAgentCard = { ...CARD, supportedInterfaces: [CARD.supportedInterfaces![0]] };
  const { logger, records } = createMemoryLogger();
  await createA2AProvider({ card: rpcOnly, binding: "HTTP+JSON", logger });
  const warnings = records.filter((r) => r.level === "warn").map((r) => r.message);
  assert.equal(warnings.length, 1, JSON.stringify(warnings));
  assert.match(
    warnings[0],
    /offers no HTTP\+JSON interface \(binding: "HTTP\+JSON"\); using JSONRPC instead/,
  );
  records.length = 0;
  await createA2AProvider({ card: CARD, binding: "HTTP+JSON", logger });
  assert.deepEqual(
    records.filter((r) => r.level === "warn"),
    [],
    "a card that offers it: no warning",
  );
});
