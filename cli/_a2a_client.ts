// The A2A client of `seam tasks`: the @a2a-js/sdk client for the agent at a
// URL, every request (the card's too) bounded by a timeout and carrying the
// bearer token, and its tasks summed up in a line each.
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
} from "@a2a-js/sdk/client";
import { type Task, taskStateToJSON } from "@a2a-js/sdk";

/** A task as `seam tasks` prints it. */
export interface TaskSummary {
  readonly id: string;
  readonly contextId: string;
  readonly state: string;
  readonly updated: string | undefined;
  /** `id  STATE  time  first words`. */
  readonly line: string;
  /** The status message and the artifacts' text, a line each. */
  readonly detail: string;
}

/** What `seam tasks` asks of an agent. */
export interface TasksClient {
  list(request: { tenant: string; contextId: string; pageSize: number }): Promise<
    { tasks: TaskSummary[] }
  >;
  get(request: { tenant: string; id: string }): Promise<TaskSummary>;
  cancel(request: { tenant: string; id: string }): Promise<TaskSummary>;
}

/** The card's URL for `url`: itself when it names a `.json`, else its well-known card. */
export function cardUrlOf(url: string): string {
  return new URL(url).pathname.endsWith(".json")
    ? url
    : `${url.replace(/\/?$/, "/")}.well-known/agent-card.json`;
}

/** Read the card at `url` and make a client for it. */
export async function connect(
  url: string,
  token: string | undefined,
  timeoutMs: number,
): Promise<TasksClient> {
  const fetchImpl: typeof fetch = async (input, init) => {
    const headers = new Headers(init?.headers);
    if (token) headers.set("authorization", `Bearer ${token}`);
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout;
    const target = input instanceof Request ? input.url : String(input);
    let response: Response;
    try {
      response = await fetch(input, { ...init, headers, signal });
    } catch (error) {
      if (timeout.aborted) {
        throw new Error(`${target} did not answer within ${timeoutMs} ms (--timeout)`);
      }
      throw new Error(`${target}: ${error instanceof Error ? error.message : error}`);
    }
    if (response.status === 401 || response.status === 403) {
      await response.body?.cancel();
      throw new Error(
        `${target} answered HTTP ${response.status}: ${
          token ? "the token was refused" : "it needs a token"
        } (the bearer token is read from SEAM_TOKEN, or the variable --token-env names)`,
      );
    }
    return response;
  };
  const legacyCompat = { enabled: true };
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [
        new JsonRpcTransportFactory({ fetchImpl, legacyCompat }),
        new RestTransportFactory({ fetchImpl, legacyCompat }),
      ],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl, legacyCompat }),
    }),
  );
  const client = await factory.createFromUrl(cardUrlOf(url), "");
  return {
    async list({ tenant, contextId, pageSize }) {
      const page = await client.listTasks({
        tenant,
        contextId,
        status: 0, // TASK_STATE_UNSPECIFIED: every state
        pageSize,
        pageToken: "",
        statusTimestampAfter: undefined,
        includeArtifacts: false,
      });
      return { tasks: page.tasks.map(summarize) };
    },
    async get({ tenant, id }) {
      return summarize(await client.getTask({ tenant, id }));
    },
    async cancel({ tenant, id }) {
      return summarize(await client.cancelTask({ tenant, id, metadata: undefined }));
    },
  };
}

function textOfParts(parts: readonly { content?: { $case: string; value: unknown } }[]): string {
  return parts.map((part) => part.content?.$case === "text" ? String(part.content.value) : "")
    .join("");
}

function summarize(task: Task): TaskSummary {
  const state = taskStateToJSON(task.status?.state ?? 0).replace(/^TASK_STATE_/, "");
  const said = textOfParts(task.status?.message?.parts ?? []);
  const output = (task.artifacts ?? []).map((artifact) => textOfParts(artifact.parts)).join("\n");
  const first = (task.history?.[0] ? textOfParts(task.history[0].parts) : output || said)
    .replace(/\s+/g, " ").trim().slice(0, 60);
  const updated = task.status?.timestamp;
  return {
    id: task.id,
    contextId: task.contextId,
    state,
    updated,
    line: [task.id, state.padEnd(14), updated ?? "-", first].join("  "),
    detail: [said && `status: ${said}`, output && `output: ${output}`].filter(Boolean)
      .map((line) => `${line}\n`).join(""),
  };
}
