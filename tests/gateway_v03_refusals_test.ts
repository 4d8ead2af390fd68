// Every A2A 0.3 refusal on the wire, over real loopback HTTP on both
// bindings, each naming what was wrong in the binding's own error form.
import assert from "node:assert/strict";
import { SEAM_EXTENSION_URI } from "../gateway/mod.ts";
import { error, message03, rest, rpc, withGateway } from "./gateway_support.ts";

Deno.test("gateway a2a03: every refusal names what was wrong", async (t) => {
  await withGateway({ a2a03: true }, async (served) => {
    const jsonRpcCases: [string, string, unknown, RegExp, number?][] = [
      ["a part without kind", "message/send", {
        message: message03([{ text: "hi" }]),
      }, /message\.parts\[0\]\.kind: kind must be "text", "file" or "data".*1\.0 form/],
      ["a 1.0 role", "message/send", {
        message: message03([{ kind: "text", text: "hi" }], { role: "ROLE_USER" }),
      }, /message\.role: must be "user" \(ROLE_USER is the A2A 1\.0 form\)/],
      ["an agent role", "message/send", {
        message: message03([{ kind: "text", text: "hi" }], { role: "agent" }),
      }, /message\.role: must be "user"/],
      ["an unknown params field", "message/send", {
        message: message03([{ kind: "text", text: "hi" }]),
        tenant: "bare",
      }, /params: unknown field "tenant"/],
      ["an unknown message field", "message/send", {
        message: message03([{ kind: "text", text: "hi" }], { context_id: "c" }),
      }, /message: unknown field "context_id"/],
      ["data that is not an object", "message/send", {
        message: message03([{ kind: "data", data: [1, 2] }]),
      }, /message\.parts\[0\]\.data: must be a JSON object in A2A 0\.3/],
      ["a file with neither bytes nor uri", "message/send", {
        message: message03([{ kind: "file", file: { mimeType: "text/plain" } }]),
      }, /message\.parts\[0\]\.file: must hold either bytes/],
      [
        "no parts",
        "message/send",
        { message: message03([]) },
        /message\.parts: must hold at least one part/,
      ],
      ["a non-boolean blocking", "message/send", {
        message: message03([{ kind: "text", text: "hi" }]),
        configuration: { blocking: "yes" },
      }, /configuration\.blocking/],
      ["a negative historyLength", "tasks/get", { id: "t", historyLength: -1 }, /historyLength/],
      ["no task id", "tasks/cancel", {}, /A2A 0\.3 tasks\/cancel params\): id/],
      ["params that are a list", "tasks/get", [1], /params must be an object/],
      ["tasks/list, not a 0.3 method", "tasks/list", {}, /A2A 0\.3: message\/send/, -32601],
      ["a push config", "tasks/pushNotificationConfig/set", {}, /Push notifications/, -32003],
    ];
    for (const [what, method, params, pattern, code] of jsonRpcCases) {
      await t.step(`JSON-RPC: ${what}`, async () => {
        const e = error((await rpc(served, method, params)).body);
        assert.equal(e.code, code ?? -32602, e.message);
        assert.match(e.message, pattern);
      });
    }

    await t.step("JSON-RPC: an unknown task is -32001", async () => {
      const e = error((await rpc(served, "tasks/get", { id: "no-such" })).body);
      assert.equal(e.code, -32001);
    });

    const send = (message: Record<string, unknown>) => ({ message });
    const restCases: [string, string, string, unknown, RegExp, number, number?][] = [
      [
        "JSON-RPC-shaped parts",
        "POST",
        "/v1/message:send",
        send({
          messageId: "m",
          role: "ROLE_USER",
          parts: [{ kind: "text", text: "hi" }],
        }),
        /message\.content: must hold the parts \(A2A 0\.3 proto JSON names them content; parts is the JSON-RPC form\)/,
        400,
      ],
      [
        "a 0.3 JSON role",
        "POST",
        "/v1/message:send",
        send({
          messageId: "m",
          role: "user",
          content: [{ text: "hi" }],
        }),
        /message\.role: must be "ROLE_USER" \(proto JSON; "user" is the 0\.3 JSON-RPC form\)/,
        400,
      ],
      [
        "a part with two contents",
        "POST",
        "/v1/message:send",
        send({
          messageId: "m",
          role: "ROLE_USER",
          content: [{ text: "hi", data: { data: {} } }],
        }),
        /message\.content\[0\]: a part must hold exactly one of text, file or data/,
        400,
      ],
      [
        "a field given twice",
        "POST",
        "/v1/message:send",
        send({
          messageId: "m",
          message_id: "m",
          role: "ROLE_USER",
          content: [{ text: "hi" }],
        }),
        /field "messageId" is given twice/,
        400,
      ],
      ["a body that is not JSON", "POST", "/v1/message:send", "{nope", /./, 400, -32700],
      [
        "a body that is a list",
        "POST",
        "/v1/message:send",
        [],
        /the body must be a JSON object/,
        400,
      ],
      [
        "a bad historyLength",
        "GET",
        "/v1/tasks/t1?historyLength=ten",
        undefined,
        /historyLength must be a non-negative integer, got "ten"/,
        400,
      ],
      ["an unknown task", "GET", "/v1/tasks/no-such", undefined, /./, 404, -32001],
      [
        "a push config",
        "POST",
        "/v1/tasks/t1/pushNotificationConfigs",
        {},
        /Push notifications/,
        400,
        -32003,
      ],
      [
        "the extended card, none configured",
        "GET",
        "/v1/card",
        undefined,
        /Extended agent card not configured/,
        400,
        -32007,
      ],
    ];
    for (const [what, method, path, body, pattern, status, code] of restCases) {
      await t.step(`HTTP+JSON: ${what}`, async () => {
        const r = await rest(served, method, path, body);
        assert.equal(r.status, status, JSON.stringify(r.body));
        assert.equal(r.body.code, code ?? -32602);
        assert.match(r.body.message as string, pattern);
        assert.equal("error" in r.body, false, "a bare 0.3 error body, not google.rpc.Status");
      });
    }

    await t.step("HTTP+JSON: a wrong HTTP method is 405 with Allow", async () => {
      const r = await rest(served, "DELETE", "/v1/message:send");
      assert.equal(r.status, 405);
      assert.equal(r.headers.get("allow"), "POST");
      assert.match(r.body.message as string, /Method not allowed: DELETE/);
    });

    await t.step("HTTP+JSON: another content type is -32005", async () => {
      const r = await rest(served, "POST", "/v1/message:send", "hi", {
        "content-type": "text/plain",
      });
      assert.equal(r.body.code, -32005);
      assert.match(r.body.message as string, /text\/plain/);
    });

    await t.step(
      "HTTP+JSON: snake_case proto names are read as proto JSON parsers do",
      async () => {
        const r = await rest(served, "POST", "/bare/v1/message:send", {
          request: { message_id: "m", role: "ROLE_USER", content: [{ text: "complete snake" }] },
          configuration: { blocking: true, history_length: 5 },
        });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        const task = r.body.task as Record<string, Record<string, unknown>>;
        assert.equal(task.status.state, "TASK_STATE_COMPLETED");
        assert.equal(
          (task.metadata[SEAM_EXTENSION_URI] as Record<string, unknown>).provider,
          "bare",
        );
      },
    );
  });
});
