// Test support: a PostgreSQL store on a schema of its own, dropped after.
import postgres from "postgres";
import { createPostgresTaskStore, type PostgresTaskStore } from "./mod.ts";

/** The database the tests use; undefined (skip, saying so) only outside CI. */
export function databaseUrl(): string | undefined {
  const url = Deno.env.get("DATABASE_URL");
  if (url) return url;
  if (Deno.env.get("CI") === "true") {
    throw new Error("DATABASE_URL must be set in CI: the PostgreSQL tests always run there");
  }
  return undefined;
}

/** Whether to skip: logs why once. */
export const SKIP: boolean = (() => {
  const url = databaseUrl();
  if (!url) {
    console.warn(
      "gateway_postgres: DATABASE_URL is unset (and not in CI): skipping the PostgreSQL tests",
    );
  }
  return !url;
})();

/** A fresh schema name for one test run. */
export function freshSchema(): string {
  return `t_${crypto.randomUUID().replaceAll("-", "").slice(0, 16)}`;
}

/** Drop `schema` and everything in it. */
export async function dropSchema(schema: string): Promise<void> {
  const sql = postgres(databaseUrl()!, { max: 1, onnotice: () => {} });
  try {
    await sql.unsafe(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Open a store on `schema` (a fresh one by default). */
export function openStore(
  schema: string,
  options: { leaseTtlMs?: number; url?: string } = {},
): Promise<PostgresTaskStore> {
  return createPostgresTaskStore({
    url: options.url ?? databaseUrl()!,
    schema,
    leaseTtlMs: options.leaseTtlMs,
    maxConnections: 4,
  });
}
