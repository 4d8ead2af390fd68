/**
 * `seam tasks <url> [list | get <id> | cancel <id>]`: the tasks an A2A agent
 * keeps for the caller (a seam gateway keeps each principal's), through the
 * `@a2a-js/sdk` client: `ListTasks`, `GetTask`, `CancelTask`.
 *
 * @module
 */
import { complain, out } from "./command.ts";
import { type FlagSpec, intFlag, UsageError } from "./args.ts";
import { defineCommand, type DefinedCommand, stringFlag } from "./_command.ts";
import { assertHttpUrl, TOKEN_ENV_FLAG, tokenOf } from "./_remote_flags.ts";

const FLAGS: readonly FlagSpec[] = [
  TOKEN_ENV_FLAG,
  {
    name: "provider",
    kind: "value",
    value: "NAME",
    help: "a seam gateway's provider (the request's tenant)",
  },
  { name: "context", kind: "value", value: "ID", help: "list: only the tasks of this context" },
  { name: "limit", kind: "value", value: "N", help: "list: at most N tasks, 1-100 (50)" },
  { name: "timeout", kind: "value", value: "MS", help: "the most a request may take (30000)" },
  { name: "json", kind: "switch", help: "print the answer as JSON" },
];

const ACTIONS = ["list", "get", "cancel"] as const;

/** `seam tasks`. */
export const tasksCommand: DefinedCommand = defineCommand({
  name: "tasks",
  summary: "list, show or cancel the tasks of an A2A agent",
  synopsis: "seam tasks [options] <url> [list | get <task-id> | cancel <task-id>]",
  description:
    `List the tasks the A2A agent at <url> keeps for you (the default), show one with its status and
output, or cancel one. Exit status: 0 done, 1 the agent refused or could not be reached, 2 bad usage.`,
  flags: FLAGS,
  positionals: true,
  async run({ flags, positionals }) {
    const [url, action = "list", id, ...rest] = positionals;
    if (url === undefined) throw new UsageError("needs a URL: seam tasks <url> [list|get|cancel]");
    assertHttpUrl(url);
    if (!(ACTIONS as readonly string[]).includes(action)) {
      throw new UsageError(`unknown action "${action}" (known: ${ACTIONS.join(", ")})`);
    }
    if (action !== "list" && id === undefined) {
      throw new UsageError(`${action} needs a task id: seam tasks <url> ${action} <task-id>`);
    }
    if ((action === "list" && id !== undefined) || rest.length > 0) {
      throw new UsageError(`too many arguments: "${[id, ...rest].filter(Boolean).join(" ")}"`);
    }
    const timeoutMs = intFlag(flags, "timeout", 30_000, 1)!;
    const limit = intFlag(flags, "limit", 50, 1, 100)!;
    const token = tokenOf(flags);
    const { connect } = await import("./_a2a_client.ts");
    let client;
    try {
      client = await connect(url, token, timeoutMs);
    } catch (error) {
      complain("tasks", `Cannot reach the A2A agent at ${url}: ${messageOf(error)}`);
      return 1;
    }
    const tenant = stringFlag(flags, "provider") ?? "";
    const json = flags.json === true;
    try {
      if (action === "list") {
        const page = await client.list({
          tenant,
          contextId: stringFlag(flags, "context") ?? "",
          pageSize: limit,
        });
        if (json) out(`${JSON.stringify(page.tasks, null, 2)}\n`);
        else if (page.tasks.length === 0) out("no tasks\n");
        else for (const task of page.tasks) out(`${task.line}\n`);
        return 0;
      }
      const task = action === "get"
        ? await client.get({ tenant, id: id! })
        : await client.cancel({ tenant, id: id! });
      out(json ? `${JSON.stringify(task, null, 2)}\n` : `${task.line}\n${task.detail}`);
      return 0;
    } catch (error) {
      const what = action === "list" ? "list the tasks" : `${action} task ${id}`;
      complain("tasks", `Cannot ${what} at ${url}: ${messageOf(error)}`);
      return 1;
    }
  },
});

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
