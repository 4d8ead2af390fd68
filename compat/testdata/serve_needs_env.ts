// Fixture: a `deno serve` entry that reads the environment while loading.
const runtime = (globalThis as { Deno?: { env: { get(name: string): string | undefined } } }).Deno;
const greeting = runtime?.env.get("GREETING") ?? "hello";

export default {
  fetch(_request: Request): Response {
    return new Response(greeting);
  },
};
