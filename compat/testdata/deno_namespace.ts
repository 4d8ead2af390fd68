// Fixture: reaches for Deno's namespace inside a function (only the type check sees it).
export function home(): string | undefined {
  return Deno.env.get("HOME");
}
