import assert from "node:assert/strict";
import { routeOf } from "./_routes.ts";
import { isV1Route } from "../a2a03/_v03_version.ts";

Deno.test("routeOf() picks the binding as the Hono routes did", () => {
  const cases: [string, string, string, boolean, unknown][] = [
    ["GET", "http://h/.well-known/agent-card.json", "", false, { kind: "card" }],
    ["HEAD", "http://h/.well-known/agent-card.json?x=1", "", false, { kind: "card" }],
    ["GET", "http://h/spawn/.well-known/agent-card.json", "", false, {
      kind: "card",
      provider: "spawn",
    }],
    ["GET", "http://h/a%20b/.well-known/agent-card.json", "", false, {
      kind: "card",
      provider: "a b",
    }],
    ["GET", "http://h/a%2Fb/.well-known/agent-card.json", "", false, {
      kind: "card",
      provider: "a/b",
    }],
    ["GET", "http://h/a/b/.well-known/agent-card.json", "", false, { kind: "rest" }],
    ["GET", "http://h//.well-known/agent-card.json", "", false, { kind: "rest" }],
    ["GET", "http://h/.well-known/agent-card.json/", "", false, { kind: "rest" }],
    ["POST", "http://h/.well-known/agent-card.json", "", false, { kind: "rest" }],
    ["POST", "http://h/", "", false, { kind: "jsonRpc" }],
    ["POST", "http://h/?q#f", "", false, { kind: "jsonRpc" }],
    ["GET", "http://h/", "", false, { kind: "rest" }],
    ["POST", "http://h/a2a", "/a2a", false, { kind: "jsonRpc" }],
    ["POST", "http://h/a2a/", "/a2a", false, { kind: "jsonRpc" }],
    ["POST", "http://h/a2ab/", "/a2a", true, { kind: "rest" }],
    ["GET", "http://h/a2a/.well-known/agent-card.json", "/a2a", false, { kind: "card" }],
    ["GET", "http://h/.well-known/agent-card.json", "/a2a", false, { kind: "rest" }],
    ["GET", "http://h/a2ax/.well-known/agent-card.json", "/a2a", false, { kind: "rest" }],
    ["POST", "http://h/spawn/", "", false, { kind: "rest" }],
    ["POST", "http://h/spawn/", "", true, { kind: "jsonRpc", provider: "spawn" }],
    ["POST", "http://h/a2a/spawn/", "/a2a", true, { kind: "jsonRpc", provider: "spawn" }],
    ["POST", "http://h/message:send/", "", true, { kind: "rest" }],
    ["POST", "http://h/spawn/message:send", "", true, { kind: "rest" }],
    ["DELETE", "http://h/", "", false, { kind: "rest" }],
    ["GET", "http://h/%E0%A4%A/.well-known/agent-card.json", "", false, {
      kind: "card",
      provider: "%E0%A4%A",
    }],
  ];
  for (const [method, url, basePath, v03, expected] of cases) {
    assert.deepEqual(
      routeOf(method, url, basePath, v03 ? isV1Route : undefined),
      expected,
      `${method} ${url} (${basePath})`,
    );
  }
});
