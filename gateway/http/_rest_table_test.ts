import assert from "node:assert/strict";
import { matchRoute, type RestRoute, type RestTable, restTable } from "./_rest_table.ts";

const route = (name: string): RestRoute => ({
  methods: [name],
  handle: () => Promise.resolve(new Response()),
});
const send = route("send");
const cancel = route("cancel");
const get = route("get");
const push = route("push");

const ROUTES = restTable({
  "message:send": send,
  "tasks/{id}:cancel": cancel,
  "tasks/{id}": get,
  "tasks/{id}/configs": push,
  "tasks/{id}/configs/{configId}": push,
});

/** The match of `segs` in `table`: its route, tenant, id and config id. */
const found = (table: RestTable, segs: string[]) => {
  const m = matchRoute(table, segs);
  return m && [m.route, m.tenant, m.id, m.configId];
};

Deno.test("matchRoute() matches a table's paths, parameters and tenants", async (t) => {
  await t.step("a literal path, and no path at all", () => {
    assert.deepEqual(found(ROUTES, ["message:send"]), [send, undefined, "", undefined]);
    assert.equal(found(ROUTES, ["message:sent"]), undefined);
    assert.equal(found(ROUTES, []), undefined);
    assert.equal(found(ROUTES, ["tasks", "x", "other"]), undefined);
  });

  await t.step("a parameter takes its segment but the literal suffix", () => {
    assert.deepEqual(found(ROUTES, ["tasks", "a:b:cancel"]), [cancel, undefined, "a:b", undefined]);
  });

  await t.step("the first path that fits answers", () => {
    const later = restTable({ "tasks/{id}": get, "tasks/{id}:cancel": cancel });
    assert.deepEqual(found(later, ["tasks", "x:cancel"]), [get, undefined, "x:cancel", undefined]);
  });

  await t.step("a second parameter", () => {
    assert.deepEqual(found(ROUTES, ["tasks", "t", "configs"]), [push, undefined, "t", undefined]);
    assert.deepEqual(found(ROUTES, ["tasks", "t", "configs", "c"]), [push, undefined, "t", "c"]);
  });

  await t.step("the first segment as the tenant, only when the path does not fit as it is", () => {
    assert.deepEqual(found(ROUTES, ["spawn", "tasks", "x"]), [get, "spawn", "x", undefined]);
    assert.deepEqual(found(ROUTES, ["tasks", "message:send"]), [
      get,
      undefined,
      "message:send",
      undefined,
    ]);
    assert.equal(found(ROUTES, ["a", "b", "message:send"]), undefined);
  });

  await t.step("an empty segment is a parameter's too (the handler names an empty id)", () => {
    assert.deepEqual(found(ROUTES, ["tasks", ""]), [get, undefined, "", undefined]);
  });
});
