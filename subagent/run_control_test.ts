import assert from "node:assert/strict";
import { findRunControl, registerRunControl } from "./mod.ts";
import { manualProvider, setup } from "./_test_fixtures.ts";

Deno.test("findRunControl() finds a run at or below the scope, never beside or above", async () => {
  const { root } = setup();
  const session = root.child("session");
  const below = session.child("child run").child("grandchild run");
  const beside = root.child("another session");
  const cancelled: string[] = [];
  const unregister = registerRunControl(below, "run-1", (reason) => cancelled.push(reason));
  // Another tree's run of the same id: each is found only in its own tree.
  const unregisterOther = registerRunControl(beside, "run-1", () => cancelled.push("other"));
  findRunControl(session, "run-1")!("the client cancelled it");
  findRunControl(below, "run-1")!("at its own scope");
  assert.deepEqual(cancelled, ["the client cancelled it", "at its own scope"]);
  assert.equal(findRunControl(below.child("below it"), "run-1"), undefined);
  assert.equal(findRunControl(session, "run-2"), undefined);
  unregister();
  unregister(); // harmless again
  assert.equal(findRunControl(session, "run-1"), undefined);
  assert.ok(findRunControl(root, "run-1"), "the other tree's run is still there");
  unregisterOther();
  assert.equal(findRunControl(root, "run-1"), undefined);
  await root.dispose();
});

Deno.test("findRunControl() finds every run the service started until it is disposed", async () => {
  const { root, service, parent } = setup();
  const provider = manualProvider("manual");
  service.registerProvider(provider);
  const run = service.start("manual", { prompt: "x", parent });
  const cancel = findRunControl(root, run.id);
  assert.ok(cancel, "a live run is registered under its parent's scope");
  cancel("from above");
  assert.deepEqual(provider.runs[0].cancels, ["from above"]);
  assert.equal(findRunControl(root.child("beside"), run.id), undefined);
  provider.runs[0].started.resolve();
  provider.runs[0].result.resolve({ stopReason: "aborted", output: [] });
  await run.result;
  // Two live at once; each found, each gone once disposed.
  const second = service.start("manual", { prompt: "y", parent });
  assert.ok(findRunControl(parent.scope, second.id));
  await run.dispose();
  assert.equal(findRunControl(root, run.id), undefined, "a disposed run is no longer found");
  assert.ok(findRunControl(root, second.id));
  await second.dispose();
  assert.equal(findRunControl(root, second.id), undefined);
  await root.dispose();
});

Deno.test("findRunControl() tells apart two services' runs of one id by their scope", async () => {
  const a = setup();
  const b = setup();
  const providers = [manualProvider("manual"), manualProvider("manual")];
  a.service.registerProvider(providers[0]);
  b.service.registerProvider(providers[1]);
  const runA = a.service.start("manual", { prompt: "x", parent: a.parent });
  const runB = b.service.start("manual", { prompt: "x", parent: b.parent });
  assert.equal(runA.id, runB.id);
  findRunControl(b.root, runB.id)!("only b");
  assert.deepEqual(providers.map((p) => p.runs[0].cancels), [[], ["only b"]]);
  await runA.dispose();
  await runB.dispose();
  await a.root.dispose();
  await b.root.dispose();
});
