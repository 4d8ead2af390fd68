// The sandbox of `edge_check.ts`: reads an ES module bundle on stdin and
// evaluates its top level the way an edge host's global scope allows it
// (Cloudflare Workers: "Disallowed operation called within global scope").
// Run with no permissions: `deno run --no-prompt --no-config _edge_sandbox.ts`.
//
// Trapped: timers (setTimeout, setInterval), I/O (fetch, WebSocket,
// EventSource), randomness (crypto.getRandomValues, crypto.randomUUID,
// crypto.subtle.generateKey, Math.random). Hidden: `Deno` and the Node
// globals (`process`, `Buffer`, `global`, `setImmediate`), which edge hosts
// lack. A trapped call throws and is recorded (even if the module catches
// it); a throw out of the top level is recorded too. Prints one line per
// violation and exits 1 if there is any, 0 otherwise.

const { exit, stdin } = Deno;
const code = await new Response(stdin.readable).text();
const restoreTimer = globalThis.setTimeout;
const violations: string[] = [];

function trap(owner: object, key: string, label: string): void {
  if (!(key in owner)) return;
  Object.defineProperty(owner, key, {
    configurable: true,
    writable: true,
    value: function trapped(): never {
      violations.push(`${label} called at module top level`);
      throw new Error(`Disallowed operation called within global scope: ${label}`);
    },
  });
}

for (const name of ["setTimeout", "setInterval", "fetch", "WebSocket", "EventSource"]) {
  trap(globalThis, name, name);
}
trap(crypto, "getRandomValues", "crypto.getRandomValues");
trap(crypto, "randomUUID", "crypto.randomUUID");
trap(crypto.subtle, "generateKey", "crypto.subtle.generateKey");
trap(Math, "random", "Math.random");
for (const name of ["Deno", "process", "Buffer", "global", "setImmediate"]) {
  Reflect.deleteProperty(globalThis, name);
}

try {
  const url = URL.createObjectURL(new Blob([code], { type: "text/javascript" }));
  await import(url);
  // Work the top level queued (promise callbacks) still runs at startup.
  await new Promise((resolve) => restoreTimer(resolve, 0));
} catch (error) {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  violations.push(`the module's top level threw ${message}`);
}

for (const violation of new Set(violations)) console.log(violation);
exit(violations.length === 0 ? 0 : 1);
