// CPU time per in-process gateway `SendMessage`: `gateway.fetch` on a
// blocking JSON-RPC `SendMessage` to an echo provider, 10 in flight (the loop
// of `bench/alloc.ts` without the profiler), timed by `process.cpuUsage()` so
// that time the process spends waiting for a core another job holds is not
// counted. One tree per process: compare two checkouts by running this file
// from each, alternating (bench/README.md, session 14).
//
//   deno run -A bench/gateway_fetch_cpu.ts [--batches=6000] [--warmup=2000]
//
// Printed, never asserted.
import process from "node:process";
import { createLogger, createRootScope } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createGateway } from "../gateway/mod.ts";
import { LOAD_BODY } from "./gateway_load_server.ts";
import { echo } from "./_echo_provider.ts";

const flag = (name: string, fallback: number): number => {
  const found = Deno.args.find((a) => a.startsWith(`--${name}=`));
  return found ? Number(found.slice(name.length + 3)) : fallback;
};
const BATCHES = flag("batches", 6_000);
const WARMUP = flag("warmup", 2_000);

const root = createRootScope({ logger: createLogger({ level: "silent" }) });
createSubagentService(root).registerProvider(echo);
const gateway = createGateway({ scope: root });
const headers = { "content-type": "application/json", "a2a-version": "1.0" };
const send = async (): Promise<void> => {
  const request = new Request("http://127.0.0.1/", { method: "POST", headers, body: LOAD_BODY });
  await (await gateway.fetch(request)).text();
};
const ten = (): Promise<unknown> => Promise.all(Array.from({ length: 10 }, send));

for (let i = 0; i < WARMUP; i++) await ten();
const cpu0 = process.cpuUsage();
const t0 = performance.now();
for (let i = 0; i < BATCHES; i++) await ten();
const cpu = process.cpuUsage(cpu0);
const wall = (performance.now() - t0) * 1000;
const requests = BATCHES * 10;
console.log(`cpu ${((cpu.user + cpu.system) / requests).toFixed(2)} µs/request`);
console.log(`wall ${(wall / requests).toFixed(2)} µs/request (${requests} requests)`);
await gateway.close();
await root.dispose();
