/**
 * The minimal agent runtime the seam plugs into: scopes that own
 * registrations and cascade their disposal, a typed event bus with
 * per-listener containment, a levelled logger, content blocks, and the
 * lossless JSON copy and deep freeze the subagent contract is built on.
 *
 * On top of them, {@linkcode createHost} builds an agent runtime: agents
 * (a model loop over a session, created through a setup window), scoped
 * tools with restrictions and guards, system-prompt sections that shadow by
 * scope, and model adapters behind one streaming interface, with a
 * deterministic scripted model ({@linkcode createScriptedModel}: prompts
 * carry directives such as `@reply hi`, `@call tool {"a": 1}`, `@hang` or
 * `@fail why`, documented there) and an OpenAI-compatible chat-completions
 * adapter ({@linkcode createOpenAICompatibleModel}, told where to go by
 * `baseUrl` or a `preset`). Schemas are standard JSON Schema
 * ({@linkcode checkJsonSchema}), or zod through {@linkcode toJsonSchema}.
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
export * from "./brand.ts";
export * from "./content.ts";
export * from "./delay.ts";
export * from "./json.ts";
export * from "./text.ts";
export * from "./json_schema.ts";
export * from "./logger.ts";
export * from "./path.ts";
export * from "./scope.ts";
export * from "./agent.ts";
export * from "./host.ts";
export * from "./model.ts";
export * from "./model_env.ts";
export * from "./openai_model.ts";
export * from "./prompts.ts";
export * from "./scripted_model.ts";
export * from "./session.ts";
export * from "./tools.ts";
export * from "./trace.ts";
export * from "./unknown.ts";
export * from "./unknown_options.ts";
export * from "./version.ts";
