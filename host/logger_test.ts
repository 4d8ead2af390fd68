import assert from "node:assert/strict";
import { createLogger, createMemoryLogger, type LogRecord } from "./mod.ts";

Deno.test("createLogger() filters by level and names children", () => {
  const records: LogRecord[] = [];
  const logger = createLogger({ level: "warn", sink: (r) => records.push(r), name: "app" });
  logger.debug("no");
  logger.info("no");
  logger.warn("yes", 1);
  logger.child("sub").error("also");
  assert.deepEqual(records.map((r) => [r.level, r.name, r.message]), [
    ["warn", "app", "yes"],
    ["error", "app:sub", "also"],
  ]);
  assert.deepEqual(records[0].data, [1]);
});

Deno.test("createLogger() rejects an unknown level and survives a broken sink", () => {
  assert.throws(() => createLogger({ level: "loud" as never }), /unknown level "loud"/);
  const logger = createLogger({
    sink: () => {
      throw new Error("sink down");
    },
  });
  logger.error("still fine");
  const silent = createLogger({ level: "silent", sink: () => assert.fail("silent logs nothing") });
  silent.error("dropped");
});

Deno.test("createMemoryLogger() keeps every record", () => {
  const { logger, records } = createMemoryLogger();
  logger.debug("d");
  logger.error("e");
  assert.deepEqual(records.map((r) => r.level), ["debug", "error"]);
});

Deno.test("createLogger() refuses an unknown option, naming the known ones", () => {
  assert.throws(
    () => createLogger({ levle: "debug" } as never),
    {
      name: "TypeError",
      message: "Cannot create logger: unknown option levle (known: level, sink, name)",
    },
  );
});
