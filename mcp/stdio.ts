/**
 * Serve an {@linkcode McpServer} over stdin and stdout (the way coding agents
 * start MCP servers): newline-delimited JSON-RPC on byte streams, by default
 * this process's own (Deno's `Deno.stdin`/`Deno.stdout`, or Node's through
 * `Readable.toWeb`).
 *
 * @example
 * ```ts ignore
 * import { createMcpServer } from "@seam/mcp";
 * import { serveMcpStdio } from "@seam/mcp/stdio";
 *
 * const connection = await serveMcpStdio(createMcpServer({ scope }));
 * await connection.closed; // the client went away; its runs were cancelled
 * ```
 *
 * @module
 */
import { refuseUnknownOptions } from "@seam/host";
import { StreamTransport } from "./_stream_transport.ts";
import type { McpConnection, McpServer, McpTransport } from "./types.ts";

/** Options of {@linkcode serveMcpStdio}. */
export interface McpStdioOptions {
  /** Where messages come from (default: this process's stdin). */
  readonly input?: ReadableStream<Uint8Array>;
  /** Where messages go (default: this process's stdout). */
  readonly output?: WritableStream<Uint8Array>;
}

/**
 * Connect `server` to stdin/stdout (or the streams given). The connection's
 * `closed` resolves once the input ends (the client went away); its runs
 * are cancelled then. A process serving stdio should exit after that: a
 * write to a client that never read may still be pending.
 *
 * @param server The server to serve.
 * @param options Other streams than this process's.
 * @returns The connection (principal `local`).
 * @throws {TypeError} (a rejection) for an unknown option, naming it and the known ones.
 */
export async function serveMcpStdio(
  server: McpServer,
  options: McpStdioOptions = {},
): Promise<McpConnection> {
  // A misspelt `input` would otherwise serve this process's stdin instead.
  refuseUnknownOptions("serve MCP over stdio", options, ["input", "output"]);
  const input = options.input ?? await processStream("stdin");
  const output = options.output ?? await processStream("stdout");
  const connection = await server.connect(
    new StreamTransport(input as ReadableStream<Uint8Array>, output as WritableStream<Uint8Array>),
  );
  // The input ended: end the connection (its calls are cancelled).
  connection.closed.then(() => connection.close());
  return connection;
}

/**
 * An MCP transport over a pair of byte streams with the stdio framing
 * (newline-delimited JSON-RPC), for either side: what `serveMcpStdio` serves
 * on, and what connects the official `Client` to a server process's pipes
 * (`createStreamTransport(child.stdout, child.stdin)`). Writes are
 * asynchronous (a peer that never reads stalls only them); a line over
 * 10 MiB fails the connection; `close()` ends the output once flushed.
 *
 * @param input Where messages come from.
 * @param output Where messages go.
 * @returns The transport (the official SDK's `Transport` shape).
 */
export function createStreamTransport(
  input: ReadableStream<Uint8Array>,
  output: WritableStream<Uint8Array>,
): McpTransport {
  return new StreamTransport(input, output);
}

async function processStream(
  which: "stdin" | "stdout",
): Promise<ReadableStream<Uint8Array> | WritableStream<Uint8Array>> {
  const deno = (globalThis as { Deno?: typeof Deno }).Deno;
  if (deno) return which === "stdin" ? deno.stdin.readable : deno.stdout.writable;
  const process = await import("node:process");
  const { Readable, Writable } = await import("node:stream");
  return which === "stdin"
    ? Readable.toWeb(process.stdin) as unknown as ReadableStream<Uint8Array>
    : Writable.toWeb(process.stdout) as WritableStream<Uint8Array>;
}
