import { type Agent, deepFreeze, type Host, refuseUnknownOptions, type Tool } from "@seam/host";
import { acpPlan, type AcpPlanEntry } from "./events.ts";
import type { AcpSessionInfo } from "./server/types.ts";

/** Options of {@linkcode createAcpPlanTool}. */
export interface AcpPlanToolOptions {
  /** The tool's name. Default `"update_plan"`. */
  readonly name?: string;
  /** What the model reads about it. Default: a short instruction to keep the plan current. */
  readonly description?: string;
}

/** The arguments of the plan tool. */
export interface AcpPlanToolArgs {
  /** The whole plan, in order (it replaces the previous one). */
  readonly entries: readonly AcpPlanEntry[];
}

const DEFAULT_DESCRIPTION =
  "Show the user your plan for a multi-step task, as a list of steps with a priority and a status. " +
  "Send the whole plan each time (it replaces the previous one) and update it as steps progress.";

/**
 * A tool through which a model reports its plan: each call emits
 * {@linkcode acpPlan} in the calling agent's scope, which
 * {@linkcode serveAcpAgent} sends to its client as a `plan` update (editors
 * show it as a checklist). Register it in a session agent's scope (the
 * server's `setup`), or anywhere above it.
 *
 * @param options The tool's name and description.
 * @returns The tool; its result tells the model the plan was shown.
 * @throws {TypeError} for an unknown option, naming it and the known ones.
 *
 * @example Give every served session a plan tool
 * ```ts ignore
 * import { createAcpPlanTool, serveAcpAgent } from "@seam/subagent-acp";
 *
 * serveAcpAgent({
 *   host,
 *   streams,
 *   model: "scripted",
 *   setup: (agent) => void host.tools.register(agent.scope, createAcpPlanTool()),
 * });
 * ```
 */
export function createAcpPlanTool(options: AcpPlanToolOptions = {}): Tool<AcpPlanToolArgs> {
  refuseUnknownOptions(
    "create the ACP plan tool",
    options,
    [
      "name",
      "description",
    ] satisfies (keyof AcpPlanToolOptions)[],
  );
  return {
    name: options.name ?? "update_plan",
    description: options.description ?? DEFAULT_DESCRIPTION,
    parameters: {
      type: "object",
      properties: {
        entries: {
          type: "array",
          description: "Every step of the plan, in order.",
          items: {
            type: "object",
            properties: {
              content: { type: "string", description: "What the step is." },
              priority: { type: "string", enum: ["high", "medium", "low"] },
              status: { type: "string", enum: ["pending", "in_progress", "completed"] },
            },
            required: ["content", "priority", "status"],
            additionalProperties: false,
          },
        },
      },
      required: ["entries"],
      additionalProperties: false,
    },
    execute({ entries }, call) {
      call.agent.scope.emit(
        acpPlan,
        deepFreeze({
          agentId: call.agent.id,
          entries: entries.map(({ content, priority, status }) => ({ content, priority, status })),
        }),
      );
      const done = entries.filter((entry) => entry.status === "completed").length;
      return { content: `Plan shown: ${entries.length} steps, ${done} completed.` };
    },
  };
}

/**
 * The session setup of a general assistant served over ACP (`seam acp`, and
 * the bundled `serve.ts`): each session's agent gets a prompt naming the
 * user's working directory and asking for a plan on multi-step work, and
 * one {@linkcode createAcpPlanTool} shared by every session.
 *
 * @param host The host the sessions' agents run in.
 * @returns What {@linkcode serveAcpAgent}'s `setup` takes.
 *
 * @example
 * ```ts ignore
 * import { createAcpAssistantSetup, serveAcpAgent } from "@seam/subagent-acp";
 *
 * serveAcpAgent({ host, streams, model: "scripted", setup: createAcpAssistantSetup(host) });
 * ```
 */
export function createAcpAssistantSetup(
  host: Host,
): (agent: Agent, session: AcpSessionInfo) => void {
  const plan = createAcpPlanTool();
  return (agent, { cwd }) => {
    host.prompts.register(agent.scope, {
      name: "acp",
      text: "You are a helpful assistant, served by seam over the Agent Client Protocol. " +
        `The user's working directory is ${cwd}. Use update_plan to show your plan for a multi-step task.`,
    });
    host.tools.register(agent.scope, plan);
  };
}
