// Our ACP server tells an ACP client every descendant of a session's turn:
// in-process children, ACP children and the children those report, at any
// depth, as child sessions (`subagent_update`) when the client advertised
// `clientCapabilities.subagents`, as thought lines otherwise; a descendant's
// permission request as "needs action" and `session/request_permission`; a
// per-child `session/cancel` ends that child only. The client is the real
// ACP SDK's, the server a real process (tests/testdata/acp_tree_server.ts).
import assert from "node:assert/strict";
// The unstable schema: the stable one rejects `subagent_update`.
import * as acp from "@agentclientprotocol/sdk/unstable";
import { createAcpProvider } from "@seam/subagent-acp";
import { AgentWatch, testAgentConfig } from "./acp_support.ts";
import { startSpawnGateway } from "./a2a_support.ts";
import { within } from "./within.ts";
import { connectTreeServer, type Seen, textUnder, type Update } from "./acp_client_support.ts";

/**
 * Start the server process and an SDK client on it; `subagents`: advertise the
 * capability; `onElicit`: declare form elicitation and answer it so. The
 * server's stderr is passed on, and kept (`log()`) once `close()` returned.
 */
async function connect(
  subagents: boolean,
  onPermission?: (params: Record<string, unknown>) => void,
  extraArgs: readonly string[] = [],
  onElicit?: (
    params: Record<string, unknown>,
  ) => acp.CreateElicitationResponse | Promise<acp.CreateElicitationResponse>,
) {
  const { client, seen, sessionId, close, log } = await connectTreeServer({
    args: extraArgs,
    stderr: "kept",
    name: "tree-test",
    capabilities: {
      ...(subagents ? { subagents: {} } : {}),
      ...(onElicit ? { elicitation: { form: {} } } : {}),
    },
    handlers: (app) =>
      app
        .onRequest(acp.methods.client.session.requestPermission, ({ params }) => {
          onPermission?.(params as unknown as Record<string, unknown>);
          const allow = params.options.find((o) => o.kind === "allow_once")!;
          return { outcome: { outcome: "selected", optionId: allow.optionId } };
        })
        .onRequest(acp.methods.client.elicitation.create, ({ params }) => {
          if (!onElicit) throw new Error("this client declared no elicitation");
          return onElicit(params as unknown as Record<string, unknown>);
        }),
  });
  /** A turn of the session on `text`: its answer. */
  const turn = (text: string) =>
    client.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: "text", text }],
    });
  /** The client's `session/cancel` for (child) session `id`. */
  const cancelChild = (id: unknown) =>
    client.agent.notify(acp.methods.agent.session.cancel, { sessionId: id as string });
  return { client, seen, sessionId, close, turn, cancelChild, log };
}

/** Each child session's parent session, from the announcements. */
function parents(seen: readonly Seen[]): Map<string, string> {
  const map = new Map<string, string>();
  for (const { sessionId, update } of seen) {
    if (update.sessionUpdate !== "subagent_update") continue;
    const child = update.sessionId as string;
    if (!map.has(child)) map.set(child, sessionId);
  }
  return map;
}

function depthOf(map: Map<string, string>, id: string, root: string): number {
  let depth = 0;
  for (let at = id; at !== root; at = map.get(at)!) depth++;
  return depth;
}

const TREE_PROMPT = [
  `@calls ${
    JSON.stringify([
      {
        name: "subagent",
        args: {
          description: "helper",
          prompt: `@call acp_agent ${
            JSON.stringify({ description: "deep", prompt: "children 1" })
          }\n@reply inner done`,
        },
      },
      { name: "acp_agent", args: { description: "asker", prompt: "permission" } },
    ])
  }`,
  "@reply all done",
].join("\n");

