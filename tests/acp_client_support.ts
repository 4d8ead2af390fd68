// The ACP SDK's client (the unstable schema, with `subagent_update`) in front
// of seam's ACP server, for the tests that watch a session's updates: a client
// keeping every `session/update`, its session opened, and the server process
// (tests/testdata/acp_tree_server.ts) it may run against.
// The unstable schema: the stable one rejects `subagent_update`.
import * as acp from "@agentclientprotocol/sdk/unstable";
import { TEST_AGENT } from "./acp_support.ts";
import { spawnDenoScript } from "./spawn_support.ts";

/** Our ACP server whose agent delegates (to the test agent, an A2A card, ...). */
const TREE_SERVER = new URL("./testdata/acp_tree_server.ts", import.meta.url).pathname;

/** A `session/update`'s update. */
export type Update = Record<string, unknown> & { sessionUpdate: string };

/** A `session/update` the client received. */
export interface Seen {
  readonly sessionId: string;
  readonly update: Update;
}

/**
 * An SDK client named `name` on `stream`, keeping every `session/update` in
 * `seen`; `handlers` registers the client's request handlers, if any.
 */
export function acpClient(
  name: string,
  stream: acp.Stream,
  handlers: (app: acp.ClientApp) => acp.ClientApp = (app) => app,
): { client: acp.ClientConnection; seen: Seen[] } {
  const seen: Seen[] = [];
  const app = acp.client({ name })
    .onNotification(acp.methods.client.session.update, ({ params }) => {
      seen.push({ sessionId: params.sessionId, update: params.update as unknown as Update });
    });
  return { client: handlers(app).connect(stream), seen };
}

/** Initialize `client` declaring `capabilities`, then open a session: its id. */
export async function openSession(
  client: acp.ClientConnection,
  capabilities: Record<string, unknown>,
): Promise<string> {
  await client.agent.request(acp.methods.agent.initialize, {
    protocolVersion: 1,
    clientCapabilities: capabilities as acp.ClientCapabilities,
  });
  const { sessionId } = await client.agent.request(acp.methods.agent.session.new, {
    cwd: "/tmp",
    mcpServers: [],
  });
  return sessionId;
}

/** A tree server process and a client on it, its session open. */
export interface TreeServerSession {
  readonly child: Deno.ChildProcess;
  readonly client: acp.ClientConnection;
  readonly seen: Seen[];
  readonly sessionId: string;
  /** What the server wrote to stderr so far (when `stderr: "kept"`). */
  log(): string;
  /** End the process (its stdin closed; SIGKILL after 10 s), the client and the stderr copy. */
  close(): Promise<void>;
}

/**
 * tests/testdata/acp_tree_server.ts as a process over the test agent, with
 * `args`, and a client named `name` on it (see {@linkcode acpClient}) whose
 * session is open, `capabilities` declared. The server's stderr is inherited,
 * or (`"kept"`) passed on and kept for `log()`.
 */
export async function connectTreeServer(options: {
  readonly args: readonly string[];
  readonly stderr: "inherit" | "kept";
  readonly name: string;
  readonly capabilities: Record<string, unknown>;
  readonly handlers?: (app: acp.ClientApp) => acp.ClientApp;
}): Promise<TreeServerSession> {
  const child = spawnDenoScript(
    TREE_SERVER,
    ["--allow-env", "--allow-run", "--allow-read", "--allow-net=127.0.0.1"],
    [TEST_AGENT, ...options.args],
    { stderr: options.stderr === "kept" ? "piped" : "inherit" },
  );
  let logged = "";
  const stderrDone = options.stderr === "inherit" ? Promise.resolve() : child.stderr
    .pipeThrough(new TextDecoderStream()).pipeTo(
      new WritableStream({
        write(text) {
          logged += text;
          Deno.stderr.writeSync(new TextEncoder().encode(text));
        },
      }),
    ).catch(() => {});
  const { client, seen } = acpClient(
    options.name,
    acp.ndJsonStream(child.stdin, child.stdout),
    options.handlers,
  );
  const sessionId = await openSession(client, options.capabilities);
  const close = async () => {
    await child.stdin.close().catch(() => {});
    const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
    await child.status;
    clearTimeout(timer);
    await client.closed.catch(() => {});
    await stderrDone;
  };
  return { child, client, seen, sessionId, log: () => logged, close };
}

/** The agent's text in session `sessionId`. */
export function textUnder(seen: readonly Seen[], sessionId: string): string {
  return seen.filter((s) =>
    s.sessionId === sessionId && s.update.sessionUpdate === "agent_message_chunk"
  )
    .map((s) => (s.update.content as { text: string }).text).join("");
}
