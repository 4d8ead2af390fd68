/**
 * `seam tasks <url> [list | get <id> | cancel <id>]`: the tasks an A2A agent
 * keeps for the caller (a seam gateway keeps each principal's), through the
 * `@a2a-js/sdk` client: `ListTasks`, `GetTask`, `CancelTask`.
 *
 * @module
 */
import { type CliCommand, complain, envOf, out } from "./command.ts";
import { type FlagSpec, intFlag, parseArgs, UsageError, usageOf } from "./args.ts";

const FLAGS: readonly FlagSpec[] = [
  {
    name: "token-env",
    kind: "value",
    value: "VAR",
    help: "the variable holding the bearer token (default SEAM_TOKEN)",
  },
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

/** The usage `seam tasks --help` prints. */
export const TASKS_USAGE: string = usageOf(
  "seam tasks [options] <url> [list | get <task-id> | cancel <task-id>]",
  `List the tasks the A2A agent at <url> keeps for you (the default), show one with its status and
output, or cancel one. Exit status: 0 done, 1 the agent refused or could not be reached, 2 bad usage.`,
  FLAGS,
);

const ACTIONS = ["list", "get", "cancel"] as const;

/** `seam tasks`. */
export const tasksCommand: CliCommand = {
  name: "tasks",
  summary: "list, show or cancel the tasks of an A2A agent",
  async run(args) {
    const { flags, positionals } = parseArgs(args, FLAGS);
    if (flags.help) {
      out(TASKS_USAGE);
      return 0;
    }
    const [url, action = "list", id, ...rest] = positionals;
    if (url === undefined) throw new UsageError("needs a URL: seam tasks <url> [list|get|cancel]");
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) {
      throw new UsageError(`<url> must be an http(s) URL, got "${url}"`);
    }
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
    const tokenVariable = typeof flags["token-env"] === "string"
      ? flags["token-env"]
      : "SEAM_TOKEN";
    const token = envOf(tokenVariable) || undefined;
    if (flags["token-env"] !== undefined && token === undefined) {
      throw new UsageError(`--token-env ${tokenVariable}: that variable is not set`);
    }
    const { connect } = await import("./_a2a_client.ts");
    let client;
    try {
      client = await connect(url, token, timeoutMs);
    } catch (error) {
      complain("tasks", `Cannot reach the A2A agent at ${url}: ${messageOf(error)}`);
      return 1;
    }
    const tenant = typeof flags.provider === "string" ? flags.provider : "";
    const json = flags.json === true;
    try {
      if (action === "list") {
        const page = await client.list({
          tenant,
          contextId: typeof flags.context === "string" ? flags.context : "",
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
};

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
