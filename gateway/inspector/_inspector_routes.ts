/**
 * The run inspector's HTTP side, under `{basePath}/_inspect`: the page and
 * its two modules (static, no data), and behind the gateway's auth the event
 * stream, a task's history, cancel and answer. Each principal reaches only
 * its own tasks (the engine's `find` checks the owner).
 */
import { isRecord } from "@seam/host";
import type { Logger } from "@seam/host";
import type { BearerAuth } from "../http/_auth.ts";
import { type BodyLimits, isJsonContentType, readJsonBody } from "../http/_body.ts";
import type { Found, Sent } from "../core/_home.ts";
import { GatewayError, internalError, invalidParams, toGatewayError } from "../core/_errors.ts";
import { json, restErrorResponse } from "../http/_http.ts";
import { INSPECTOR_MODULE } from "./_inspector_module.ts";
import { inspectorPage } from "./_inspector_page.ts";
import { INSPECTOR_VIEW } from "./_inspector_view.ts";
import type { InspectorRecord } from "./_inspector_record.ts";
import { sseResponse } from "../http/_sse.ts";
import { stateWord } from "../core/_task_view.ts";
import { type ListParams, parseSendParams, type SendParams } from "../http/_validate.ts";
import { type A2ATask, SEAM_EXTENSION_URI } from "../types.ts";
import type { StoredTask } from "../task_store.ts";
import { listTasks } from "./_inspector_list.ts";

/** What the inspector's routes use of the engine (`core/_engine.ts:Engine`). */
export interface InspectedEngine {
  find(id: string, principal: string | undefined, tenant: string | undefined): Promise<Found>;
  cancel(id: string, principal: string | undefined, tenant: string | undefined): Promise<A2ATask>;
  view(record: StoredTask): A2ATask;
  send(params: SendParams, principal: string | undefined): Promise<Sent>;
  /** A page of tasks, as `ListTasks` reads them (all instances' on a shared store). */
  list(params: ListParams, principal: string | undefined): Promise<Record<string, unknown>>;
}

/** What the inspector's routes answer from. */
export interface InspectorRoutesOptions {
  readonly record: InspectorRecord;
  readonly engine: InspectedEngine;
  readonly auth: BearerAuth | undefined;
  readonly body: BodyLimits;
  readonly logger: Logger;
  readonly basePath: string;
  /** Whether the gateway is closing. */
  readonly closed: () => boolean;
}

/** The page's own headers: nothing but its module runs, nothing else is fetched. */
const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-cache",
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
} as const;

const MODULE_HEADERS = {
  "content-type": "text/javascript; charset=utf-8",
  "cache-control": "no-cache",
  "x-content-type-options": "nosniff",
} as const;

const TASK_ROUTE = /^\/tasks\/([^/]{1,200})(?:\/(cancel|answer))?$/;

/** The inspector's routes (see the module doc). */
export class InspectorRoutes {
  readonly #options: InspectorRoutesOptions;
  readonly #page: string;
  readonly #prefix: string;

  constructor(options: InspectorRoutesOptions) {
    this.#options = options;
    this.#prefix = `${options.basePath}/_inspect`;
    this.#page = inspectorPage(this.#prefix, options.auth !== undefined);
  }

  /** Whether `url`'s path is `{basePath}/_inspect` or below it. */
  owns(url: string): boolean {
    const path = new URL(url).pathname;
    return path === this.#prefix || path.startsWith(`${this.#prefix}/`);
  }

