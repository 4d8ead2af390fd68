/**
 * The minimal agent runtime the seam plugs into: scopes that own
 * registrations and cascade their disposal, a typed event bus with
 * per-listener containment, a levelled logger, content blocks, and the
 * lossless JSON copy and deep freeze the subagent contract is built on.
 *
 * @example
 * ```ts
 * import { createMemoryLogger, createRootScope, defineEvent } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * const { logger, records } = createMemoryLogger();
 * const root = createRootScope({ logger });
 * const ping = defineEvent<number>("demo/ping");
 * root.on(ping, () => { throw new Error("bad listener"); });
 * let seen = 0;
 * root.on(ping, (n) => { seen = n; });
 * root.emit(ping, 7);
 * assert.equal(seen, 7); // the throw was contained and logged
 * assert.match(records[0].message, /demo\/ping/);
 * await root.dispose();
 * ```
 *
 * @module
 */
export * from "./agent_ref.ts";
export * from "./content.ts";
export * from "./json.ts";
export * from "./json_schema.ts";
export * from "./logger.ts";
export * from "./scope.ts";
