import assert from "node:assert/strict";
import { GatewayError } from "../core/_errors.ts";
import {
  getParamsFromJson,
  idParamsFromJson,
  sendParamsFromJson,
  sendParamsFromProto,
} from "../a2a03/_v03_params.ts";
import {
  listQueryToParams,
  parseGetParams,
  parseIdParams,
  parseListParams,
  parseSendParams,
  parseSendParamsWithSchema,
} from "./_validate.ts";
import cases from "../testdata/params_refusals.json" with { type: "json" };

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
  // Proto field names, as ProtoJSON parsers accept them.
  {
    message: {
      message_id: "m",
      role: "ROLE_USER",
      parts: [{ url: "https://x", media_type: "a/b" }],
      context_id: "c",
    },
    configuration: { history_length: 2, return_immediately: true },
  },
];

const invalid: unknown[] = [
  null,
  // An unknown field is refused, never ignored.
  { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x" }] }, extra: true },
  { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x" }], colour: "red" } },
  { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x", lang: "en" }] } },
  {
    message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x" }] },
    configuration: { blocking: true },
  },
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
    assert.deepEqual(strip(quick), strip(schema), JSON.stringify(value));
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

Deno.test("parse*Params() take proto field names and refuse unknown or doubled ones", () => {
  const listed = parseListParams({ context_id: "c", page_size: 5, history_length: 1 });
  assert.equal(listed.contextId, "c");
  assert.equal(listed.pageSize, 5);
  assert.equal(listed.historyLength, 1);
  assert.equal(parseGetParams({ id: "t", history_length: 1 }).historyLength, 1);
  const refused = (fn: () => unknown, pattern: RegExp) =>
    assert.throws(fn, (e: GatewayError) => e.kind === "invalidParams" && pattern.test(e.message));
  refused(
    () => parseListParams({ contextId: "c", filter: "x" }),
    /params: unknown field "filter" \(refused rather than ignored\)/,
  );
  refused(
    () => parseListParams({ pageSize: 5, page_size: 6 }),
    /params gives "pageSize" twice \(as "pageSize" and as "page_size"\)/,
  );
  assert.equal(listQueryToParams(new URLSearchParams("page_size=7")).pageSize, 7);
});

Deno.test("parse*Params() word each refusal as the zod schemas did (recorded with zod 4.6.7)", () => {
  const parsers: Record<string, (value: unknown) => unknown> = {
    send: parseSendParams,
    get: parseGetParams,
    id: parseIdParams,
    list: parseListParams,
    json3: (value) => sendParamsFromJson(value, "t"),
    proto3: (value) => sendParamsFromProto(value, undefined),
    get3: (value) => getParamsFromJson(value, undefined),
    id3: (value) => idParamsFromJson(value, undefined, "tasks/cancel"),
  };
  assert.ok(cases.length > 150);
  for (
    const { parser, input, ...expected } of cases as {
      parser: string;
      input: unknown;
      error?: string;
      accepted?: unknown;
    }[]
  ) {
    const what = `${parser} ${JSON.stringify(input)}`;
    if (expected.error === undefined) {
      const accepted = JSON.parse(JSON.stringify(parsers[parser](structuredClone(input))));
      assert.deepEqual(accepted, expected.accepted, what);
    } else {
      assert.throws(
        () => parsers[parser](structuredClone(input)),
        (error: GatewayError) => {
          assert.equal(error.kind, "invalidParams", what);
          assert.equal(error.message, expected.error, what);
          return true;
        },
      );
    }
  }
});
