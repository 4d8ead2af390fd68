/**
 * An ACP agent written for the tests from the wire format alone (newline
 * delimited JSON-RPC 2.0 over stdio; no SDK), so the provider is checked
 * against an independent peer. It behaves well by default and misbehaves on
 * demand.
 *
 * Run it with `deno run [--allow-env] [--allow-run] test_agent.ts [flags]`.
 *
 * Prompt verbs (the first word of the prompt's text):
 * - `complete <text>`: replies `<text>` in several `agent_message_chunk`s, `end_turn`.
 * - `progress <text>`: a thought, a plan, a tool call and its update, then as `complete`.
 * - `hang`: one chunk, then waits for `session/cancel` and answers `cancelled`.
 * - `fail`: answers a JSON-RPC error.
 * - `max-tokens`: one chunk, then `max_tokens`.
 * - `refuse`: `refusal`.
 * - `max-turn-requests`: one chunk, then `max_turn_requests`.
 * - `self-cancel`: one chunk, then `cancelled` although nobody cancelled.
 * - `odd-stop`: one chunk, then a stop reason ACP does not define.
 * - `crash`: one chunk, then exits with code 7 mid-turn.
 * - `permission`: asks for permission, replies with the outcome, `end_turn`.
 * - `run <command…>`: announces an `execute` tool call (`rawInput.command`,
 *   `content`, `locations`), asks permission for it and, when an allow option
 *   is picked, runs the command (needs `--allow-run`) and replies
 *   `ran "<command>": <its stdout>`; else replies `did not run "<command>"
 *   (<the answer>)`; `cancelled` when the turn was cancelled meanwhile. It
 *   offers `--permission-options=<id>:<kind>,…` (default one of each kind:
 *   `yes`, `always`, `no`, `never`); `--sparse-permission` asks with the
 *   tool call's id alone, as agents that announced the call before do;
 *   `--withdraw-permission=<ms>` withdraws an unanswered request
 *   (`$/cancel_request`) after `<ms>`.
 * - `garbage <text>`: prints non-JSON lines on stdout, then as `complete`.
 * - `oversized <bytes>`: sends one update line of about `<bytes>` bytes.
 * - `env <NAME>`: replies with the variable's value or `(unset)`.
 * - `cwd`: replies with the session's cwd.
 * - `blocks`: replies with the received prompt blocks as JSON.
 * - `count`: replies with how many prompts this session received.
 * - `pid`: replies with this process's pid and how many sessions it opened.
 * - `fail-long <n> [tail]`: answers a JSON-RPC error whose message is `<n>` characters long,
 *   then `tail` 1,000 times.
 * - `stray-long <n> [tail]`: answers a request nobody sent (id 4242) with an error whose message
 *   is `<n>` characters long, then `tail` 1,000 times.
 * - `permission-flood <n>`: asks `<n>` permissions at once, then ends the turn `cancelled`.
 * - `long <where> <n> [tail]`: `<n>` `w`s then `tail` 1,000 times, sent where the client
 *   quotes the agent's words: `garbage` (a non-JSON line), `json-line` (`{"msg": …}`, no
 *   JSON-RPC), `update` (a malformed update `{"note": …}`), `session` (an update and a
 *   permission request for a session of that id), `permission` (a permission request whose
 *   tool call's id and title are it), `stop` (the stop reason), `stderr` (a line on
 *   stderr, then exits with code 7); then, but for `stop` and `stderr`, replies `done`.
 * - `deep <depth>`: a `tool_call` whose `rawInput` nests arrays `<depth>` deep, then
 *   replies `after deep`.
 *
 * Flags: `--ignore-eof`, `--trap-sigterm`, `--ignore-cancel`,
 * `--end-turn-after-cancel`, `--grandchild` (spawns a process that traps
 * SIGTERM and would outlive this one; needs `--allow-run`), `--garbage`
 * (non-JSON lines before every message), `--no-session-new`,
 * `--no-initialize`, `--exit-at-start`, `--updates-before-session`,
 * `--early-updates=<n>x<bytes>` (`<n>` thoughts of about `<bytes>` bytes each
 * before answering `session/new`),
 * `--bad-session-new` (answers without a session id), `--same-session-id` (every
 * `session/new` answers `sess-1`), `--bad-updates`
 * (malformed `session/update`s before the chunks of `complete`),
 * `--no-close` (does not advertise `session/close`), `--no-images`,
 * `--protocol-version=<n>`, `--exit-on-session-new` (answers `initialize`,
 * then exits with code 4 when `session/new` arrives), `--garbage-only`
 * (prints non-JSON lines and nothing else, never answering),
 * `--bad-initialize` (answers `initialize` with a string result),
 * `--stray-response` (answers a request nobody sent before `initialize`),
 * `--json-logs` (a JSON log line, no JSON-RPC, before every message),
 * `--null-id-error` (a JSON-RPC error with `id: null` before `initialize`'s answer),
 * `--setsid-grandchild` (a grandchild that leaves the process group through
 * `setsid(1)`, as `setsid cmd &` does), `--cancel-on-reject` (a permission
 * answered with a reject option ends the turn `cancelled`, as codex-acp
 * does), `--slow-cancel=<ms>` (`hang` answers `cancelled` that long after
 * the cancel, as opencode sometimes does), `--context-used=<n>` (the figure `progress`'s
 * `usage_update` reports, default 10), `--fail-session-new` (prints a
 * reason on stderr, then answers `session/new` with an error carrying
 * `data.details`, as claude-agent-acp does), `--auth-env=<NAME>` (advertises
 * codex-acp's `env_var` method `test-key` needing `<NAME>` and an `agent`
 * method `login`, its name `--auth-name=<n>` `w`s when given; `session/new` answers -32000 "Authentication required"
 * until `authenticate` with `test-key` succeeded, which needs `<NAME>` set).
 *
 * Child sessions (ACP's unstable `subagent_update`), only to a client that
 * advertised `clientCapabilities.subagents` (else it replies `no subagents
 * capability` and sends none): `children <n>` announces `<n>` child sessions
 * (`child-<i>`, running, cancellable), sends under each a message chunk, a
 * tool call and a `usage_update` of `used: 100 * i`; `child-1` announces
 * `child-1-1`, which says `grandchild` and reports `used: 7`; then each is
 * `idle`, the agent's own `usage_update` says `used: 50`, and it replies
 * `children done`. `children-hostile <n>` announces `<n>` children, sends an
 * update for a session it never announced (`ghost`), a negative
 * `usage_update` and a grandchild announced by an unknown session, then
 * replies `hostile done`. `children-hang` announces a cancellable `child-1`
 * and waits for a `session/cancel` naming it; then `child-1` says `child 1
 * cancelled` and goes idle, and the agent replies `after the child's cancel`.
 * `children-late` announces `child-1`, which says `on time` and goes idle,
 * replies `late done` and, after its answer, sends for `child-1` a
 * `subagent_update` (running), a chunk `too late` and a `usage_update`, and
 * announces `child-late`; then logs `sent late updates`.
 *
 * More verbs: `fail-data [bytes]` (a -32603 "Internal error" whose reason is
 * in `error.data.message`, as codex-acp sends, padded by `bytes`),
 * `retry-forever` (a thought every 50 ms until cancelled, as an agent with a
 * bad key does).
 *
 * Runs under Deno or, bundled, under Node (`_agent_io.ts`). Never exits on
 * EOF with `--ignore-eof`, as codex-acp.
 *
 * @module
 */
