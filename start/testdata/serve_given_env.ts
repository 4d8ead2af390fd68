// serveStart with an env function that differs from the process's: what a
// caller such as `seam serve` (its flags beating the environment) gives it.
import { serveStart } from "../main.ts";

const given: Record<string, string> = { SEAM_PUBLIC_URL: "https://given.example.test/" };
await serveStart((name) => given[name] ?? Deno.env.get(name));
