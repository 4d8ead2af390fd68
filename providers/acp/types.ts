import type { JsonValue, Logger } from "@seam/host";
import type { SubagentProvider } from "@seam/subagent";
import type { AcpToolCall } from "./events.ts";

/**
 * How the agent process gets a process group of its own, so teardown reaches
 * every process it started:
 * - `"auto"` (default): the spawn itself calls setsid(2) (Node's
 *   `detached`), no helper binary needed;
 * - `"setsid"`: through `setsid(1)` (util-linux);
 * - `"perl"`: through `perl`'s `POSIX::setsid`;
 * - `"direct"`: no group of its own; teardown signals the agent and the
 *   descendants it finds (through `/proc` or `ps`) when teardown begins, so
 *   a process started later, or reparented before, escapes.
 *
 * With a group, teardown also ends the descendants that left it
 * (`setsid cmd &`) while they are still linked to a member by parentage; a
 * daemon that double-forked away before teardown is out of reach.
 */
export type AcpLauncher = "auto" | "setsid" | "perl" | "direct";

/** One option the agent offers in a permission request. */
export interface AcpPermissionOption {
  /** The id to answer with. */
  readonly optionId: string;
  /** Its human-readable label. */
  readonly name: string;
  /** `"allow_once"`, `"allow_always"`, `"reject_once"` or `"reject_always"`. */
  readonly kind: string;
}

/** A `session/request_permission` from the child agent, as a policy function sees it. */
export interface AcpPermissionRequest {
  /** The run it belongs to. */
  readonly runId: string;
  /** The delegating agent's id. */
  readonly parentId: string;
  /** The agent's ACP session id. */
  readonly sessionId: string;
  /** The tool call that needs permission. */
  readonly toolCall: AcpToolCall;
  /**
   * The tool call exactly as the agent sent it (`rawInput`, `content`,
   * `locations`, `kind`, …), a frozen JSON copy; `null` if it was no object.
   */
  readonly raw: JsonValue;
  /** The options the agent offers, in its order. */
  readonly options: readonly AcpPermissionOption[];
  /**
   * Aborted when the answer is no longer wanted (the run was cancelled or
   * disposed, or the agent withdrew the request): it is then answered
   * `cancelled` whatever the function returns later.
   */
  readonly signal: AbortSignal;
}

/**
 * A permission decision: `"allow"` picks the agent's `allow_once` option
 * (else `allow_always`), `"reject"` its `reject_once` (else `reject_always`),
 * `"cancel"` answers `cancelled`, and `{ optionId }` picks that option. A
 * decision the offered options cannot express is answered `cancelled`.
 */
export type AcpPermissionDecision = "allow" | "reject" | "cancel" | {
  readonly optionId: string;
};

/** Decides one permission request; a throw or rejection counts as `"reject"`. */
export type AcpPermissionHandler = (
  request: AcpPermissionRequest,
) => AcpPermissionDecision | Promise<AcpPermissionDecision>;

/**
 * How the provider answers the child agent's permission requests
 * (`session/request_permission`):
 * - `"reject"` (the default): the agent's `reject_once` option (else
 *   `reject_always`, else `cancelled`), without asking anyone;
 * - `"allow"`: its `allow_once` option (else `allow_always`);
 * - `"ask"`: the request becomes an input request of the run
 *   (`SubagentInputs`): announced as `subagent/input-required` in the
 *   parent's scope with the tool call (`name`: the agent's id for the
 *   call, `title`, `kind`, `rawInput`, `content`) and the agent's options
 *   (their ids kept, `kind` as ACP's), offered to the handlers installed
 *   with `handleSubagentInput` up the scope chain, and answerable through
 *   `run.respond`. The option chosen is the agent's answer; a refusal (no
 *   handler anywhere, a handler refused) picks the agent's reject option
 *   (else `cancelled`); cancel and dispose answer `cancelled` and refuse the
 *   pending request. The wait does not count against `turnTimeoutMs`;
 * - a function: decides each request itself (see {@linkcode AcpPermissionHandler}).
 */
export type AcpPermissionPolicy = "reject" | "allow" | "ask" | AcpPermissionHandler;

