import assert from "node:assert/strict";
import { type AcpProviderConfig, createAcpProvider } from "./mod.ts";

Deno.test("createAcpProvider() rejects a bad config naming the field", () => {
  const bad: [unknown, RegExp, ErrorConstructor][] = [
    [undefined, /config must be an object/, TypeError],
    [{}, /config\.command must be a non-empty string, got undefined/, TypeError],
    [{ command: "" }, /config\.command must be a non-empty string/, TypeError],
    [{ command: "a", args: "x" }, /config\.args must be an array of strings/, TypeError],
    [{ command: "a", args: ["x", 1] }, /config\.args\[1\] must be a string/, TypeError],
    [{ command: "a", cwd: 3 }, /config\.cwd must be a non-empty string/, TypeError],
    [{ command: "a", env: { A: 1 } }, /config\.env\.A must be a string/, TypeError],
    [{ command: "a", env: { "A=B": "x" } }, /config\.env must be variable names/, TypeError],
    [{ command: "a", name: "" }, /config\.name must be a non-empty string/, TypeError],
    [
      { command: "a", permission: "maybe" },
      /config\.permission must be "reject", "allow", "ask" or a function/,
      TypeError,
    ],
    [{ command: "a", reuseProcess: 1 }, /config\.reuseProcess must be a boolean/, TypeError],
    [{ command: "a", launcher: "sudo" }, /config\.launcher must be one of/, TypeError],
    [{ command: "a", logger: {} }, /config\.logger must be a Logger/, TypeError],
    [{ command: "a", disposeGraceMs: "1" }, /config\.disposeGraceMs must be a positive/, TypeError],
    [{ command: "a", disposeGraceMs: 0 }, /config\.disposeGraceMs must be a positive/, RangeError],
    [{ command: "a", disposeEofGraceMs: -1 }, /config\.disposeEofGraceMs .*got -1/, RangeError],
    [{ command: "a", disposeEofGraceMs: Infinity }, /disposeEofGraceMs/, RangeError],
    [{ command: "a", startupTimeoutMs: NaN }, /config\.startupTimeoutMs .*got NaN/, RangeError],
    [{ command: "a", cancelGraceMs: 0 }, /config\.cancelGraceMs must be a positive/, RangeError],
    [{ command: "a", turnTimeoutMs: -1 }, /config\.turnTimeoutMs must be a positive/, RangeError],
    [{ command: "a", authMethod: "" }, /config\.authMethod must be a non-empty string/, TypeError],
    [
      { command: "a", maxMessageBytes: 1.5 },
      /config\.maxMessageBytes must be a positive integer/,
      RangeError,
    ],
  ];
  for (const [config, message, kind] of bad) {
    assert.throws(
      () => createAcpProvider(config as AcpProviderConfig),
      (e: unknown) => e instanceof kind && message.test((e as Error).message),
      JSON.stringify(config),
    );
  }
});

Deno.test("createAcpProvider() refuses an unknown option, naming the known ones", () => {
  // A misspelled `permission` used to fall back silently to "reject".
  assert.throws(
    () => createAcpProvider({ command: "a", permision: "allow" } as AcpProviderConfig),
    (e: unknown) =>
      e instanceof TypeError &&
      e.message ===
        "Cannot create the ACP provider: unknown option permision (known: command, args, cwd, " +
          "env, name, permission, disposeEofGraceMs, disposeGraceMs, cancelGraceMs, " +
          "turnTimeoutMs, authMethod, startupTimeoutMs, maxMessageBytes, reuseProcess, logger, " +
          "launcher, pool)",
  );
  assert.throws(
    () => createAcpProvider({ command: "a", pool: {}, turnTimeout: 5 } as AcpProviderConfig),
    /unknown option turnTimeout \(known: command, /,
  );
});

Deno.test("createAcpProvider() accepts a full config", async () => {
  const provider = createAcpProvider({
    command: "agent",
    args: ["--acp"],
    cwd: "/tmp",
    env: { A: "b" },
    name: "mine",
    permission: () => "allow",
    disposeEofGraceMs: 1,
    disposeGraceMs: 0.5,
    startupTimeoutMs: 10,
    maxMessageBytes: 1024,
    reuseProcess: true,
    launcher: "direct",
  });
  assert.equal(provider.name, "mine");
  await provider.dispose();
  assert.throws(
    () => provider.start({ prompt: [], parent: {} as never }),
    /Cannot start an ACP run: provider "mine" was disposed/,
  );
});
