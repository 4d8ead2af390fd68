// The agent side of ACP: a host agent per session, served over any pair of
// byte streams. Runtime-neutral (web streams and the SDK only): the stdio
// entry is `serve.ts`. The connection, its sessions and their slots are the
// classes of `server/`.
import { AcpServerConnection } from "./server/_connection.ts";
import { checkOptions } from "./server/_options.ts";
import type { AcpServer, AcpServerOptions } from "./server/types.ts";

export type {
  AcpServer,
  AcpServerOptions,
  AcpServerStreams,
  AcpSessionInfo,
} from "./server/types.ts";

/**
 * Serve host agents as an ACP agent (the Agent Client Protocol, version 1)
 * over `streams`: an editor (Zed, …) or another seam host (through
 * `createAcpProvider`) drives them as an ACP client. Runtime-neutral: any
 * pair of web byte streams will do; `serve.ts` in this package serves over
 * stdio.
 *
 * - `initialize` answers protocol version 1, prompt capabilities `image`
 *   and `embeddedContext` (text, images, resource links, embedded text
 *   resources; not audio, nor binary resources), `session/close`, no
 *   `session/load`, no MCP transport, no authentication.
 * - `session/new` creates a host agent (`options.model`, id = the new
 *   session id, in `parentScope`) and runs `setup` on it. MCP servers the
 *   client passes are not connected (a warning is logged).
 * - `session/prompt` runs one turn and streams, while it runs, its text as
 *   `agent_message_chunk`s, its tool calls as `tool_call` (in progress) and
 *   `tool_call_update` (completed or failed, with the result's content), and
 *   the plans it reports ({@linkcode acpPlan}) as `plan` updates; every
 *   update is written before the answer. The answer's stop reason maps the
 *   turn's end: `completed` → `end_turn`, `max-tokens` → `max_tokens`,
 *   `refusal` → `refusal`, `aborted` → `cancelled`. A failed turn (`error`)
 *   is answered with a JSON-RPC error (code -32603, message `The agent's
 *   turn failed: <why>`, data `{reason: "error"}`) after the text streamed
 *   so far, so a client tells a failure from a normal end
 *   (`createAcpProvider` ends the run `error` with the partial output). One
 *   prompt at a time per session: another one meanwhile is refused.
 * - `session/cancel` (or a `$/cancel_request` of the prompt) cancels the
 *   turn; the prompt is answered `cancelled`, whatever the turn ended with.
 * - `session/close` cancels a running turn and disposes the session's
 *   agent. At most `maxSessions` (default 64) sessions are held at once,
 *   counting those being created: a `session/new` past it gets error
 *   -32603 saying the limit is reached and that `session/close` frees one
 *   (`data: {reason: "maxSessions", maxSessions}`).
 * - A request naming an unknown session gets error -32002 (resource not
 *   found; the client's id quoted cut to 200 characters, as in log lines);
 *   bad params get -32602. An answer from the client (the server sends it
 *   no requests) is ignored, logged at debug with its id cut.
 * - A client that does not read what it is sent is not read from: while
 *   1 MiB of output waits for it, the server reads no more of its input;
 *   more output while 16 MiB waits (the updates of turns it started) ends
 *   the connection, as its EOF does, with a warning logged.
 * - When the client closes its end (EOF), or on {@linkcode AcpServer.close},
 *   every session agent is disposed, the output is closed (on EOF once the
 *   client took what was queued for it) and `closed` fulfils.
 *
 * @param options The host, the streams, the model and the per-session setup.
 * @returns The running server.
 * @throws {TypeError} for a bad option, naming it.
 *
 * @example Serve over in-memory streams and prompt with the SDK's client
 * ```ts
 * import * as acp from "@agentclientprotocol/sdk";
 * import { createHost, createMemoryLogger, createScriptedModel } from "@seam/host";
 * import { serveAcpAgent } from "@seam/subagent-acp";
 * import assert from "node:assert/strict";
 *
 * const host = createHost({ logger: createMemoryLogger().logger });
 * host.models.register(host.scope, "scripted", createScriptedModel());
 * const toServer = new TransformStream<Uint8Array, Uint8Array>();
 * const toClient = new TransformStream<Uint8Array, Uint8Array>();
 * const server = serveAcpAgent({
 *   host,
 *   model: "scripted",
 *   streams: { readable: toServer.readable, writable: toClient.writable },
 * });
 *
 * let text = "";
 * const client = acp.client({ name: "example" })
 *   .onNotification(acp.methods.client.session.update, ({ params }) => {
 *     const { update } = params;
 *     if (update.sessionUpdate === "agent_message_chunk" && update.content.type === "text") {
 *       text += update.content.text;
 *     }
 *   })
 *   .connect(acp.ndJsonStream(toServer.writable, toClient.readable));
 * await client.agent.request(acp.methods.agent.initialize, { protocolVersion: 1 });
 * const { sessionId } = await client.agent.request(acp.methods.agent.session.new, {
 *   cwd: "/",
 *   mcpServers: [],
 * });
 * const { stopReason } = await client.agent.request(acp.methods.agent.session.prompt, {
 *   sessionId,
 *   prompt: [{ type: "text", text: "@reply Hello over ACP" }],
 * });
 * assert.equal(stopReason, "end_turn");
 * assert.equal(text, "Hello over ACP");
 *
 * await toServer.writable.close(); // EOF: the server disposes its agents and stops
 * await server.closed;
 * assert.equal(host.agents.list().length, 0);
 * await client.closed;
 * await host.scope.dispose();
 * ```
 */
export function serveAcpAgent(options: AcpServerOptions): AcpServer {
  checkOptions(options);
  const connection = new AcpServerConnection(options);
  return Object.freeze({ closed: connection.closed, close: () => connection.close() });
}
