import assert from "node:assert/strict";
import { isV03Route } from "./_v03_rest.ts";

Deno.test("isV03Route() knows the 0.3 paths, with no empty segment", () => {
  const yes = [
    ["v1", "message:send"],
    ["spawn", "v1", "tasks", "x:subscribe"],
    ["v1", "tasks", "x", "pushNotificationConfigs"],
    ["v1", "tasks", "x", "pushNotificationConfigs", "c"],
    ["v1", "v1", "card"],
  ];
  for (const segs of yes) assert.equal(isV03Route(segs), true, segs.join("/"));
  const no = [
    ["message:send"],
    ["v1", "tasks"],
    ["v1", "tasks", ""],
    ["", "v1", "tasks", "x"],
    ["v1", "tasks", "x", "pushNotificationConfigs", ""],
    ["a", "b", "v1", "card"],
  ];
  for (const segs of no) assert.equal(isV03Route(segs), false, segs.join("/"));
});
