import { createMemoryTaskStore } from "./mod.ts";
import { testTaskStorage } from "./testing.ts";

Deno.test("createMemoryTaskStore() passes the storage conformance suite", (t) =>
  testTaskStorage(t, {
    open: (leaseTtlMs) => createMemoryTaskStore({ shared: true, leaseTtlMs }),
  }));
