// Imported first by serve.ts, so it runs before zod is evaluated: zod reads
// `jitless` when each schema is built. A server process parses a handful of
// messages per schema, so compiling zod's per-schema fast parsers (with
// `new Function`) costs more than it saves: measured no slower cold and a
// little faster warm (bench/README.md).
const global = globalThis as { __zod_globalConfig?: Record<string, unknown> };
global.__zod_globalConfig = { ...global.__zod_globalConfig, jitless: true };