Deno.test("serveAcpAgent() tells a subagents client every descendant as a child session", async () => {
  const permissions: Record<string, unknown>[] = [];
  const { seen, sessionId, close, turn } = await connect(
    true,
    (p) => permissions.push(p),
  );
  try {
    const answer = await turn(TREE_PROMPT);
    assert.equal(answer.stopReason, "end_turn");
    const tree = parents(seen);
    // helper (in-process) → deep (ACP) → child-1 → child-1-1, and asker (ACP).
    const depths = [...tree.keys()].map((id) => depthOf(tree, id, sessionId)).sort();
    assert.deepEqual(depths, [1, 1, 2, 3, 4], JSON.stringify([...tree]));
    const [grandchild] = [...tree.keys()].filter((id) => depthOf(tree, id, sessionId) === 4);
    const [child1] = [...tree.keys()].filter((id) => depthOf(tree, id, sessionId) === 3);
    assert.equal(textUnder(seen, child1), "child 1 says hi");
    assert.equal(textUnder(seen, grandchild), "grandchild");
    // The ACP child's answer is its child session's text; the helper's reply is its own.
    const [deep] = [...tree.keys()].filter((id) => depthOf(tree, id, sessionId) === 2);
    assert.equal(textUnder(seen, deep), "children done");
    const [helper] = [...tree.keys()].filter((id) => tree.get(deep) === id);
    assert.equal(textUnder(seen, helper), "inner done");
    // Every child ends idle; the service's runs say how and what they used.
    const states = (id: string) =>
      seen.filter((s) => s.update.sessionUpdate === "subagent_update" && s.update.sessionId === id)
        .map((s) => (s.update.state as { state: string } | undefined)?.state);
    for (const id of tree.keys()) assert.equal(states(id).at(-1), "idle", `${id}: ${states(id)}`);
    const end = seen.find((s) =>
      s.update.sessionUpdate === "subagent_update" && s.update.sessionId === deep &&
      (s.update._meta as { seam?: unknown } | undefined)?.seam
    )!;
    const seam =
      (end.update._meta as { seam: { stopReason: string; usage: { inputTokens: number } } }).seam;
    assert.equal(seam.stopReason, "completed");
    // The ACP child's total: its own 50 and its children's 100 + 7, once each.
    assert.equal(seam.usage.inputTokens, 157);
    // The asker's permission request: "needs action", then asked under its child session.
    const asker = [...tree.keys()].find((id) => tree.get(id) === sessionId && id !== helper)!;
    assert.ok(states(asker).includes("requires_action"), `${states(asker)}`);
    assert.equal(permissions.length, 1);
    assert.equal(permissions[0].sessionId, asker);
    assert.match(textUnder(seen, asker), /selected/);
    assert.match(textUnder(seen, sessionId), /all done/);
  } finally {
    await close();
  }
});