import { io } from "./_agent_io.ts";

const flags = new Set(io.args);
const flag = (name: string): boolean => flags.has(`--${name}`);
const option = (name: string): string | undefined =>
  io.args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const protocolVersion = Number(option("protocol-version") ?? 1);
const authEnv = option("auth-env");
let authenticated = authEnv === undefined;

const encoder = new TextEncoder();

function writeAll(bytes: Uint8Array): void {
  io.write(1, bytes);
}

function send(message: Record<string, unknown>): void {
  if (flag("garbage")) writeAll(encoder.encode("this is not json {\n"));
  if (flag("json-logs")) writeAll(encoder.encode('{"level":30,"msg":"about to send"}\n'));
  writeAll(encoder.encode(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n"));
}

function log(line: string): void {
  io.write(2, encoder.encode(`test-agent[${io.pid}]: ${line}\n`));
}

type Json = Record<string, unknown>;

interface Session {
  readonly id: string;
  readonly cwd: string;
  prompts: number;
  /** Resolves the pending prompt's cancellation wait. */
  onCancel?: () => void;
}

const sessions = new Map<string, Session>();
/** Whether the client advertised `clientCapabilities.subagents`. */
let subagentsAdvertised = false;
/** Child sessions waiting for their `session/cancel` (`children-hang`). */
const childCancels = new Map<string, () => void>();
let sessionCounter = 0;
let requestCounter = 0;
const pendingClientRequests = new Map<number, (message: Json) => void>();

function update(sessionId: string, update: Json): void {
  send({ method: "session/update", params: { sessionId, update } });
}

function chunk(sessionId: string, text: string, kind = "agent_message_chunk"): void {
  update(sessionId, { sessionUpdate: kind, content: { type: "text", text } });
}

function chunks(sessionId: string, text: string): void {
  // Word by word, spaces kept, so the joined chunks are exactly `text`.
  for (const piece of text.match(/\S+\s*|\s+/g) ?? []) chunk(sessionId, piece);
}

function requestClient(method: string, params: Json): Promise<Json> {
  const id = ++requestCounter;
  return new Promise((resolve) => {
    pendingClientRequests.set(id, resolve);
    send({ id, method, params });
  });
}

/** The options `permission` offers. */
const PERMISSION_OPTIONS: readonly Json[] = [
  { optionId: "yes", name: "Allow", kind: "allow_once" },
  { optionId: "always", name: "Always allow", kind: "allow_always" },
  { optionId: "no", name: "Reject", kind: "reject_once" },
];

/** The options `run` offers: `--permission-options=<id>:<kind>,…`, or one of each kind. */
function runOptions(): Json[] {
  const spec = option("permission-options") ??
    "yes:allow_once,always:allow_always,no:reject_once,never:reject_always";
  return spec.split(",").filter((entry) => entry !== "").map((entry) => {
    const [optionId, kind = "allow_once"] = entry.split(":");
    return { optionId, name: `${kind.replace("_", " ")} (${optionId})`, kind };
  });
}

/** How a permission request was answered. */
interface PermissionReply {
  /** The turn was cancelled while it waited. */
  readonly cancelled: boolean;
  /** `"selected"`, `"cancelled"`, or undefined for an error answer. */
  readonly outcome?: string;
  readonly optionId?: string;
  /** The kind of the option selected, if it was one offered. */
  readonly kind?: string;
  /** The answer in words (`selected yes`, `cancelled`). */
  readonly described: string;
}

/** Ask the client for permission (`session/request_permission`), logging the answer. */
async function askPermission(
  session: Session,
  toolCall: Json,
  options: readonly Json[],
): Promise<PermissionReply> {
  const waitCancel = cancelled(session);
  const answer = requestClient("session/request_permission", {
    sessionId: session.id,
    toolCall,
    options,
  });
  const withdrawAfter = option("withdraw-permission");
  if (withdrawAfter !== undefined) {
    // Withdraw it (ACP's `$/cancel_request`) unless it was answered by then.
    const requestId = requestCounter;
    let answered = false;
    answer.then(() => answered = true);
    setTimeout(() => {
      if (answered) return;
      log(`withdrawing permission request ${requestId}`);
      send({ method: "$/cancel_request", params: { requestId } });
    }, Number(withdrawAfter));
  }
  const first = await Promise.race([answer, waitCancel.then(() => undefined)]);
  const reply = first === undefined ? await answer : first;
  const result = (reply.result ?? {}) as { outcome?: { outcome?: string; optionId?: string } };
  const outcome = result.outcome?.outcome;
  const optionId = result.outcome?.optionId;
  const described = outcome === "selected"
    ? `selected ${optionId}`
    : String(outcome ?? JSON.stringify(reply.error));
  log(`permission outcome: ${described}`);
  const kind = options.find((o) => o.optionId === optionId)?.kind;
  return {
    cancelled: first === undefined,
    ...(outcome === undefined ? {} : { outcome }),
    ...(optionId === undefined ? {} : { optionId }),
    ...(typeof kind === "string" ? { kind } : {}),
    described,
  };
}

/** Wait for `session/cancel` on `session` (never resolves with --ignore-cancel). */
function cancelled(session: Session): Promise<void> {
  return new Promise((resolve) => {
    session.onCancel = () => {
      session.onCancel = undefined;
      resolve();
    };
  });
}

/** The `children` verbs: child session traffic (see the module doc); the reply. */
function childSessions(sid: string, verb: string, n: number): string {
  if (!subagentsAdvertised) return "no subagents capability";
  const announce = (from: string, child: string, state: string) =>
    update(from, {
      sessionUpdate: "subagent_update",
      sessionId: child,
      title: `helper ${child}`,
      capabilities: { cancel: {} },
      state: { state },
    });
  if (verb === "children-hostile") {
    for (let i = 1; i <= n; i++) announce(sid, `child-${i}`, "running");
    update("ghost", {
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: "boo" },
    });
    update("child-1", { sessionUpdate: "usage_update", used: -500, size: 1000 });
    update("child-1", { sessionUpdate: "usage_update", used: 1e300, size: 1000 });
    announce("nobody", "orphan", "running");
    return "hostile done";
  }
  for (let i = 1; i <= n; i++) {
    const child = `child-${i}`;
    announce(sid, child, "running");
    chunk(child, `child ${i} says hi`);
    update(child, { sessionUpdate: "tool_call", toolCallId: `t${i}`, title: `look ${i}` });
    update(child, { sessionUpdate: "usage_update", used: 100 * i, size: 1000 });
    if (i === 1) {
      announce(child, "child-1-1", "requires_action");
      chunk("child-1-1", "grandchild");
      update("child-1-1", { sessionUpdate: "usage_update", used: 7, size: 1000 });
      update(child, {
        sessionUpdate: "subagent_update",
        sessionId: "child-1-1",
        state: { state: "idle" },
      });
    }
    update(sid, { sessionUpdate: "subagent_update", sessionId: child, state: { state: "idle" } });
  }
  update(sid, { sessionUpdate: "usage_update", used: 50, size: 1000 });
  return "children done";
}

/**
 * `opencode-tasks`: what `opencode acp` sends of its Task subagents (no
 * child sessions: one `task` tool call of the parent's session each). Task
 * 1 completes with the child's answer and its session id in
 * `rawOutput.metadata`; task 2 fails.
 */
function openCodeTasks(sid: string): string {
  const input = (i: number) => ({
    description: `Explore part ${i}`,
    prompt: `Look at part ${i}`,
    subagent_type: "explore",
  });
  for (const i of [1, 2]) {
    update(sid, {
      sessionUpdate: "tool_call",
      toolCallId: `call_${i}`,
      title: "task",
      kind: "other",
      status: "pending",
      locations: [],
      rawInput: {},
    });
    update(sid, {
      sessionUpdate: "tool_call_update",
      toolCallId: `call_${i}`,
      status: "in_progress",
      kind: "other",
      title: "task",
      locations: [],
      rawInput: input(i),
    });
  }
  const output = "task_id: ses_child1 (for resuming to continue this task if needed)\n\n" +
    "<task_result>\npart 1 has 3 files\n</task_result>";
  update(sid, {
    sessionUpdate: "tool_call_update",
    toolCallId: "call_1",
    status: "completed",
    kind: "other",
    content: [{ type: "content", content: { type: "text", text: output } }],
    title: "Explore part 1",
    rawInput: input(1),
    rawOutput: { output, metadata: { sessionId: "ses_child1", model: { modelID: "m" } } },
  });
  update(sid, {
    sessionUpdate: "tool_call_update",
    toolCallId: "call_2",
    status: "failed",
    kind: "other",
    title: "task",
    rawInput: input(2),
    content: [{ type: "content", content: { type: "text", text: "Unknown agent type" } }],
    rawOutput: { error: "Unknown agent type: explore is not a valid agent type" },
  });
  return "tasks done";
}

function textOfPrompt(prompt: unknown): string {
  if (!Array.isArray(prompt)) return "";
  return prompt.map((b) => (b && typeof b === "object" && b.type === "text") ? b.text : "").join(
    "",
  );
}

async function prompt(id: unknown, params: Json): Promise<void> {
  const session = sessions.get(String(params.sessionId));
  if (!session) {
    send({ id, error: { code: -32602, message: `unknown session ${params.sessionId}` } });
    return;
  }
  session.prompts++;
  log(`session/prompt ${session.id}`);
  const text = textOfPrompt(params.prompt).trim();
  const [verb = "", ...restWords] = text.split(/\s+/);
  const rest = text.slice(verb.length).trim();
  const sid = session.id;
  const stop = (stopReason: string) => send({ id, result: { stopReason } });
  switch (verb) {
    case "complete":
      if (flag("bad-updates")) {
        send({ method: "session/update", params: { update: { sessionUpdate: "plan" } } });
        update(sid, { sessionUpdate: "agent_message_chunk" });
        update(sid, { sessionUpdate: "tool_call", title: "no id" });
        update(sid, "not an object" as unknown as Json);
      }
      chunks(sid, rest || "done");
      return stop("end_turn");
    case "progress":
      chunk(sid, "thinking about it", "agent_thought_chunk");
      update(sid, {
        sessionUpdate: "plan",
        entries: [{ content: "answer", priority: "high", status: "in_progress" }],
      });
      update(sid, {
        sessionUpdate: "tool_call",
        toolCallId: "call-1",
        title: "Look something up",
        kind: "search",
        status: "pending",
        rawInput: { query: rest },
      });
      update(sid, {
        sessionUpdate: "tool_call_update",
        toolCallId: "call-1",
        status: "completed",
        content: [{ type: "content", content: { type: "text", text: "found" } }],
      });
      update(sid, {
        sessionUpdate: "usage_update",
        used: Number(option("context-used") ?? 10),
        size: 1000,
      });
      chunks(sid, rest || "done");
      return stop("end_turn");
    case "children-hang": {
      if (!subagentsAdvertised) {
        chunk(sid, "no subagents capability");
        return stop("end_turn");
      }
      update(sid, {
        sessionUpdate: "subagent_update",
        sessionId: "child-1",
        title: "helper child-1",
        capabilities: { cancel: {} },
        state: { state: "running" },
      });
      chunk("child-1", "child 1 working");
      await new Promise<void>((resolve) => childCancels.set("child-1", resolve));
      chunk("child-1", "child 1 cancelled");
      update(sid, {
        sessionUpdate: "subagent_update",
        sessionId: "child-1",
        state: { state: "idle" },
      });
      chunk(sid, "after the child's cancel");
      return stop("end_turn");
    }
    case "hang": {
      chunk(sid, "working");
      await cancelled(session);
      const slow = Number(option("slow-cancel") ?? 0);
      if (slow > 0) {
        log(`ending the cancelled turn in ${slow} ms`);
        await new Promise((resolve) => setTimeout(resolve, slow));
      }
      if (flag("end-turn-after-cancel")) {
        chunk(sid, " and done anyway");
        return stop("end_turn");
      }
      return stop("cancelled");
    }
    case "fail":
      chunk(sid, "about to fail");
      send({ id, error: { code: -32603, message: "the test agent failed on purpose" } });
      return;
    case "fail-data": {
      chunk(sid, "about to fail");
      const padding = Number(restWords[0] ?? 0);
      send({
        id,
        error: {
          code: -32603,
          message: "Internal error",
          data: {
            message: "We're currently experiencing high demand, which may cause temporary errors.",
            codex_error_info: "server_overloaded",
            ...(padding > 0 ? { padding: "x".repeat(padding) } : {}),
          },
        },
      });
      return;
    }
    case "retry-forever": {
      let over = false;
      cancelled(session).then(() => over = true);
      for (let attempt = 1; !over; attempt++) {
        chunk(sid, `retrying (attempt ${attempt})`, "agent_thought_chunk");
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      log("retry-forever cancelled");
      return stop("cancelled");
    }
    case "max-tokens":
      chunk(sid, "partial");
      return stop("max_tokens");
    case "refuse":
      return stop("refusal");
    case "max-turn-requests":
      chunk(sid, "partial");
      return stop("max_turn_requests");
    case "self-cancel":
      chunk(sid, "partial");
      return stop("cancelled");
    case "odd-stop":
      chunk(sid, "partial");
      return stop("went_fishing");
    case "crash":
      chunk(sid, "partial before the crash");
      log("crashing mid-turn on purpose");
      io.exit(7);
      return;
    case "permission": {
      const reply = await askPermission(session, {
        toolCallId: "call-p",
        title: "Delete everything",
        kind: "delete",
      }, PERMISSION_OPTIONS);
      if (reply.cancelled) return stop("cancelled");
      if (flag("cancel-on-reject") && ["no", "never"].includes(reply.optionId ?? "")) {
        return stop("cancelled");
      }
      chunks(sid, `permission: ${reply.described}`);
      return stop("end_turn");
    }
    case "run": {
      // As a coding agent does: announce the call, ask, run it only if allowed.
      const toolCall = {
        toolCallId: "call-run",
        title: `Run "${rest}"`,
        kind: "execute",
        status: "pending",
        rawInput: { command: rest },
        content: [{ type: "content", content: { type: "text", text: `$ ${rest}` } }],
        locations: [{ path: session.cwd }],
      };
      update(sid, { sessionUpdate: "tool_call", ...toolCall });
      const reply = await askPermission(
        session,
        flag("sparse-permission") ? { toolCallId: toolCall.toolCallId } : toolCall,
        runOptions(),
      );
      if (reply.cancelled) return stop("cancelled");
      const allowed = reply.kind === "allow_once" || reply.kind === "allow_always";
      if (!allowed) {
        update(sid, {
          sessionUpdate: "tool_call_update",
          toolCallId: "call-run",
          status: "failed",
        });
        if (flag("cancel-on-reject") && reply.outcome === "selected") return stop("cancelled");
        chunks(sid, `did not run "${rest}" (${reply.described})`);
        return stop("end_turn");
      }
      const { code, stdout } = await io.run(rest.split(/\s+/));
      log(`ran ${rest}: exit ${code}`);
      update(sid, {
        sessionUpdate: "tool_call_update",
        toolCallId: "call-run",
        status: code === 0 ? "completed" : "failed",
        content: [{ type: "content", content: { type: "text", text: stdout } }],
      });
      chunks(sid, `ran "${rest}": ${stdout.trim()}`);
      return stop("end_turn");
    }
    case "garbage":
      writeAll(encoder.encode("garbage line one\nnot json either: {]\n\n[1,2,3]\n42\n"));
      chunks(sid, rest || "done");
      writeAll(encoder.encode("trailing garbage\n"));
      return stop("end_turn");
    case "oversized": {
      const size = Number(restWords[0] ?? 1_000_000);
      chunk(sid, "x".repeat(size));
      return stop("end_turn");
    }
    case "fail-long":
      send({
        id,
        error: {
          code: -32603,
          message: "m".repeat(Number(restWords[0] ?? 100_000)) + (restWords[1] ?? "").repeat(1000),
        },
      });
      return;
    case "stray-long":
      // An error answer to a request nobody sent, its message `<n>` characters long.
      send({
        id: 4242,
        error: {
          code: -32603,
          message: "s".repeat(Number(restWords[0] ?? 1000)) + (restWords[1] ?? "").repeat(1000),
        },
      });
      return;
    case "permission-flood": {
      const count = Number(restWords[0] ?? 1000);
      await Promise.all(
        Array.from({ length: count }, (_, i) =>
          requestClient("session/request_permission", {
            sessionId: sid,
            toolCall: { toolCallId: `flood-${i}`, title: `Flood ${i}`, kind: "execute" },
            options: PERMISSION_OPTIONS,
          })),
      );
      return stop("cancelled");
    }
    case "long": {
      const [where = "", n = "1000", tail = ""] = restWords;
      const words = "w".repeat(Number(n)) + tail.repeat(1000);
      if (where === "garbage") writeAll(encoder.encode(`${words}\n`));
      if (where === "json-line") writeAll(encoder.encode(`${JSON.stringify({ msg: words })}\n`));
      if (where === "update") update(sid, { note: words });
      if (where === "session") {
        chunk(words, "for nobody");
        await requestClient("session/request_permission", {
          sessionId: words,
          toolCall: { toolCallId: "call-nobody", title: "Nobody's", kind: "execute" },
          options: PERMISSION_OPTIONS,
        });
      }
      if (where === "permission") {
        const toolCall = { toolCallId: words, title: words, kind: "execute" };
        if ((await askPermission(session, toolCall, PERMISSION_OPTIONS)).cancelled) {
          return stop("cancelled");
        }
      }
      if (where === "stop") return stop(words);
      if (where === "stderr") {
        io.write(2, encoder.encode(`${words}\n`));
        io.exit(7);
        return;
      }
      if (where === "stderr-paced") {
        // The same line in writes of 70,000 characters a few ms apart: read
        // as many chunks as it was written in, whatever the runtime's reads.
        for (let at = 0; at < words.length; at += 70_000) {
          io.write(2, encoder.encode(words.slice(at, at + 70_000)));
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
        io.write(2, encoder.encode("\nthe last line\n"));
        io.exit(7);
        return;
      }
      chunks(sid, "done");
      return stop("end_turn");
    }
    case "deep": {
      const depth = Number(restWords[0] ?? 20_000);
      const raw = '{"sessionUpdate":"tool_call","toolCallId":"deep","title":"deep","rawInput":' +
        "[".repeat(depth) + "]".repeat(depth) + "}";
      writeAll(encoder.encode(
        `{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"${sid}","update":${raw}}}\n`,
      ));
      chunks(sid, "after deep");
      return stop("end_turn");
    }
    case "env":
      chunks(sid, io.env(rest) ?? "(unset)");
      return stop("end_turn");
    case "cwd":
      chunks(sid, session.cwd);
      return stop("end_turn");
    case "blocks":
      chunk(sid, JSON.stringify(params.prompt));
      return stop("end_turn");
    case "count":
      chunk(sid, `prompts: ${session.prompts}`);
      return stop("end_turn");
    case "pid":
      chunk(sid, `pid ${io.pid} sessions ${sessionCounter}`);
      return stop("end_turn");
    case "opencode-tasks":
      chunk(sid, openCodeTasks(sid));
      return stop("end_turn");
    case "children":
    case "children-hostile":
      chunk(sid, childSessions(sid, verb, Number(restWords[0] ?? 1)));
      return stop("end_turn");
    case "children-late": {
      if (!subagentsAdvertised) {
        chunk(sid, "no subagents capability");
        return stop("end_turn");
      }
      const running = {
        sessionUpdate: "subagent_update",
        sessionId: "child-1",
        title: "late child",
      };
      update(sid, { ...running, state: { state: "running" } });
      chunk("child-1", "on time");
      update(sid, {
        sessionUpdate: "subagent_update",
        sessionId: "child-1",
        state: { state: "idle" },
      });
      chunk(sid, "late done");
      stop("end_turn");
      update(sid, { ...running, state: { state: "running" } });
      chunk("child-1", "too late");
      update("child-1", { sessionUpdate: "usage_update", used: 999, size: 1000 });
      update(sid, {
        sessionUpdate: "subagent_update",
        sessionId: "child-late",
        state: { state: "running" },
      });
      return log("sent late updates");
    }
    default:
      chunk(sid, `unknown verb ${JSON.stringify(verb)}`);
      return stop("end_turn");
  }
}

function handle(message: Json): void {
  if (flag("garbage-only")) return;
  const { id, method } = message;
  const params = (message.params ?? {}) as Json;
  if (method === undefined) {
    // A response to one of our requests.
    const resolve = pendingClientRequests.get(Number(id));
    pendingClientRequests.delete(Number(id));
    resolve?.(message);
    return;
  }
  switch (method) {
    case "initialize":
      if (flag("no-initialize")) return log("not answering initialize");
      {
        const capabilities = params.clientCapabilities as Json | undefined;
        const subagents = capabilities?.subagents;
        subagentsAdvertised = subagents !== null && typeof subagents === "object";
        log(`client capabilities ${JSON.stringify(capabilities ?? null)}`);
      }
      if (flag("bad-initialize")) return send({ id, result: "ready, I guess" });
      if (flag("stray-response")) send({ id: 4242, result: {} });
      if (flag("null-id-error")) {
        send({ id: null, error: { code: -32700, message: "Parse error (a notice)" } });
      }
      send({
        id,
        result: {
          protocolVersion,
          agentCapabilities: {
            loadSession: false,
            promptCapabilities: {
              image: !flag("no-images"),
              audio: false,
              embeddedContext: true,
            },
            sessionCapabilities: flag("no-close") ? {} : { close: {} },
          },
          authMethods: authEnv === undefined ? [] : [
            { type: "env_var", id: "test-key", name: "Test key", vars: [{ name: authEnv }] },
            {
              id: "login",
              name: option("auth-name") === undefined
                ? "Log in with a browser"
                : "w".repeat(Number(option("auth-name"))) + "\u{1F600}",
            },
          ],
          agentInfo: { name: "seam-test-agent", version: "0.0.0" },
        },
      });
      return;
    case "authenticate": {
      log(`authenticate ${params.methodId}`);
      if (params.methodId === "login") {
        return send({
          id,
          error: { code: -32603, message: "Internal error", data: { details: "no browser here" } },
        });
      }
      if (params.methodId !== "test-key" || authEnv === undefined) {
        return send({ id, error: { code: -32602, message: `unknown method ${params.methodId}` } });
      }
      if (!io.env(authEnv)) {
        return send({
          id,
          error: {
            code: -32000,
            message: "Authentication required",
            data: `${authEnv} is not set`,
          },
        });
      }
      authenticated = true;
      return send({ id, result: {} });
    }
    case "session/new": {
      if (flag("no-session-new")) return log("not answering session/new");
      if (!authenticated) {
        log("refusing session/new: not authenticated");
        return send({ id, error: { code: -32000, message: "Authentication required" } });
      }
      if (flag("fail-session-new")) {
        log("cannot open a session: no model is configured");
        return send({
          id,
          error: {
            code: -32603,
            message: "Internal error",
            data: { details: "No model configured. Run /model to pick one." },
          },
        });
      }
      if (flag("exit-on-session-new")) {
        log("exiting on session/new on purpose");
        io.exit(4);
      }
      if (flag("bad-session-new")) return send({ id, result: { session: "no id here" } });
      const sessionId = flag("same-session-id") ? "sess-1" : `sess-${++sessionCounter}`;
      if (!sessions.has(sessionId)) {
        sessions.set(sessionId, { id: sessionId, cwd: String(params.cwd), prompts: 0 });
      }
      if (flag("updates-before-session")) {
        update(sessionId, {
          sessionUpdate: "available_commands_update",
          availableCommands: [{ name: "hello", description: "says hello" }],
        });
        chunk(sessionId, "early ");
      }
      const early = option("early-updates");
      if (early !== undefined) {
        const [count, bytes] = early.split("x").map(Number);
        for (let i = 1; i <= count; i++) {
          chunk(sessionId, `early ${i} ${"x".repeat(bytes)}`, "agent_thought_chunk");
        }
      }
      send({ id, result: { sessionId } });
      return;
    }
    case "session/prompt":
      prompt(id, params).catch((error) => {
        send({ id, error: { code: -32603, message: String(error) } });
      });
      return;
    case "session/cancel": {
      log(`session/cancel ${params.sessionId}`);
      if (flag("ignore-cancel")) return;
      childCancels.get(String(params.sessionId))?.();
      childCancels.delete(String(params.sessionId));
      sessions.get(String(params.sessionId))?.onCancel?.();
      return;
    }
    case "session/close":
      log(`session/close ${params.sessionId}`);
      sessions.get(String(params.sessionId))?.onCancel?.();
      sessions.delete(String(params.sessionId));
      send({ id, result: {} });
      return;
    default:
      if (id !== undefined) {
        send({ id, error: { code: -32601, message: `method not found: ${method}` } });
      }
  }
}

log(`started ${io.args.join(" ")}`);
if (flag("exit-at-start")) {
  log("exiting at start on purpose");
  io.exit(3);
}
if (flag("trap-sigterm")) {
  io.onSigterm(() => log("ignoring SIGTERM"));
}
/** What a grandchild runs: it traps SIGTERM and never ends on its own. */
const GRANDCHILD = "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000);";
if (flag("grandchild")) log(`grandchild ${io.spawnScript(GRANDCHILD, false)}`);
if (flag("setsid-grandchild")) log(`grandchild ${io.spawnScript(GRANDCHILD, true)}`);
if (flag("garbage")) writeAll(encoder.encode("banner: test agent starting\n"));
if (flag("garbage-only")) {
  // A program that is not an ACP agent at all: it talks, but never JSON-RPC.
  for (let i = 0; i < 500; i++) writeAll(encoder.encode(`line ${i} of some other program\n`));
  setInterval(() => {}, 1000);
}

const decoder = new TextDecoder();
let buffered = "";
for await (const bytes of io.stdin()) {
  buffered += decoder.decode(bytes, { stream: true });
  let newline: number;
  while ((newline = buffered.indexOf("\n")) !== -1) {
    const line = buffered.slice(0, newline).trim();
    buffered = buffered.slice(newline + 1);
    if (!line) continue;
    try {
      handle(JSON.parse(line));
    } catch (error) {
      log(`bad input line: ${error}`);
    }
  }
}
log("stdin closed");
if (flag("ignore-eof")) {
  log("ignoring stdin EOF");
  setInterval(() => {}, 1000);
} else {
  io.exit(0);
}
