/**
 * ProtoJSON field names: a parser of A2A's JSON accepts a field by its JSON
 * name (`historyLength`) or by its proto name (`history_length`), as the
 * official kit's JSON-RPC client sends them. The request is brought to JSON
 * names before it is checked; a field given under both names is refused.
 */
import { isRecord } from "@seam/host";
import { invalidParams } from "../core/_errors.ts";
import { isArray } from "../core/_builtins.ts";

/** The JSON name of a proto field name (`page_size` → `pageSize`). */
export function camel(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

/** `record` with its proto-named keys renamed (the same object when none is). */
function renamed(record: Record<string, unknown>, path: string): Record<string, unknown> {
  let out: Record<string, unknown> | undefined;
  for (const key in record) {
    if (!key.includes("_")) continue;
    const name = camel(key);
    if (name === key) continue;
    out ??= { ...record };
    if (Object.hasOwn(record, name)) {
      throw invalidParams(`${path} gives "${name}" twice (as "${name}" and as "${key}")`);
    }
    out[name] = out[key];
    delete out[key];
  }
  return out ?? record;
}

/**
 * Request params with proto-named fields renamed, at the levels that are
 * A2A messages (params, `message`, its `parts`, `configuration`), never
 * inside `metadata` or `data`, which are the client's own.
 */
export function withJsonNames(value: unknown): unknown {
  if (!isRecord(value)) return value;
  const params = renamed(value, "params");
  let out = params;
  const message = params.message;
  if (isRecord(message)) {
    let m = renamed(message, "message");
    if (isArray(m.parts)) {
      const parts = m.parts.map((p, i) => isRecord(p) ? renamed(p, `message.parts[${i}]`) : p);
      if (parts.some((p, i) => p !== (m.parts as unknown[])[i])) m = { ...m, parts };
    }
    if (m !== message) out = { ...out, message: m };
  }
  const config = params.configuration;
  if (isRecord(config)) {
    const c = renamed(config, "configuration");
    if (c !== config) out = { ...out, configuration: c };
  }
  return out;
}
