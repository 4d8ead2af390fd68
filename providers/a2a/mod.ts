/**
 * `a2a`: the child runs on a remote A2A v1.0 agent — another seam gateway
 * (the gateway seen from the other side) or anyone's A2A agent, over
 * JSON-RPC or HTTP+JSON, through the `@a2a-js/sdk` client (A2A 0.3 agents
 * through its compatibility layer).
 *
 * {@linkcode createA2AProvider} reads the agent card once and returns the
 * provider: its capabilities mirror the remote seam provider's (none for
 * other agents), runs stream the task (or poll it), streamed text becomes
 * `subagent/progress`, the task's end becomes the result (the exact stop
 * reason from a seam gateway), `cancel` sends `CancelTask`, a dropped stream
 * is re-attached with `SubscribeToTask`, and `resume` continues the task's
 * context. A task waiting for input (`INPUT_REQUIRED`, `AUTH_REQUIRED`)
 * becomes an input request in the parent's scope (`handleSubagentInput`,
 * `run.respond`), with its path from the root across every hop; the answer
 * goes back on the same task and the run goes on. A depth cap set at the top travels in the seam extension, so it
 * holds through every hop. Every run ends, bounded (`timeoutMs`,
 * `idleTimeoutMs`, `deadlineMs`, `maxOutputChars`), and no request follows
 * a redirect or an interface URL other than `http:`/`https:`.
 *
 * Permissions: `--allow-net` for the agent's host (none with a custom
 * `fetch` that stays in-process).
 *
 * @example
 * ```ts ignore
 * import { createRootScope } from "@seam/host";
 * import { createSubagentService } from "@seam/subagent";
 * import { createA2AProvider } from "@seam/subagent-a2a";
 *
 * const root = createRootScope();
 * const subagents = createSubagentService(root);
 * const remote = await createA2AProvider({
 *   url: "https://agents.example.com/spawn", // a seam gateway's provider card
 *   token: Deno.env.get("GATEWAY_TOKEN"),
 *   name: "remote",
 * });
 * subagents.registerProvider(remote);
 * root.onDispose(() => remote.dispose());
 *
 * const run = subagents.start("remote", {
 *   prompt: "Summarize the attached report in three bullet points",
 *   parent: { id: "main", scope: root },
 * });
 * try {
 *   console.log((await run.result).output);
 * } finally {
 *   await run.dispose();
 * }
 * await root.dispose();
 * ```
 *
 * @module
 */
export * from "./provider.ts";
export * from "./types.ts";