Deno.test("serveAcpAgent() ends one child's subtree on the client's per-child cancel", async () => {
  const { seen, sessionId, close, turn, cancelChild } = await connect(true);
  const calls = [
    {
      name: "subagent",
      args: {
        description: "sleeper",
        prompt: `@call subagent ${JSON.stringify({ description: "grand", prompt: "@hang" })}`,
      },
    },
    { name: "subagent", args: { description: "sibling", prompt: "@delay 500\n@reply sibling ok" } },
  ];
  try {
    const prompt = turn(`@calls ${JSON.stringify(calls)}\n@reply after the cancel: {{results}}`);
    const announced = (title: string) =>
      seen.find((s) => s.update.sessionUpdate === "subagent_update" && s.update.title === title)
        ?.update;
    const deadline = Date.now() + 15_000;
    while (!(announced("sleeper") && announced("grand")) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const sleeper = announced("sleeper")!;
    assert.ok(sleeper && announced("grand"), "the children were not announced");
    assert.deepEqual(sleeper.capabilities, { cancel: {} });
    await cancelChild(sleeper.sessionId);
    const answer = await within(prompt, "the turn after the per-child cancel", 30_000);
    // The session's own turn went on: only the sleeper's subtree was cancelled.
    assert.equal(answer.stopReason, "end_turn");
    assert.match(textUnder(seen, sessionId), /after the cancel/);
    const ended = (title: string) => {
      const id = announced(title)!.sessionId;
      const last = seen.filter((s) =>
        s.update.sessionUpdate === "subagent_update" && s.update.sessionId === id
      ).at(-1)!.update;
      return (last._meta as { seam: { stopReason: string } }).seam.stopReason;
    };
    assert.equal(ended("sleeper"), "aborted");
    assert.equal(ended("grand"), "aborted");
    assert.equal(ended("sibling"), "completed");
    assert.equal(textUnder(seen, announced("sibling")!.sessionId as string), "sibling ok");
  } finally {
    await close();
  }
});

Deno.test("serveAcpAgent() tells a client without the capability its descendants as thoughts", async () => {
  const { seen, sessionId, close, turn } = await connect(false);
  try {
    const answer = await turn(
      `@call acp_agent ${JSON.stringify({ description: "d", prompt: "children 1" })}\n@reply ok`,
    );
    assert.equal(answer.stopReason, "end_turn");
    assert.ok(!seen.some((s) => s.update.sessionUpdate === "subagent_update"));
    assert.ok(seen.every((s) => s.sessionId === sessionId));
    const thoughts = seen.filter((s) => s.update.sessionUpdate === "agent_thought_chunk")
      .map((s) => (s.update.content as { text: string }).text).join("");
    assert.match(thoughts, /\[subagent\] started \S+ \(acp\)/);
    assert.match(thoughts, /\[subagent\] \S+ ended completed/);
    // The ACP child, not advertised the capability either, reported no children.
    assert.match(textUnder(seen, sessionId), /ok/);
  } finally {
    await close();
  }
});

/** A gateway serving the test agent as provider `acp`; its agent card's URL. */
function acpGateway(watch: AgentWatch) {
  const gateway = startSpawnGateway("loopback", {
    setup: (_host, subagents) =>
      void subagents.registerProvider(
        createAcpProvider(testAgentConfig([], { logger: watch.logger })),
      ),
  });
  return { gateway, card: `${gateway.url}/acp/.well-known/agent-card.json` };
}

/** `@call subagent` (in-process "helper") whose child calls `remote_agent` with `prompt`. */
function throughGateway(prompt: string): string {
  const inner = `@call remote_agent ${
    JSON.stringify({ description: "far", prompt })
  }\n@reply {{results}}`;
  return `@call subagent ${
    JSON.stringify({ description: "helper", prompt: inner })
  }\n@reply top: {{results}}`;
}

Deno.test("ACP client → seam ACP server → A2A gateway → ACP agent: the client sees the tree", async () => {
  const watch = new AgentWatch();
  const { gateway, card } = acpGateway(watch);
  const { seen, sessionId, close, turn } = await connect(true, undefined, [
    `--a2a=${card}`,
  ]);
  try {
    const answer = await turn(throughGateway("complete from behind the gateway"));
    assert.equal(answer.stopReason, "end_turn");
    const tree = parents(seen);
    const ids = [...tree.keys()];
    const helper = ids.find((id) => tree.get(id) === sessionId)!;
    const far = ids.find((id) => tree.get(id) === helper)!;
    assert.ok(helper && far, JSON.stringify([...tree]));
    // The A2A run: where it went (the gateway's task), and the ACP agent's words.
    const thoughts = seen.filter((s) =>
      s.sessionId === far && s.update.sessionUpdate === "agent_thought_chunk"
    ).map((s) => (s.update.content as { text: string }).text).join("");
    assert.match(thoughts, /^on .+, task \S+/);
    assert.equal(textUnder(seen, far), "from behind the gateway");
    assert.match(textUnder(seen, sessionId), /top: from behind the gateway/);
    const stop = (id: string) =>
      (seen.filter((s) => s.update.sessionUpdate === "subagent_update" && s.update.sessionId === id)
        .at(-1)!.update._meta as { seam: { stopReason: string } }).seam.stopReason;
    assert.equal(stop(far), "completed");
    assert.equal(stop(helper), "completed");
    assert.ok(watch.pids.size > 0, "the ACP agent behind the gateway never started");
  } finally {
    await close();
    await gateway.close();
  }
  assert.deepEqual(await watch.live(), [], "processes were left behind");
});

Deno.test("a per-child cancel ends that child's subtree through the A2A gateway", async () => {
  const watch = new AgentWatch();
  const { gateway, card } = acpGateway(watch);
  const { seen, close, turn, cancelChild } = await connect(true, undefined, [
    `--a2a=${card}`,
  ]);
  try {
    const prompt = turn(throughGateway("hang"));
    const titled = (title: string) => {
      const id = seen.find((s) =>
        s.update.sessionUpdate === "subagent_update" && s.update.title === title
      )?.update.sessionId;
      return seen.find((s) =>
        s.update.sessionUpdate === "subagent_update" && s.update.sessionId === id
      )
        ?.update;
    };
    const deadline = Date.now() + 15_000;
    while ((!titled("far") || watch.pids.size === 0) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(titled("far"), "the A2A run was not announced");
    await cancelChild(titled("helper")!.sessionId);
    const answer = await within(prompt, "the turn after the per-child cancel", 30_000);
    assert.equal(answer.stopReason, "end_turn");
    const stop = (title: string) =>
      (seen.filter((s) =>
        s.update.sessionUpdate === "subagent_update" &&
        s.update.sessionId === titled(title)!.sessionId
      ).at(-1)!.update._meta as { seam: { stopReason: string } }).seam.stopReason;
    assert.equal(stop("helper"), "aborted");
    assert.equal(stop("far"), "aborted");
    // The remote task ended with it (the gateway's live tasks drop to none).
    const gone = Date.now() + 10_000;
    while (gateway.gateway.liveTasks > 0 && Date.now() < gone) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(gateway.gateway.liveTasks, 0, "the gateway's task still runs");
  } finally {
    await close();
    await gateway.close();
  }
  assert.deepEqual(await watch.live(), [], "processes were left behind");
});

Deno.test("a per-child cancel of an ACP agent's own child session reaches that agent", async () => {
  const { seen, sessionId, close, turn, cancelChild } = await connect(true);
  try {
    const prompt = turn(
      `@call acp_agent ${
        JSON.stringify({ description: "parent", prompt: "children-hang" })
      }\n@reply {{results}}`,
    );
    const child = () =>
      seen.find((s) =>
        s.update.sessionUpdate === "subagent_update" && s.update.title === "helper child-1"
      )?.update;
    const deadline = Date.now() + 15_000;
    while (!child() && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.ok(child(), "the ACP agent's child was not announced");
    assert.deepEqual(child()!.capabilities, { cancel: {} });
    const id = child()!.sessionId as string;
    await cancelChild(id);
    const answer = await within(prompt, "the turn after the per-child cancel", 30_000);
    assert.equal(answer.stopReason, "end_turn");
    // The agent got the cancel for its child, not for its own turn, and went on.
    assert.equal(textUnder(seen, id), "child 1 workingchild 1 cancelled");
    assert.match(textUnder(seen, sessionId), /after the child's cancel/);
  } finally {
    await close();
  }
});

/** The first announcement of the child session titled `title`, once the client saw it. */
function announcedIn(seen: readonly Seen[], title: string): Update | undefined {
  return seen.find((s) => s.update.sessionUpdate === "subagent_update" && s.update.title === title)
    ?.update;
}

/** How the child session titled `title` ended (`_meta.seam.stopReason` of its last update). */
function endedIn(seen: readonly Seen[], title: string): string | undefined {
  const id = announcedIn(seen, title)?.sessionId;
  const last = seen.filter((s) =>
    s.update.sessionUpdate === "subagent_update" && s.update.sessionId === id
  ).at(-1)?.update;
  return (last?._meta as { seam?: { stopReason?: string } } | undefined)?.seam?.stopReason;
}

async function untilAnnounced(seen: readonly Seen[], ...titles: string[]): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (!titles.every((t) => announcedIn(seen, t)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  for (const title of titles) assert.ok(announcedIn(seen, title), `${title} was not announced`);
}

Deno.test("a per-child cancel ends an ACP provider's run and the child sessions it reported", async () => {
  const { seen, sessionId, close, turn, cancelChild } = await connect(true);
  const calls = [
    { name: "acp_agent", args: { description: "acp parent", prompt: "children-hang" } },
    { name: "subagent", args: { description: "sibling", prompt: "@delay 300\n@reply sibling ok" } },
  ];
  try {
    const prompt = turn(`@calls ${JSON.stringify(calls)}\n@reply turn goes on`);
    await untilAnnounced(seen, "acp parent", "helper child-1");
    const parent = announcedIn(seen, "acp parent")!;
    // The ACP provider's run registered its cancel: the client is offered it.
    assert.deepEqual(parent.capabilities, { cancel: {} });
    await cancelChild(parent.sessionId);
    const answer = await within(prompt, "the turn after the per-child cancel", 30_000);
    assert.equal(answer.stopReason, "end_turn");
    assert.match(textUnder(seen, sessionId), /turn goes on/);
    assert.equal(endedIn(seen, "acp parent"), "aborted");
    // Its agent's child session ended with it, still at work.
    assert.equal(endedIn(seen, "helper child-1"), "aborted");
    assert.equal(endedIn(seen, "sibling"), "completed");
    assert.equal(textUnder(seen, announcedIn(seen, "sibling")!.sessionId as string), "sibling ok");
  } finally {
    await close();
  }
});

Deno.test("a per-child cancel ends a grandchild ACP run; its parent goes on", async () => {
  const { seen, sessionId, close, turn, cancelChild } = await connect(true);
  const inner = `@call acp_agent ${
    JSON.stringify({ description: "grand", prompt: "hang" })
  }\n@reply helper after: {{results}}`;
  try {
    const prompt = turn(
      `@call subagent ${
        JSON.stringify({ description: "helper", prompt: inner })
      }\n@reply top: {{results}}`,
    );
    await untilAnnounced(seen, "helper", "grand");
    const grand = announcedIn(seen, "grand")!;
    assert.deepEqual(grand.capabilities, { cancel: {} });
    await cancelChild(grand.sessionId);
    const answer = await within(prompt, "the turn after the per-child cancel", 30_000);
    assert.equal(answer.stopReason, "end_turn");
    assert.equal(endedIn(seen, "grand"), "aborted");
    assert.equal(endedIn(seen, "helper"), "completed");
    assert.match(textUnder(seen, announcedIn(seen, "helper")!.sessionId as string), /helper after/);
    assert.match(textUnder(seen, sessionId), /top: helper after/);
  } finally {
    await close();
  }
});

Deno.test("serveAcpAgent() asks a descendant's question by elicitation when the client takes it", async () => {
  const asked: Record<string, unknown>[] = [];
  const { seen, sessionId, close, turn } = await connect(
    true,
    undefined,
    [],
    (params) => {
      asked.push(params);
      return { action: "accept", content: { answer: "blue" } };
    },
  );
  try {
    const answer = await turn(
      `@call ask_user ${
        JSON.stringify({ description: "asker", prompt: "Which colour?" })
      }\n@reply got {{results}}`,
    );
    assert.equal(answer.stopReason, "end_turn");
    const asker = announcedIn(seen, "asker")!;
    assert.equal(asked.length, 1);
    // A form of one free-text field, on the asking child's session.
    assert.equal(asked[0].sessionId, asker.sessionId);
    assert.equal(asked[0].mode, "form");
    assert.equal(asked[0].message, "Which colour?");
    assert.deepEqual(asked[0].requestedSchema, {
      type: "object",
      properties: { answer: { type: "string", title: "Answer" } },
      required: ["answer"],
    });
    const states = seen.filter((s) =>
      s.update.sessionUpdate === "subagent_update" && s.update.sessionId === asker.sessionId
    ).map((s) => (s.update.state as { state: string } | undefined)?.state);
    assert.ok(states.includes("requires_action"), `${states}`);
    assert.match(textUnder(seen, sessionId), /got answered: blue/);
  } finally {
    await close();
  }
});

Deno.test("a declined elicitation refuses the question; without the capability it passes up", async (t) => {
  await t.step("declined", async () => {
    const { seen, sessionId, close, turn } = await connect(
      true,
      undefined,
      [],
      () => ({ action: "decline" }),
    );
    try {
      await turn(
        `@call ask_user ${
          JSON.stringify({ description: "asker", prompt: "Which colour?" })
        }\n@reply got {{results}}`,
      );
      assert.match(textUnder(seen, sessionId), /got refused: the ACP client declined/);
    } finally {
      await close();
    }
  });
  await t.step("no elicitation capability", async () => {
    const { seen, sessionId, close, turn } = await connect(true);
    try {
      await turn(
        `@call ask_user ${
          JSON.stringify({ description: "asker", prompt: "Which colour?" })
        }\n@reply got {{results}}`,
      );
      // Nobody above the server answers: refused, as before elicitation.
      assert.match(textUnder(seen, sessionId), /got refused: /);
      assert.doesNotMatch(textUnder(seen, sessionId), /ACP client/);
    } finally {
      await close();
    }
  });
});

Deno.test("serveAcpAgent() logs a failed ask at warn, one its cancelled run withdrew at debug", async (t) => {
  const asking = `@call ask_user ${
    JSON.stringify({ description: "asker", prompt: "Which colour?" })
  }\n@reply got {{results}}`;
  const failedAsk = (level: string) =>
    new RegExp(` ${level}: Asking the ACP client for \\S+'s question failed`);
  await t.step("the client fails the elicitation: warn", async () => {
    const { seen, sessionId, close, turn, log } = await connect(true, undefined, [
      "--log=debug",
    ], () => {
      throw new Error("the client broke");
    });
    try {
      await within(turn(asking), "the turn");
      assert.match(textUnder(seen, sessionId), /got refused: the ACP client did not answer/);
    } finally {
      await close();
    }
    assert.match(log(), failedAsk("warn"));
  });
  await t.step("the turn is cancelled while the client is asked: debug", async () => {
    let asked!: () => void;
    const whenAsked = new Promise<void>((resolve) => asked = resolve);
    let release!: (answer: acp.CreateElicitationResponse) => void;
    const unanswered = new Promise<acp.CreateElicitationResponse>((resolve) => release = resolve);
    const { sessionId, close, turn, cancelChild, log } = await connect(true, undefined, [
      "--log=debug",
    ], () => {
      asked();
      return unanswered;
    });
    try {
      const answer = turn(asking);
      await within(whenAsked, "the elicitation");
      await cancelChild(sessionId); // the session's own turn: its runs' asks are withdrawn
      assert.equal((await within(answer, "the cancelled turn")).stopReason, "cancelled");
    } finally {
      release({ action: "cancel" });
      await close();
    }
    assert.match(log(), failedAsk("debug"));
    assert.doesNotMatch(log(), failedAsk("warn"));
  });
});
