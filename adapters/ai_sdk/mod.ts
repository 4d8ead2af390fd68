/**
 * Seam for the Vercel AI SDK (`ai` 7): any AI SDK language model as a
 * `@seam/host` model ({@linkcode aiSdkModel}), an AI SDK agent as a seam
 * child ({@linkcode createAiSdkProvider}), and `ctx.subagents` as an AI SDK
 * tool ({@linkcode subagentTool}).
 *
 * @module
 */
export * from "./model.ts";
export * from "./provider.ts";
export * from "./tool.ts";
export * from "./env.ts";
