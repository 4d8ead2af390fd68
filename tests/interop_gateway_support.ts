/**
 * The seam side for the interop tests whose peer is a client: `serveGateway`
 * on loopback (answering A2A 0.3 beside 1.0, as `seam serve` does) over
 *
 * - `spawn` (the default provider), a fresh in-process child on the scripted
 *   model: the prompt's directives answer (`@reply hi`, `@hang`,
 *   `@fail why`); a prompt without any replies `heard: <each user message
 *   of the conversation, joined by " | ">`, so a follow-up that continues
 *   the conversation shows it;
 * - `asks`, whose child asks its parent a question (the prompt) and replies
 *   `reading <answer>`: behind the gateway, the task's `INPUT_REQUIRED`.
 */
import {
  createHost,
  createMemoryLogger,
  createScriptedModel,
  type Host,
  type ModelMessage,
  textOf,
} from "@seam/host";
import {
  createSubagentService,
  type SubagentInputAnswer,
  type SubagentProvider,
} from "@seam/subagent";
import { createSpawnProvider } from "@seam/subagent-spawn";
import type { Gateway, GatewayOptions } from "../gateway/mod.ts";
import { serveGateway } from "../gateway/serve.ts";
import { askingProvider } from "./asking_support.ts";

/** A served gateway for a peer's client. */
export interface InteropGateway {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly gateway: Gateway;
  readonly host: Host;
  /** The questions `asks` children asked. */
  readonly asked: readonly string[];
  /** The answers `asks` children heard, in order. */
  readonly answers: readonly SubagentInputAnswer[];
  /**
   * In-process children alive behind the gateway (a completed run's child
   * stays, kept for a follow-up, until `keptRunIdleMs`).
   */
  children(): number;
  close(): Promise<void>;
}

function userTexts(messages: readonly ModelMessage[]): string[] {
  return messages.filter((m) => m.role === "user").map((m) => textOf(m.content).trim());
}

/** A provider whose child asks its parent the prompt as a question, then reads the answer. */
function readingProvider(asked: string[], answers: SubagentInputAnswer[]): SubagentProvider {
  return askingProvider("asks", async ({ request, ask }) => {
    const question = textOf(request.prompt).trim();
    asked.push(question);
    await Promise.resolve();
    const answer = await ask({ kind: "question", message: question });
    answers.push(answer);
    if (answer.outcome === "answered") {
      return { output: `reading ${answer.text}`, stopReason: "completed" };
    }
    const why = answer.outcome === "refused" ? answer.reason : answer.optionId;
    return { output: `not reading (${why})`, stopReason: "aborted" };
  });
}

/** Serve the gateway on an OS-chosen loopback port. */
export function serveInteropGateway(options: Partial<GatewayOptions> = {}): InteropGateway {
  const host = createHost({ logger: createMemoryLogger().logger });
  const model = createScriptedModel({
    script: ({ request, prompt }) =>
      prompt.trimStart().startsWith("@")
        ? undefined
        : { reply: `heard: ${userTexts(request.messages).join(" | ")}` },
  });
  host.models.register(host.scope, "scripted", model);
  const subagents = createSubagentService(host.scope);
  subagents.registerProvider(createSpawnProvider());
  const asked: string[] = [];
  const answers: SubagentInputAnswer[] = [];
  subagents.registerProvider(readingProvider(asked, answers));
  const served = serveGateway(
    {
      scope: host.scope,
      agentOptions: { model: "scripted" },
      defaultProvider: "spawn",
      ...options,
    },
    { port: 0, quiet: true },
  );
  let closing: Promise<void> | undefined;
  return {
    url: served.url,
    gateway: served.gateway,
    host,
    asked,
    answers,
    children: () => host.agents.list().length,
    close() {
      return closing ??= (async () => {
        await served.shutdown();
        await host.scope.dispose();
      })();
    },
  };
}
