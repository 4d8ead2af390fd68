// Fixture: reads the environment while being imported (needs a permission);
// typed without Deno's namespace, so only the import itself can catch it.
const runtime = (globalThis as { Deno?: { env: { get(name: string): string | undefined } } }).Deno;
export const home: string | undefined = runtime?.env.get("HOME");