  /** Answer a request whose path is `{basePath}/_inspect` or below it. */
  async handle(request: Request): Promise<Response> {
    try {
      return await this.#route(request);
    } catch (error) {
      return restErrorResponse(toGatewayError(error, this.#options.logger));
    }
  }

  async #route(request: Request): Promise<Response> {
    const path = new URL(request.url).pathname.slice(this.#prefix.length);
    // A HEAD is answered as its GET (the gateway drops the body).
    const method = request.method === "HEAD" ? "GET" : request.method;
    if (path === "" || path === "/") {
      allow(method, "GET");
      return new Response(this.#page, { headers: PAGE_HEADERS });
    }
    if (path === "/app.js" || path === "/view.js") {
      allow(method, "GET");
      const module = path === "/app.js" ? INSPECTOR_MODULE : INSPECTOR_VIEW;
      return new Response(module, { headers: MODULE_HEADERS });
    }
    if (this.#options.closed()) {
      throw internalError("The gateway is closed", { httpStatus: 503 });
    }
    if (path === "/events") {
      allow(method, "GET");
      const principal = await this.#options.auth?.principalOf(request);
      return sseResponse(this.#options.record.subscribe(principal).body);
    }
    if (path === "/tasks") {
      allow(method, "GET");
      const principal = await this.#options.auth?.principalOf(request);
      const record = this.#options.record;
      const here = (id: string) => record.runsOf(principal, id) !== undefined;
      const engine = this.#options.engine;
      return json(await listTasks((p, who) => engine.list(p, who), principal, here));
    }
    const match = TASK_ROUTE.exec(path);
    if (!match) {
      throw new GatewayError("methodNotFound", `Not found: ${path.slice(0, 100)}`, {
        httpStatus: 404,
      });
    }
    let id: string;
    try {
      id = decodeURIComponent(match[1]);
    } catch {
      throw invalidParams("the task id is not a valid escape", {
        httpStatus: 400,
      });
    }
    const action = match[2];
    allow(method, action ? "POST" : "GET");
    // An action must say it is JSON: a cross-site form or a bare POST cannot without a CORS preflight.
    if (action) requireJson(request);
    const principal = await this.#options.auth?.principalOf(request);
    if (action === "cancel") {
      await request.body?.cancel();
      const task = await this.#options.engine.cancel(id, principal, undefined);
      return json({ task });
    }
    if (action === "answer") return json(await this.#answer(request, id, principal));
    const found = await this.#options.engine.find(id, principal, undefined);
    return json({
      task: this.#options.engine.view(found.record),
      runs: this.#options.record.runsOf(principal, id) ?? [],
    });
  }

  /** An answer from the page, as the seam extension's `answer` on a message to the task. */
  async #answer(
    request: Request,
    taskId: string,
    principal: string | undefined,
  ): Promise<Record<string, unknown>> {
    const body = await readJsonBody(request, this.#options.body) as Record<string, unknown>;
    const answer = readAnswer(body);
    const engine = this.#options.engine;
    const found = await engine.find(taskId, principal, undefined);
    const pending = found.live?.waitingInputs.find((r) => r.id === answer.requestId);
    if (!pending) {
      const state = stateWord(found.record.task);
      throw new GatewayError(
        "invalidParams",
        `Request "${
          answer.requestId.slice(0, 100)
        }" is no longer pending: task ${taskId} is ${state} now (the request was answered, cancelled or ended elsewhere); nothing was sent`,
        { httpStatus: 409, metadata: { reason: "NOT_PENDING", state } },
      );
    }
    const words = "optionId" in answer
      ? pending.options?.find((o) => o.id === answer.optionId)?.label ?? answer.optionId
      : "text" in answer
      ? answer.text
      : `(refused: ${answer.reason})`;
    const params = parseSendParams({
      message: {
        messageId: crypto.randomUUID(),
        role: "ROLE_USER",
        parts: [{ text: words || "(answer)" }],
        taskId,
        metadata: { [SEAM_EXTENSION_URI]: { answer } },
      },
    });
    await engine.send(params, principal);
    return { ok: true, taskId, requestId: answer.requestId };
  }
}

type PageAnswer =
  | { requestId: string; optionId: string }
  | { requestId: string; text: string }
  | { requestId: string; outcome: "refused"; reason: string };

/**
 * The page's answer body: `{requestId, optionId}`, `{requestId, text}` or
 * `{requestId, refuse: reason}`.
 *
 * @throws {GatewayError} 400 naming what is wrong.
 */
function readAnswer(body: Record<string, unknown>): PageAnswer {
  const bad = (what: string) =>
    new GatewayError("invalidParams", `Invalid answer: ${what}`, { httpStatus: 400 });
  if (!isRecord(body)) {
    throw bad("the body must be an object {requestId, optionId | text | refuse}");
  }
  const { requestId, optionId, text, refuse } = body;
  if (typeof requestId !== "string" || requestId === "") {
    throw bad("requestId must name the pending request");
  }
  const given = [optionId, text, refuse].filter((v) => v !== undefined).length;
  if (given !== 1) throw bad("give exactly one of optionId, text and refuse");
  if (optionId !== undefined) {
    if (typeof optionId !== "string") throw bad("optionId must be a string");
    return { requestId, optionId };
  }
  if (text !== undefined) {
    if (typeof text !== "string" || text.trim() === "") throw bad("text must be non-empty");
    return { requestId, text };
  }
  if (typeof refuse !== "string") throw bad("refuse must be a reason (a string)");
  return { requestId, outcome: "refused", reason: refuse || "refused from the inspector" };
}

function requireJson(request: Request): void {
  const header = request.headers.get("content-type");
  if (header === null || !isJsonContentType(header)) {
    throw new GatewayError(
      "contentType",
      `Content type not supported: ${
        header === null ? "none given" : `"${header.slice(0, 100)}"`
      }; send the inspector's actions as application/json`,
    );
  }
}

function allow(method: string, expected: string): void {
  if (method !== expected) {
    throw new GatewayError("methodNotFound", `Method not allowed: use ${expected}`, {
      httpStatus: 405,
    });
  }
}
