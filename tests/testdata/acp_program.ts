// A whole program, as a user writes it: a host, an ACP provider with a warm
// process (`reuseProcess`) registered on the host's scope, one delegation,
// and the host's scope disposed at the end. It never calls the provider's
// own dispose(): the registration ends it, so the program exits.
// Usage: deno run --allow-env --allow-run acp_program.ts <deno> <test agent>
import { createRootScope, textOf } from "@seam/host";
import { createSubagentService } from "@seam/subagent";
import { createAcpProvider } from "@seam/subagent-acp";

const [denoPath, testAgent] = Deno.args;
const root = createRootScope();
const subagents = createSubagentService(root);
subagents.registerProvider(createAcpProvider({
  command: denoPath,
  args: ["run", "--quiet", "--no-config", "--no-lock", "--allow-env", "--allow-run", testAgent],
  reuseProcess: true,
  disposeEofGraceMs: 500,
  disposeGraceMs: 500,
}));
const parent = { id: "main", scope: root.child("main") };
const run = subagents.start("acp", { prompt: "complete hello from the warm process", parent });
try {
  console.log(textOf((await run.result).output));
} finally {
  await run.dispose();
}
await root.dispose();
console.log("disposed");
