// Each framework adapter's provider against the framework's agent run
// directly (averages; bench/frameworks_medians.ts reports the medians the
// issue's ≤ 10% goal is about). Nothing is closed inside a case (see
// _at_exit.ts): the scope goes with the process.
import { FRAMEWORKS, setupFrameworks } from "./frameworks_setup.ts";

const runs = setupFrameworks();

for (const framework of FRAMEWORKS) {
  Deno.bench({
    name: `${framework}: the agent directly`,
    group: framework,
    baseline: true,
    warmup: 50,
    n: 200,
    async fn() {
      await runs[framework].direct();
    },
  });
  Deno.bench({
    name: `${framework}: through ctx.subagents (start → result → dispose)`,
    group: framework,
    warmup: 50,
    n: 200,
    async fn() {
      await runs[framework].seam();
    },
  });
}