/** Configuration of {@linkcode createAcpProvider}. */
export interface AcpProviderConfig {
  /** The agent's executable (a path, or a name looked up in `PATH`). Required. */
  readonly command: string;
  /** Its arguments. Default none. */
  readonly args?: readonly string[];
  /**
   * The working directory of the agent process and of its ACP sessions
   * (resolved to an absolute path). Default: the current directory.
   */
  readonly cwd?: string;
  /**
   * Variables added to the agent's environment. The agent inherits the
   * ambient environment minus every name containing `KEY`, `SECRET` or
   * `TOKEN` (any case); pass the credentials it needs here.
   */
  readonly env?: Readonly<Record<string, string>>;
  /** The name to register under. Default `"acp"`. */
  readonly name?: string;
  /**
   * How permission requests are answered: `"reject"`, `"allow"`, `"ask"`
   * (up the tree, as an input request) or a function. Default `"reject"`.
   */
  readonly permission?: AcpPermissionPolicy;
  /**
   * Teardown: how long the agent may take to answer `session/close` (sent
   * first, when the agent advertises it), and then to exit after its stdin
   * closes, before its process group gets SIGTERM. Some agents never exit
   * on EOF (codex-acp), so this is short. Positive, finite. Default 200 ms.
   */
  readonly disposeEofGraceMs?: number;
  /**
   * Teardown: how long the group may take to exit after SIGTERM before it
   * gets SIGKILL. Positive, finite. Default 2000 ms.
   */
  readonly disposeGraceMs?: number;
  /**
   * How long a cancelled turn may take to end: `resume` waits this long for
   * it before it ends `error`, and with `reuseProcess` a disposed run's
   * session gets this long before the shared process is stopped as one that
   * ignores `session/cancel`. Positive, finite. Default 5000 ms.
   */
  readonly cancelGraceMs?: number;
  /**
   * The longest one prompt turn may take: then the agent gets
   * `session/cancel` and the run ends `error` (code `TIMEOUT`). Time spent
   * waiting for a permission function, or for the answer to an input
   * request (`permission: "ask"`), does not count. Some agents retry
   * forever (a bad key, no model): pass a deadline, this or `signal`.
   * Positive, finite. Default: none.
   */
  readonly turnTimeoutMs?: number;
  /**
   * The id of the authentication method (from the agent's `authMethods`)
   * to send `authenticate` with after `initialize`. Default: the first
   * `env_var` method whose variables are all set in the agent's environment
   * (`env` included), else no `authenticate`. A method the agent does not
   * offer ends the run `error`, listing the ones it does.
   */
  readonly authMethod?: string;
  /**
   * How long spawn → `initialize` → `session/new` may take before the run
   * ends `error`. Positive, finite. Default 30,000 ms.
   */
  readonly startupTimeoutMs?: number;
  /**
   * The longest line the agent may send; a longer one ends the connection
   * (runs end `error`). Positive integer. Default 32 MiB.
   */
  readonly maxMessageBytes?: number;
  /**
   * Keep one agent process warm and open a new ACP session on it per run
   * (for agents that support several sessions). Each run keeps the same
   * cancel and teardown guarantees; the process lives until the provider is
   * disposed or it fails. Default `false`: one process per run.
   */
  readonly reuseProcess?: boolean;
  /** Where the provider logs (agent stderr at `info`). Default: the parent scope's logger. */
  readonly logger?: Logger;
  /** How the agent gets its own process group. Default `"auto"`. */
  readonly launcher?: AcpLauncher;
  /**
   * Keep warm agent processes: started, `initialize`d and (where a method
   * applies, see `authMethod`) authenticated before any run asks. A run
   * takes one (its start then costs a `session/new`) and the pool refills in
   * the background; with none idle, a run starts its own process as without
   * a pool. Not with `reuseProcess`. Default: no pool.
   */
  readonly pool?: AcpPoolOptions;
}

/** {@linkcode AcpProviderConfig.pool}: how many warm agents, and for how long. */
export interface AcpPoolOptions {
  /**
   * How many idle, ready agent processes to keep. An integer from 1 to 64.
   * Default 1.
   */
  readonly size?: number;
  /**
   * How long an idle agent is kept before it is ended (the pool refills
   * when a run next starts). Positive, finite. Default 300,000 ms.
   */
  readonly maxIdleMs?: number;
}

/** The ACP provider: a {@linkcode SubagentProvider} that also owns processes. */
export interface AcpProvider extends SubagentProvider {
  /**
   * Stop everything the provider started: every live run ends `aborted` and
   * every agent process (the warm one included) is torn down. Memoized; later
   * `start` calls throw.
   */
  dispose(): Promise<void>;
  /**
   * Resolves with the number of idle warm agents once the pool is full, or
   * has stopped filling (its agents failed to start several times in a row;
   * the provider was disposed); at once with `0` without a pool. Handy
   * before the first run that must start fast.
   */
  whenWarm(): Promise<number>;
  /** Same as {@linkcode AcpProvider.dispose}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void>;
}
