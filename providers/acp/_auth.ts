// Authentication: which of the methods an agent advertises in `initialize`
// (`authMethods`) to send `authenticate` with, and how to list them when the
// agent answers -32000 "Authentication required".
import { isRecord, type Logger } from "@seam/host";
import { AcpError, cut, quoted } from "./_failure.ts";

/** One advertised method, read defensively. */
export interface AuthMethod {
  readonly id: string;
  readonly name: string;
  /** `"agent"` (the default), `"env_var"`, `"terminal"` or a newer kind. */
  readonly type: string;
  /** For `env_var`: the variables it needs (optional ones left out). */
  readonly vars: readonly string[];
}

/** JSON-RPC error code of ACP's "Authentication required". */
export const AUTH_REQUIRED_CODE = -32000;

const MAX_METHODS = 32;
/** The variables of one method listed in a message at most (the rest are counted). */
const MAX_LISTED_VARS = 8;
/** The most characters of one of the agent's names (a method's, a variable's) quoted. */
const NAME_CHARS = 200;

/** The methods of an `initialize` answer's `authMethods` (malformed entries skipped). */
export function parseAuthMethods(value: unknown): AuthMethod[] {
  if (!Array.isArray(value)) return [];
  const methods: AuthMethod[] = [];
  for (const entry of value.slice(0, MAX_METHODS)) {
    if (!isRecord(entry) || typeof entry.id !== "string" || entry.id === "") continue;
    const type = typeof entry.type === "string" ? entry.type : "agent";
    const vars: string[] = [];
    if (Array.isArray(entry.vars)) {
      // The current form: `vars: [{name, optional?, secret?, label?}]`.
      for (const v of entry.vars) {
        if (isRecord(v) && typeof v.name === "string" && v.optional !== true) vars.push(v.name);
      }
    } else if (typeof entry.varName === "string") {
      vars.push(entry.varName); // the first draft's single `varName`
    }
    methods.push({
      id: entry.id,
      name: typeof entry.name === "string" ? entry.name : entry.id,
      type,
      vars,
    });
  }
  return methods;
}

/**
 * The method to authenticate with, or `undefined` for none: `explicit` when
 * given (the caller checks it is offered), else the first `env_var` method
 * whose variables are all set (non-empty) in the agent's environment.
 */
export function chooseAuthMethod(
  methods: readonly AuthMethod[],
  env: Readonly<Record<string, string>>,
  explicit: string | undefined,
): AuthMethod | undefined {
  if (explicit !== undefined) return methods.find((m) => m.id === explicit);
  return methods.find((m) =>
    m.type === "env_var" && m.vars.length > 0 && m.vars.every((name) => (env[name] ?? "") !== "")
  );
}

/** `; the agent offers …` listing `methods` and what each needs, for an error message. */
export function describeAuthMethods(
  methods: readonly AuthMethod[],
  env: Readonly<Record<string, string>>,
): string {
  if (methods.length === 0) return "; the agent advertises no authentication method";
  const listed = methods.map((m) => {
    // The agent's words, quoted in a failure: bounded.
    const id = quoted(m.id, NAME_CHARS);
    if (m.type !== "env_var") {
      return `${id} (${cut(m.type, NAME_CHARS)}: ${cut(m.name, NAME_CHARS)})`;
    }
    const vars = m.vars.slice(0, MAX_LISTED_VARS).map((name) =>
      `${cut(name, NAME_CHARS)}${(env[name] ?? "") === "" ? " (not set)" : ""}`
    );
    if (m.vars.length > MAX_LISTED_VARS) vars.push(`${m.vars.length - MAX_LISTED_VARS} more`);
    return `${id} (env_var: ${vars.join(", ") || "no variable"})`;
  });
  return `; the agent offers these authentication methods: ${
    listed.join(", ")
  } (pass the variables of an env_var method in config.env, or pick one with config.authMethod)`;
}

/**
 * Send `authenticate` with `config.authMethod`, else with the first
 * `env_var` method of `methods` whose variables are all set in `config.env`,
 * else nothing (`request` sends it; `failed` words its error answer).
 */
export async function authenticate(
  methods: readonly AuthMethod[],
  config: { readonly authMethod: string | undefined; readonly env: Record<string, string> },
  logger: Logger,
  request: (methodId: string) => Promise<unknown>,
  failed: (method: string, error: unknown) => Error,
): Promise<void> {
  const { authMethod, env } = config;
  const method = chooseAuthMethod(methods, env, authMethod);
  if (authMethod !== undefined && method === undefined) {
    throw new AcpError(
      "AUTH_REQUIRED",
      `config.authMethod is "${authMethod}", which the ACP agent does not offer${
        describeAuthMethods(methods, env)
      }`,
    );
  }
  if (method === undefined) return;
  logger.debug(`Authenticating with the ACP agent's method ${quoted(method.id)}`);
  try {
    await request(method.id);
  } catch (error) {
    throw failed(`authenticate (method ${quoted(method.id)})`, error);
  }
}
