/**
 * The version of the seam packages, all released together at one version.
 * `deno task release:check` fails when it differs from the workspace's, so a
 * span's instrumentation scope or a protocol handshake's `clientInfo` never
 * names a stale release.
 *
 * @example
 * ```ts
 * import { SEAM_VERSION } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * assert.match(SEAM_VERSION, /^\d+\.\d+\.\d+/);
 * ```
 */
export const SEAM_VERSION: string = "0.2.0";
