// Bytes moved to V8's old generation per operation, summed from the
// scavenges' `promoted` figures (`--trace-gc-nvp`), each kind in a process
// of its own. An object promoted is one an old-generation collection must
// find, mark and later free: what a request leaves there beyond what it
// keeps is garbage-collection work for nothing.
//
//   deno run -A bench/promoted.ts [--n=60000] [--only=gateway,map,short-lived-map]
//
// gateway: a blocking JSON-RPC `SendMessage` through `gateway.fetch` to an
// echo provider, 10 in flight (what the memory store keeps of each task is
// promoted by design: its JSON); map / short-lived-map: a short-lived value
// held for a microtask in a long-lived `Map` / `ShortLivedMap`
// (gateway/_short_lived_map.ts), 10 in flight, ten times as many. Printed,
// never asserted.
import { createLogger, createRootScope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createGateway } from "../gateway/mod.ts";
import { LOAD_BODY } from "./gateway_load_server.ts";
import { echo } from "./_echo_provider.ts";

const flags = new Map(
  Deno.args.filter((a) => a.startsWith("--")).map((a) => {
    const [k, v] = a.slice(2).split("=");
    return [k, v ?? "true"] as const;
  }),
);
const N = Number(flags.get("n") ?? 60_000);
const child = flags.get("child");

async function runChild(kind: string): Promise<void> {
  let op: () => Promise<void>;
  let close = () => Promise.resolve();
  if (kind === "gateway") {
    const root = createRootScope({ logger: createLogger({ level: "silent" }) });
    createSubagentService(root).registerProvider(echo);
    const gateway = createGateway({ scope: root });
    const headers = { "content-type": "application/json", "a2a-version": "1.0" };
    op = async () => {
      const request = new Request("http://127.0.0.1/", {
        method: "POST",
        headers,
        body: LOAD_BODY,
      });
      await (await gateway.fetch(request)).text();
    };
    close = async () => {
      await gateway.close();
      await root.dispose();
    };
  } else {
    // Imported here, so `--only=gateway` also runs in a checkout without it (a before/after pair).
    const { ShortLivedMap } = await import("../gateway/core/_short_lived_map.ts");
    const map = kind === "map" ? new Map<string, object>() : new ShortLivedMap<string, object>();
    let key = 0;
    op = async () => {
      const value = { a: [1, 2, 3], b: { c: `x${Math.random()}` }, d: new Array(20).fill(0) };
      const own = `k${key++}`;
      map.set(own, value);
      await Promise.resolve();
      map.delete(own);
    };
  }
  const ten = () => Promise.all(Array.from({ length: 10 }, op)).then(() => {});
  // Warm up, then mark where counting starts.
  for (let i = 0; i < 500; i++) await ten();
  console.log("COUNT-FROM-HERE");
  // The maps' operations are cheap: ten times as many, for as many scavenges.
  const count = kind === "gateway" ? N : N * 10;
  for (let i = 0; i < count / 10; i++) await ten();
  await close();
}

if (child) {
  await runChild(child);
} else {
  const rows: string[] = [];
  for (const kind of (flags.get("only") ?? "gateway,map,short-lived-map").split(",")) {
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-A",
        "--v8-flags=--trace-gc-nvp",
        new URL(import.meta.url).pathname,
        `--child=${kind}`,
        `--n=${N}`,
      ],
      stdout: "piped",
      stderr: "inherit",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    const counted = text.slice(text.indexOf("COUNT-FROM-HERE"));
    let promoted = 0;
    let scavenges = 0;
    for (const match of counted.matchAll(/"gc":"s".*?"promoted":(\d+)/g)) {
      promoted += Number(match[1]);
      scavenges++;
    }
    const count = kind === "gateway" ? N : N * 10;
    rows.push(`| ${kind} | ${(promoted / count).toFixed(0)} | ${scavenges} |`);
  }
  console.log(
    `\nbytes promoted per operation, ${N} gateway and ${
      N * 10
    } map operations after a warm-up; Deno ${Deno.version.deno}\n`,
  );
  console.log("| operation | bytes promoted per op | scavenges |");
  console.log("| --- | --- | --- |");
  for (const row of rows) console.log(row);
}
