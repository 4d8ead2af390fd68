import { testTaskStorage } from "@seam/gateway/testing";
import type { TaskStorage } from "@seam/gateway";
import type { PostgresTaskStore } from "./mod.ts";
import { dropSchema, freshSchema, openStore, SKIP } from "./_test_support.ts";

Deno.test({
  name: "createPostgresTaskStore() passes the storage conformance suite",
  ignore: SKIP,
  fn: async (t) => {
    const schemas: string[] = [];
    await testTaskStorage(t, {
      open: (leaseTtlMs) => {
        const schema = freshSchema();
        schemas.push(schema);
        return openStore(schema, { leaseTtlMs: Math.max(leaseTtlMs, 100) });
      },
      another: (first) =>
        openStore((first as PostgresTaskStore).schema, { leaseTtlMs: first.leaseTtlMs }),
      close: (storage: TaskStorage) => (storage as PostgresTaskStore).close(),
    });
    for (const schema of schemas) await dropSchema(schema);
  },
});
