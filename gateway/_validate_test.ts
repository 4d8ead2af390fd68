import assert from "node:assert/strict";
import { GatewayError } from "./_errors.ts";
import { parseSendParams, parseSendParamsWithSchema } from "./_validate.ts";

const valid: unknown[] = [
  { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "hi" }] } },
  {
    tenant: "spawn",
    metadata: { a: 1 },
    message: {
      messageId: "m",
      role: 1,
      parts: [{ text: "a" }, { text: "" }],
      contextId: "c",
      taskId: "",
      metadata: { "https://x": { depth: 1 } },
    },
    configuration: {
      historyLength: 0,
      returnImmediately: true,
      acceptedOutputModes: ["text/plain"],
    },
  },
  // Shapes the quick path leaves to the schema.
  {
    message: { messageId: "m", role: "ROLE_USER", parts: [{ url: "https://x", mediaType: "a/b" }] },
  },
  { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x" }], extensions: ["u"] } },
  { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x" }] }, extra: true },
];

const invalid: unknown[] = [
  null,
  [],
  { message: { messageId: "", role: "ROLE_USER", parts: [{ text: "x" }] } },
  { message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "x" }] } },
  { message: { messageId: "m", role: "ROLE_USER", parts: [] } },
  { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: 1 }] } },
  { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x", data: 1 }] } },
  { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x" }] }, tenant: 3 },
  {
    message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x" }] },
    configuration: { historyLength: -1 },
  },
  {
    message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x" }] },
    configuration: { returnImmediately: "yes" },
  },
];

Deno.test("parseSendParams() accepts what the schema accepts, with the same content", () => {
  for (const value of valid) {
    const quick = parseSendParams(structuredClone(value));
    const schema = parseSendParamsWithSchema(structuredClone(value)) as unknown as {
      message: { contextId?: string; taskId?: string };
    };
    if (schema.message.contextId === "") schema.message.contextId = undefined;
    if (schema.message.taskId === "") schema.message.taskId = undefined;
    const strip = (v: unknown) => JSON.parse(JSON.stringify(v));
    const { extra: _, ...known } = strip(quick) as Record<string, unknown>;
    assert.deepEqual(known, strip(schema), JSON.stringify(value));
  }
});

Deno.test("parseSendParams() answers what the schema answers for bad params", () => {
  for (const value of invalid) {
    let quickError: unknown;
    let schemaError: unknown;
    try {
      parseSendParams(structuredClone(value));
    } catch (error) {
      quickError = error;
    }
    try {
      parseSendParamsWithSchema(structuredClone(value));
    } catch (error) {
      schemaError = error;
    }
    assert.ok(quickError instanceof GatewayError, JSON.stringify(value));
    assert.equal(quickError.kind, "invalidParams");
    assert.equal(quickError.message, (schemaError as GatewayError).message);
  }
});
