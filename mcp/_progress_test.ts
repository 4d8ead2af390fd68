import assert from "node:assert/strict";
import { ProgressStream } from "./_progress.ts";

Deno.test("ProgressStream keeps one send in flight and bounds what a non-reader holds", async () => {
  const sends: { progress: number; message: string; done: PromiseWithResolvers<void> }[] = [];
  const stream = new ProgressStream((progress, message) => {
    const done = Promise.withResolvers<void>();
    sends.push({ progress, message, done });
    return done.promise;
  }, 10);
  stream.push("first ");
  // The client does not read: everything else waits, and only the last 10 characters are kept.
  for (let i = 0; i < 1_000; i++) stream.push("abcdefghij");
  stream.push("0123456789");
  assert.equal(sends.length, 1);
  sends[0].done.resolve();
  await Promise.resolve();
  await Promise.resolve();
  assert.equal(sends.length, 2);
  assert.equal(sends[1].progress, 2);
  assert.equal(sends[1].message, "[10000 characters not delivered]0123456789");
  sends[1].done.resolve();
  stream.close();
  stream.push("late");
  await Promise.resolve();
  assert.equal(sends.length, 2);
});

Deno.test("ProgressStream.finish() sends what is pending before it resolves, and waits no longer than told", async () => {
  const sends: { message: string; done: PromiseWithResolvers<void> }[] = [];
  const stream = new ProgressStream((_progress, message) => {
    const done = Promise.withResolvers<void>();
    sends.push({ message, done });
    return done.promise;
  }, 100);
  stream.push("a ");
  stream.push("b ");
  let finished = false;
  const finishing = stream.finish(60_000).then(() => finished = true);
  sends[0].done.resolve();
  await Promise.resolve();
  await Promise.resolve();
  // "b " was pending behind the send in flight: it goes out before finish() resolves.
  assert.deepEqual(sends.map((s) => s.message), ["a ", "b "]);
  assert.equal(finished, false);
  sends[1].done.resolve();
  await finishing;
  // A client that never reads holds finish() only as long as it was told.
  const stuck = new ProgressStream(() => new Promise<void>(() => {}), 100);
  stuck.push("x");
  stuck.push("y");
  await stuck.finish(20);
  stuck.push("z");
});
