import { childPath } from "./_path.ts";

/**
 * Name a place in a JSON value for an error message: `root` followed by
 * `.key` for identifier keys, `["odd key"]` for others and `[0]` for
 * indices.
 *
 * @example
 * ```ts
 * import { formatPath } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * assert.equal(formatPath("request", ["prompt", 0, "text"]), "request.prompt[0].text");
 * assert.equal(formatPath("value", ["a b"]), 'value["a b"]');
 * assert.equal(formatPath("", ["message", "parts"]), "message.parts");
 * ```
 */
export function formatPath(root: string, keys: readonly PropertyKey[]): string {
  let path = root;
  for (const key of keys) {
    path = typeof key === "number" ? `${path}[${key}]` : childPath(path, String(key));
  }
  return path;
}
