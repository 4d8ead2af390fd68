/**
 * Google ADK 2.0.0 as a peer of the interop test (`tests/interop_adk_test.ts`),
 * in a process of its own: importing `@google/adk` loads `@mikro-orm/core`
 * (its database sessions), whose `fast-glob` reads `os.cpus()` as it loads,
 * which the tests' `--allow-sys=hostname,homedir` refuses ("NotCapable:
 * Requires sys access to \"cpus\""). Everything here is ADK's own code but
 * the model, a `BaseLlm` answering from a script (ADK ships no test model).
 *
 * - `serve`: ADK's A2A server (`toA2a` on Express, loopback, an OS-chosen
 *   port) for an `LlmAgent` with a long-running tool. Prints `{url}`; on the
 *   line `open` it lets the `wait` turn finish and prints `{waited: true}`
 *   once it has.
 * - `client <base-url>`: ADK's `RemoteA2AAgent` in an `InMemoryRunner`. Each
 *   line `{session: true}` prints `{session}` (a new ADK session); each line
 *   `{session, say}` runs one user turn and prints `{said, error}`.
 *
 * Lines out start with `@@ ` (ADK may print its own). Stdin's end stops it.
 */
import process from "node:process";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import {
  BaseLlm,
  InMemoryRunner,
  LlmAgent,
  type LlmRequest,
  type LlmResponse,
  LogLevel,
  LongRunningFunctionTool,
  setLogLevel,
} from "@google/adk";
import { RemoteA2AAgent, toA2a } from "@google/adk/a2a";
import express from "express";

// ADK warns on every A2A request that a remote peer cannot answer a tool confirmation.
setLogLevel(LogLevel.ERROR);

const out = (value: unknown) => console.log(`@@ ${JSON.stringify(value)}`);

let openGate!: () => void;
const gate = new Promise<void>((resolve) => openGate = resolve);

const reply = (text: string): LlmResponse => ({ content: { role: "model", parts: [{ text }] } });

/**
 * The script, by the latest user text: `echo <words>` streams "echo:
 * <words>" in chunks; `count` says how many `count`s the session holds;
 * `expense` calls the long-running tool `approve_expense` and, given its
 * response, says it; `throw` throws; `wait` answers once the gate opens.
 */
class ScriptedLlm extends BaseLlm {
  constructor() {
    super({ model: "scripted" });
  }
  override async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse, void> {
    const last = request.contents.at(-1);
    const response = last?.parts?.find((p) => p.functionResponse)?.functionResponse;
    if (response) {
      yield reply(`expense ${JSON.stringify(response.response)}`);
      return;
    }
    const said = last?.parts?.map((p) => p.text ?? "").join("") ?? "";
    const [verb, ...rest] = said.split(" ");
    switch (verb) {
      case "echo":
        yield { ...reply("echo: "), partial: true };
        yield { ...reply(rest.join(" ")), partial: true };
        yield reply(`echo: ${rest.join(" ")}`);
        return;
      case "count": {
        const turns = request.contents.filter((c) =>
          c.role === "user" && c.parts?.some((p) => p.text === "count")
        );
        yield reply(`turn ${turns.length}`);
        return;
      }
      case "expense":
        yield {
          content: {
            role: "model",
            parts: [{ functionCall: { name: "approve_expense", args: { amount: 120 } } }],
          },
        };
        return;
      case "throw":
        throw new Error("the model fell over");
      case "wait":
        await gate;
        yield reply("waited");
        queueMicrotask(() => out({ waited: true }));
        return;
      default:
        yield reply(`unknown: ${said}`);
    }
  }
  override connect(): Promise<never> {
    return Promise.reject(new Error("the scripted model has no live connection"));
  }
}

/** Each line of stdin, parsed, until it ends. */
async function* lines(): AsyncGenerator<Record<string, unknown>> {
  let buffer = "";
  for await (const chunk of process.stdin) {
    buffer += String(chunk);
    let end;
    while ((end = buffer.indexOf("\n")) !== -1) {
      const line = buffer.slice(0, end).trim();
      buffer = buffer.slice(end + 1);
      if (line !== "") yield JSON.parse(line);
    }
  }
}

async function serve(): Promise<void> {
  const agent = new LlmAgent({
    name: "expenses",
    description: "an ADK agent on a scripted model",
    model: new ScriptedLlm(),
    instruction: "Follow the script.",
    tools: [
      new LongRunningFunctionTool({
        name: "approve_expense",
        description: "Asks a person to approve an expense; the answer comes later.",
        execute: () => undefined,
      }),
    ],
  });
  const app = express();
  app.use(express.json());
  const server: Server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as AddressInfo;
  await toA2a(agent, { app, host: "127.0.0.1", port, allowUnauthenticated: true });
  out({ url: `http://127.0.0.1:${port}` });
  for await (const line of lines()) {
    if (line.open) openGate();
  }
  openGate();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

async function client(cardUrl: string): Promise<void> {
  const runner = new InMemoryRunner({
    agent: new RemoteA2AAgent({ name: "seam", description: "a seam gateway", agentCard: cardUrl }),
    appName: "interop",
  });
  for await (const line of lines()) {
    if (line.say === undefined) {
      const session = await runner.sessionService.createSession({
        appName: "interop",
        userId: "user",
      });
      out({ session: session.id });
      continue;
    }
    let said = "";
    let error = "";
    for await (
      const event of runner.runAsync({
        userId: "user",
        sessionId: String(line.session),
        newMessage: { role: "user", parts: [{ text: String(line.say) }] },
      })
    ) {
      said += event.content?.parts?.map((p) => p.text ?? "").join("") ?? "";
      if (event.errorMessage) error += event.errorMessage;
    }
    out({ said, error });
  }
}

const [mode, arg] = process.argv.slice(2);
if (mode === "serve") await serve();
else if (mode === "client") await client(arg);
else throw new Error(`usage: adk_peer.ts serve | client <base-url> (got ${mode})`);
process.exit(0);
