// The gateway serving A2A 0.3 beside 1.0, against `@a2a-js/sdk`'s 0.3
// compatibility client (`@a2a-js/sdk/compat/v0_3/client`) over real loopback
// HTTP on both bindings, with the card a 0.3 client reads; then every 0.3
// refusal on the wire, each naming what was wrong.
import assert from "node:assert/strict";
import {
  type AgentCard,
  type Message,
  Role,
  type StreamResponse,
  type Task,
  TaskState,
} from "@a2a-js/sdk";
import { Client, ClientFactory, ClientFactoryOptions } from "@a2a-js/sdk/client";
import {
  LegacyJsonRpcTransport,
  LegacyRestTransport,
  parseLegacyAgentCard,
} from "@a2a-js/sdk/compat/v0_3/client";
import { TaskNotFoundError } from "@a2a-js/sdk/errors";
import {
  type SubagentInputAsk,
  SubagentInputs,
  subagentProgress,
  type SubagentProvider,
  type SubagentResultInput,
} from "@seam/subagent";
import { getGatewayTask, SEAM_EXTENSION_URI } from "../gateway/mod.ts";
import { controlledProvider, withSetup } from "../gateway/_test_support.ts";
import {
  type Binding,
  BINDINGS,
  sendRequest,
  type Served,
  until,
  userMessage,
  withGateway,
} from "./gateway_support.ts";

/** The card as a 0.3 client fetches it (no A2A-Version header). */
async function card03(served: Served, path = "/.well-known/agent-card.json"): Promise<
  Record<string, unknown>
> {
  const response = await fetch(`${served.url}${path}`);
  assert.equal(response.status, 200);
  return await response.json();
}

/**
 * A 0.3 client made the way a 0.3 client reads the card: its 0.3 fields
 * (`url`, `preferredTransport`, `additionalInterfaces`, `protocolVersion`)
 * only, through the SDK's own 0.3 card parser and its 0.3 transport for
 * `binding`.
 */
async function client03(served: Served, binding: Binding, path?: string): Promise<Client> {
  const raw = await card03(served, path);
  const { supportedInterfaces: _v1, ...fields03 } = raw;
  const card: AgentCard = parseLegacyAgentCard(fields03);
  const iface = card.supportedInterfaces.find((i) => i.protocolBinding === binding);
  assert.ok(iface, `the 0.3 card lists ${binding}`);
  assert.equal(iface.protocolVersion, "0.3");
  const transport = binding === "JSONRPC"
    ? new LegacyJsonRpcTransport({ endpoint: iface.url })
    : new LegacyRestTransport({ endpoint: iface.url });
  return new Client(transport, card);
}

function asTask(result: unknown): Task {
  assert.ok(result && typeof result === "object" && "status" in result, "expected a task");
  return result as Task;
}

function textOf(task: Task): string {
  return task.artifacts.flatMap((a) => a.parts).map((p) =>
    p.content?.$case === "text" ? p.content.value : ""
  ).join("");
}

function kinds(events: StreamResponse[]): string[] {
  return events.map((e) => {
    const p = e.payload!;
    if (p.$case === "task") return `task:${TaskState[p.value.status!.state]}`;
    if (p.$case === "statusUpdate") return `status:${TaskState[p.value.status!.state]}`;
    if (p.$case === "artifactUpdate") return "artifact";
    return p.$case;
  });
}

/** Record the requests' A2A-Version headers as the server saw them. */
function versionsSeen(served: Served): string[] {
  return served.requests;
}

for (const binding of BINDINGS) {
  Deno.test(`gateway a2a03 over ${binding}: the SDK's 0.3 client sends, streams, gets, cancels, resubscribes`, async (t) => {
    await withGateway({ a2a03: true }, async (served) => {
      const client = await client03(served, binding);
      assert.equal(client.protocolVersion, "0.3");

      await t.step(
        "message/send blocks until the task ends and answers it in 0.3 form",
        async () => {
          const task = asTask(await client.sendMessage(sendRequest(userMessage("complete hello"))));
          assert.equal(task.status!.state, TaskState.TASK_STATE_COMPLETED);
          assert.equal(textOf(task), "hello");
          assert.ok(task.contextId);
          const seam = task.metadata?.[SEAM_EXTENSION_URI] as Record<string, unknown>;
          assert.equal(seam.provider, "reference");
          assert.equal(seam.stopReason, "completed");
          assert.ok(
            versionsSeen(served).some((r) =>
              binding === "JSONRPC" ? r === "POST /" : r === "POST /v1/message:send"
            ),
          );
        },
      );

      await t.step("tasks/get answers the task, its history cut to historyLength", async () => {
        const sent = asTask(await client.sendMessage(sendRequest(userMessage("complete again"))));
        const got = await client.getTask({ tenant: "", id: sent.id, historyLength: 1 });
        assert.equal(got.id, sent.id);
        assert.equal(got.status!.state, TaskState.TASK_STATE_COMPLETED);
        assert.equal(textOf(got), "again");
        assert.ok(got.history.length <= 1);
        await assert.rejects(
          client.getTask({ tenant: "", id: "no-such-task", historyLength: undefined }),
          (error) => error instanceof TaskNotFoundError || /-32001|not found/i.test(String(error)),
        );
      });

      await t.step("a failed run is TASK_STATE_FAILED with the gateway's note", async () => {
        const task = asTask(await client.sendMessage(sendRequest(userMessage("fail"))));
        assert.equal(task.status!.state, TaskState.TASK_STATE_FAILED);
      });

      await t.step(
        "message/stream: the task, WORKING, the artifact, COMPLETED (final)",
        async () => {
          const events: StreamResponse[] = [];
          for await (
            const event of client.sendMessageStream(sendRequest(userMessage("complete streamed")))
          ) events.push(event);
          const seen = kinds(events);
          assert.equal(seen[0], "task:TASK_STATE_SUBMITTED");
          assert.ok(seen.includes("status:TASK_STATE_WORKING"), seen.join());
          assert.ok(seen.includes("artifact"), seen.join());
          assert.equal(seen.at(-1), "status:TASK_STATE_COMPLETED");
        },
      );

      await t.step("blocking false returns at once; cancel ends the task CANCELED", async () => {
        const task = asTask(
          await client.sendMessage(sendRequest(userMessage("hang"), { returnImmediately: true })),
        );
        assert.ok(
          task.status!.state === TaskState.TASK_STATE_SUBMITTED ||
            task.status!.state === TaskState.TASK_STATE_WORKING,
          TaskState[task.status!.state],
        );
        await until(() => served.reference.live.size > 0);
        const canceled = await client.cancelTask({ tenant: "", id: task.id, metadata: undefined });
        assert.equal(canceled.status!.state, TaskState.TASK_STATE_CANCELED);
      });

      await t.step("tasks/resubscribe follows a live task to its end", async () => {
        const task = asTask(
          await client.sendMessage(sendRequest(userMessage("hang"), { returnImmediately: true })),
        );
        await until(() => served.reference.live.size > 0);
        const events: StreamResponse[] = [];
        const following = (async () => {
          for await (const event of client.resubscribeTask({ tenant: "", id: task.id })) {
            events.push(event);
            if (events.length === 1) {
              await client.cancelTask({ tenant: "", id: task.id, metadata: undefined });
            }
          }
        })();
        await following;
        assert.equal(kinds(events)[0].startsWith("task:"), true);
        assert.equal(kinds(events).at(-1), "status:TASK_STATE_CANCELED");
      });
    });
  });
}

/** POST a JSON-RPC request as a 0.3 client does (no A2A-Version unless given). */
async function rpc(
  served: Served,
  method: string,
  params: unknown,
  options: { headers?: Record<string, string>; path?: string } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${served.url}${options.path ?? "/"}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...options.headers },
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method, params }),
  });
  return { status: response.status, body: await response.json() };
}

/** An HTTP+JSON request as a 0.3 client does. */
async function rest(
  served: Served,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const response = await fetch(`${served.url}${path}`, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

function error(body: Record<string, unknown>): { code: number; message: string } {
  const e = body.error as { code: number; message: string } | undefined;
  assert.ok(e, `expected an error, got ${JSON.stringify(body).slice(0, 300)}`);
  return e;
}

function message03(parts: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { kind: "message", messageId: crypto.randomUUID(), role: "user", parts, ...extra };
}

Deno.test("gateway a2a03: the card", async (t) => {
  await withGateway({ a2a03: true }, async (served) => {
    await t.step("without A2A-Version: the 1.0 card plus the fields 0.3 clients read", async () => {
      const response = await fetch(`${served.url}/.well-known/agent-card.json`);
      assert.match(response.headers.get("vary") ?? "", /A2A-Version/);
      const card = await response.json();
      assert.equal(card.protocolVersion, "0.3");
      assert.equal(card.url, `${served.url}/`);
      assert.equal(card.preferredTransport, "JSONRPC");
      assert.deepEqual(card.additionalInterfaces, [
        { url: `${served.url}/`, transport: "JSONRPC" },
        { url: served.url, transport: "HTTP+JSON" },
      ]);
      assert.equal(card.supportsAuthenticatedExtendedCard, false);
      assert.deepEqual(
        card.supportedInterfaces.map((i: Record<string, string>) =>
          `${i.protocolBinding}@${i.protocolVersion}`
        ),
        ["JSONRPC@1.0", "HTTP+JSON@1.0", "JSONRPC@0.3", "HTTP+JSON@0.3"],
      );
    });

    await t.step(
      "with A2A-Version: 1.0: no 0.3 fields; the 0.3 interfaces after the 1.0 ones",
      async () => {
        const response = await fetch(`${served.url}/.well-known/agent-card.json`, {
          headers: { "a2a-version": "1.0" },
        });
        const card = await response.json();
        for (
          const field of ["url", "preferredTransport", "additionalInterfaces", "protocolVersion"]
        ) {
          assert.equal(field in card, false, field);
        }
        assert.equal(card.supportedInterfaces.length, 4);
        assert.equal(card.supportedInterfaces[0].protocolVersion, "1.0");
        assert.equal(card.supportedInterfaces[1].protocolVersion, "1.0");
      },
    );

    for (const binding of BINDINGS) {
      await t.step(
        `the 1.0 SDK client (legacy compat on) still picks 1.0 over ${binding}`,
        async () => {
          const factory = new ClientFactory(
            ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
              preferredTransports: [binding],
            }),
          );
          const client = await factory.createFromUrl(served.url);
          assert.equal(client.protocolVersion, "1.0");
          const task = asTask(await client.sendMessage(sendRequest(userMessage("complete v1"))));
          assert.equal(textOf(task), "v1");
        },
      );

      await t.step(
        `a provider's card gives 0.3 addresses of that provider (${binding})`,
        async () => {
          const card = await card03(served, "/bare/.well-known/agent-card.json");
          assert.equal(card.url, `${served.url}/bare/`);
          const client = await client03(served, binding, "/bare/.well-known/agent-card.json");
          const task = asTask(await client.sendMessage(sendRequest(userMessage("complete bare"))));
          assert.equal(textOf(task), "bare");
          const seam = task.metadata?.[SEAM_EXTENSION_URI] as Record<string, unknown>;
          assert.equal(seam.provider, "bare");
          const got = await client.getTask({ tenant: "", id: task.id, historyLength: undefined });
          assert.equal(got.id, task.id);
        },
      );
    }
  });

  await t.step("off by default: the card has no 0.3 field and no 0.3 interface", async () => {
    await withGateway({}, async (served) => {
      const response = await fetch(`${served.url}/.well-known/agent-card.json`);
      assert.equal((response.headers.get("vary") ?? "").includes("A2A-Version"), false);
      const card = await response.json();
      assert.equal("url" in card, false);
      assert.equal(card.supportedInterfaces.length, 2);
    });
  });

  await t.step(
    "with auth: 0.3 security schemes for 0.3, 1.0 ones for 1.0; a 0.3 client with its token",
    async () => {
      await withGateway({ a2a03: true, auth: { tokens: { alice: "tok-a" } } }, async (served) => {
        const c03 = await card03(served);
        assert.deepEqual(
          (c03.securitySchemes as Record<string, Record<string, string>>).bearer.type,
          "http",
        );
        assert.deepEqual(c03.security, [{ bearer: [] }]);
        const c10 = await (await fetch(`${served.url}/.well-known/agent-card.json`, {
          headers: { "a2a-version": "1.0" },
        })).json();
        assert.ok(c10.securitySchemes.bearer.httpAuthSecurityScheme);
        const refused = await rest(served, "POST", "/v1/message:send", {
          message: { messageId: "m", role: "ROLE_USER", content: [{ text: "complete x" }] },
        });
        assert.equal(refused.status, 401);
        assert.equal(typeof refused.body.code, "number");
        assert.match(refused.headers.get("www-authenticate") ?? "", /Bearer/);
        const fetchImpl: typeof fetch = (input, init) => {
          const headers = new Headers(init?.headers);
          headers.set("authorization", "Bearer tok-a");
          return fetch(input, { ...init, headers });
        };
        for (
          const transport of [
            new LegacyJsonRpcTransport({ endpoint: `${served.url}/`, fetchImpl }),
            new LegacyRestTransport({ endpoint: served.url, fetchImpl }),
          ]
        ) {
          const client = new Client(transport, parseLegacyAgentCard(c03));
          const task = asTask(await client.sendMessage(sendRequest(userMessage("complete mine"))));
          assert.equal(textOf(task), "mine");
        }
      });
    },
  );
});

Deno.test("gateway a2a03: a request's version is its header's, else its method's or route's", async (t) => {
  await withGateway({ a2a03: true }, async (served) => {
    await t.step("a 1.0 method without the header stays 1.0", async () => {
      const { body } = await rpc(served, "SendMessage", {
        message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "complete one" }] },
      });
      const result = body.result as { task: { status: { state: string } } };
      assert.equal(result.task.status.state, "TASK_STATE_COMPLETED");
    });

    await t.step("a 0.3 method without the header is 0.3 (kind, state)", async () => {
      const { body } = await rpc(served, "message/send", {
        message: message03([{ kind: "text", text: "complete three" }]),
      });
      const result = body.result as Record<string, unknown>;
      assert.equal(result.kind, "task");
      assert.equal((result.status as Record<string, unknown>).state, "completed");
      const artifact = (result.artifacts as { parts: unknown[] }[])[0];
      assert.deepEqual(artifact.parts, [{ kind: "text", text: "three" }]);
    });

    await t.step(
      "JSON-RPC: a configuration without blocking blocks (as 0.3 servers do)",
      async () => {
        const { body } = await rpc(served, "message/send", {
          message: message03([{ kind: "text", text: "complete blocked" }]),
          configuration: { acceptedOutputModes: ["text/plain"] },
        });
        const result = body.result as { status: { state: string } };
        assert.equal(result.status.state, "completed");
      },
    );

    await t.step(
      "HTTP+JSON: a configuration without blocking returns at once (proto3's false)",
      async () => {
        const response = await fetch(`${served.url}/v1/message:send`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            message: { messageId: "nb", role: "ROLE_USER", content: [{ text: "hang" }] },
            configuration: { acceptedOutputModes: ["text/plain"] },
          }),
          signal: AbortSignal.timeout(5_000),
        });
        const body = await response.json();
        assert.match(body.task.status.state, /^TASK_STATE_(SUBMITTED|WORKING)$/);
      },
    );

    await t.step("message/stream: 0.3 events with kind, the last status update final", async () => {
      const response = await fetch(`${served.url}/`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: "s1",
          method: "message/stream",
          params: { message: message03([{ kind: "text", text: "complete streamed" }]) },
        }),
      });
      assert.match(response.headers.get("content-type") ?? "", /text\/event-stream/);
      const events = (await response.text()).split("\n\n").filter((f) => f.startsWith("data: "))
        .map((f) => JSON.parse(f.slice(6)));
      assert.ok(events.every((e) => e.id === "s1" && e.jsonrpc === "2.0"));
      const results = events.map((e) => e.result);
      assert.equal(results[0].kind, "task");
      const statuses = results.filter((r) => r.kind === "status-update");
      assert.deepEqual(
        statuses.map((r) => `${r.status.state}:${r.final}`),
        ["working:false", "completed:true"],
      );
      assert.ok(results.some((r) => r.kind === "artifact-update"));
    });

    await t.step("one task for both versions: parts cross in their own forms", async () => {
      const { body } = await rpc(served, "message/send", {
        message: message03([
          { kind: "text", text: "complete parts" },
          { kind: "data", data: { value: 42 }, metadata: { data_part_compat: true } },
          { kind: "file", file: { bytes: "aGk=", mimeType: "image/png", name: "a.png" } },
          { kind: "file", file: { uri: "https://example.com/a.txt", mimeType: "text/plain" } },
        ]),
      });
      const id = (body.result as { id: string }).id;
      const v1 = await rpc(served, "GetTask", { id }, { headers: { "a2a-version": "1.0" } });
      const history = (v1.body.result as { history: { parts: unknown[] }[] }).history;
      assert.deepEqual(history[0].parts, [
        { text: "complete parts" },
        { data: 42 },
        { raw: "aGk=", mediaType: "image/png", filename: "a.png" },
        { url: "https://example.com/a.txt", mediaType: "text/plain" },
      ]);
      const v03 = await rpc(served, "tasks/get", { id });
      const parts = (v03.body.result as { history: { role: string; parts: unknown[] }[] })
        .history[0];
      assert.equal(parts.role, "user");
      assert.deepEqual(parts.parts.slice(1), [
        { kind: "data", data: { value: 42 }, metadata: { data_part_compat: true } },
        { kind: "file", file: { bytes: "aGk=", mimeType: "image/png", name: "a.png" } },
        { kind: "file", file: { uri: "https://example.com/a.txt", mimeType: "text/plain" } },
      ]);
      const proto = await rest(served, "GET", `/v1/tasks/${id}`);
      const history03 = (proto.body.history as { role: string; content: unknown[] }[])[0];
      assert.equal(history03.role, "ROLE_USER");
      assert.deepEqual(history03.content.slice(1), [
        { data: { data: { value: 42 } } },
        { file: { fileWithBytes: "aGk=", mimeType: "image/png" } },
        { file: { fileWithUri: "https://example.com/a.txt", mimeType: "text/plain" } },
      ]);
    });

    await t.step("A2A-Version: 0.3 is accepted with 0.3 methods", async () => {
      const { body } = await rpc(served, "message/send", {
        message: message03([{ kind: "text", text: "complete hdr" }]),
      }, { headers: { "a2a-version": "0.3" } });
      assert.equal((body.result as Record<string, unknown>).kind, "task");
    });

    await t.step("A2A-Version: 1.0 with a 0.3 method: -32601 naming the version", async () => {
      const { body } = await rpc(served, "message/send", {
        message: message03([{ kind: "text", text: "x" }]),
      }, { headers: { "a2a-version": "1.0" } });
      const e = error(body);
      assert.equal(e.code, -32601);
      assert.match(e.message, /A2A 0\.3 method.*A2A-Version 1\.0/);
    });

    await t.step("A2A-Version: 0.3 with a 1.0 method: -32601 naming its 0.3 name", async () => {
      const { body } = await rpc(served, "SendMessage", {
        message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x" }] },
      }, { headers: { "a2a-version": "0.3" } });
      const e = error(body);
      assert.equal(e.code, -32601);
      assert.match(e.message, /A2A 1\.0 method.*message\/send/);
    });

    await t.step("any other version: -32009 naming both", async () => {
      for (const [method, path] of [["message/send", "/"], ["SendMessage", "/"]]) {
        const { body } = await rpc(served, method, {}, {
          headers: { "a2a-version": "2.0" },
          path,
        });
        const e = error(body);
        assert.equal(e.code, -32009);
        assert.match(e.message, /"2\.0".*1\.0 and 0\.3/);
      }
      const r = await rest(served, "POST", "/v1/message:send", {}, { "a2a-version": "0.2" });
      assert.equal(r.status, 400);
    });

    await t.step("A2A-Version: 1.0 on /v1/…: a 1.0 route of tenant v1", async () => {
      const r = await rest(served, "POST", "/v1/message:send", {
        message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "complete x" }] },
      }, { "a2a-version": "1.0" });
      assert.notEqual(r.status, 200);
      assert.ok(r.body.error && typeof r.body.error === "object", "a google.rpc.Status body");
      assert.match((r.body.error as { message: string }).message, /v1/);
    });

    await t.step("A2A-Version: 0.3 on a 1.0 route: 404 naming the 0.3 routes", async () => {
      const r = await rest(served, "POST", "/message:send", {}, { "a2a-version": "0.3" });
      assert.equal(r.status, 404);
      assert.equal(r.body.code, -32601);
      assert.match(r.body.message as string, /\/v1\/message:send/);
    });

    await t.step(
      "a 1.0 route with a trailing slash stays 1.0, not a provider's 0.3 address",
      async () => {
        const r = await rest(served, "POST", "/message:send/", {
          message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "complete slash" }] },
        }, { "a2a-version": "1.0" });
        assert.equal(r.status, 200, JSON.stringify(r.body));
        assert.equal(
          (r.body.task as { status: { state: string } }).status.state,
          "TASK_STATE_COMPLETED",
        );
      },
    );

    await t.step("a provider's 0.3 JSON-RPC address refuses 1.0", async () => {
      const e1 = error(
        (await rpc(served, "message/send", {}, {
          path: "/bare/",
          headers: { "a2a-version": "1.0" },
        })).body,
      );
      assert.equal(e1.code, -32009);
      assert.match(e1.message, /0\.3 JSON-RPC address/);
      const e2 = error((await rpc(served, "SendMessage", {}, { path: "/bare/" })).body);
      assert.equal(e2.code, -32601);
      assert.match(e2.message, /message\/send/);
    });
  });

  await t.step("off by default: 0.3 methods and versions are refused, naming 1.0", async () => {
    await withGateway({}, async (served) => {
      const e1 = error((await rpc(served, "message/send", {})).body);
      assert.equal(e1.code, -32601);
      assert.match(e1.message, /A2A 0\.3 method.*SendMessage/);
      const e2 = error(
        (await rpc(served, "SendMessage", {}, { headers: { "a2a-version": "0.3" } })).body,
      );
      assert.equal(e2.code, -32009);
      const r = await rest(served, "POST", "/bare/", {});
      assert.equal(r.status, 404);
    });
  });
});

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

const PERMISSION: SubagentInputAsk = {
  kind: "permission",
  message: "The child wants to run a command",
  toolCall: { name: "shell", title: "Run rm -rf build", rawInput: { command: "rm -rf build" } },
  options: [
    { id: "allow", label: "Allow once", kind: "allow_once" },
    { id: "reject", label: "Reject", kind: "reject_once" },
  ],
};

/** A provider whose runs ask for permission once, then end with the option chosen. */
function askingProvider(): SubagentProvider {
  let n = 0;
  return {
    name: "asks",
    capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
    inheritsParentContext: false,
    start(request) {
      const id = `asks-${++n}`;
      const inputs = new SubagentInputs(request.parent.scope, id);
      const result = (async (): Promise<SubagentResultInput> => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        const answer = await inputs.ask(PERMISSION);
        return {
          output: answer.outcome === "selected" ? `chose ${answer.optionId}` : answer.outcome,
          stopReason: "completed",
        };
      })();
      return {
        id,
        started: Promise.resolve(),
        result,
        respond: (requestId, answer) => inputs.respond(requestId, answer),
        cancel: () => inputs.cancelAll("the run was cancelled"),
        dispose: () => result.then(() => {}),
      };
    },
  };
}

for (const binding of BINDINGS) {
  Deno.test(`gateway a2a03 over ${binding}: input-required, answered by a 0.3 message`, async () => {
    await withGateway({ a2a03: true }, async (served) => {
      served.subagents.registerProvider(askingProvider());
      const client = await client03(served, binding, "/asks/.well-known/agent-card.json");
      const asked = asTask(await client.sendMessage(sendRequest(userMessage("go"))));
      assert.equal(asked.status!.state, TaskState.TASK_STATE_INPUT_REQUIRED);
      const parts = asked.status!.message!.parts;
      assert.match(
        parts[0].content?.$case === "text" ? parts[0].content.value : "",
        /Run rm -rf build/,
      );
      assert.equal(parts[1].content?.$case, "data", "the request as a data part");
      const done = asTask(
        await client.sendMessage(
          sendRequest(userMessage("allow", { taskId: asked.id, contextId: asked.contextId })),
        ),
      );
      assert.equal(done.id, asked.id);
      assert.equal(done.status!.state, TaskState.TASK_STATE_COMPLETED);
      assert.equal(textOf(done), "chose allow");
    });
  });
}

Deno.test("gateway a2a03 over HTTP+JSON: a stream the client stops reading ends with an SSE error event the SDK's 0.3 client raises", async () => {
  const provider = controlledProvider();
  await withSetup(
    [provider],
    { a2a03: true, limits: { maxStreamBufferBytes: 4_096 } },
    async (s) => {
      const transport = new LegacyRestTransport({
        endpoint: "http://gw.test",
        fetchImpl: (input, init) => s.gateway.fetch(new Request(input, init)),
      });
      const stream = transport.sendMessageStream(sendRequest(userMessage("go")));
      const first = await stream.next();
      assert.equal(first.value?.payload?.$case, "task");
      const run = provider.runs[0];
      run.ready();
      await new Promise((resolve) => setTimeout(resolve, 0));
      const chunk = "x".repeat(1_000);
      for (let i = 0; i < 100; i++) {
        run.request.parent.scope.emit(subagentProgress, {
          runId: run.id,
          kind: "text",
          text: chunk,
        });
      }
      assert.equal(s.gateway.liveTasks, 1, "the task goes on");
      await assert.rejects(
        (async () => {
          for await (const _ of stream) { /* drain what was buffered */ }
        })(),
        /Stream closed: the client is not reading it/,
      );
      run.finish({ output: "done", stopReason: "completed" });
    },
  );
});

Deno.test("gateway a2a03 under basePath: the 0.3 addresses include it", async (t) => {
  await withGateway({ a2a03: true, basePath: "/a2a" }, async (served) => {
    for (const binding of BINDINGS) {
      for (
        const card of ["/a2a/.well-known/agent-card.json", "/a2a/bare/.well-known/agent-card.json"]
      ) {
        await t.step(`${binding} from ${card}`, async () => {
          const client = await client03(served, binding, card);
          const task = asTask(await client.sendMessage(sendRequest(userMessage("complete based"))));
          assert.equal(textOf(task), "based");
          const seam = task.metadata?.[SEAM_EXTENSION_URI] as Record<string, unknown>;
          assert.equal(seam.provider, card.includes("bare") ? "bare" : "reference");
        });
      }
    }
    assert.ok(served.requests.includes("POST /a2a/bare/"));
    assert.ok(served.requests.includes("POST /a2a/bare/v1/message:send"));
  });
});

/** A provider whose runs answer a file, a link, and data (an object and a list). */
function richProvider(): SubagentProvider {
  let n = 0;
  return {
    name: "rich",
    capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
    inheritsParentContext: false,
    start: () => ({
      id: `rich-${++n}`,
      started: Promise.resolve(),
      result: Promise.resolve({
        output: [
          { type: "text", text: "here" },
          { type: "file", mediaType: "application/pdf", data: "JVBERg==", filename: "r.pdf" },
          { type: "resource", uri: "https://example.com/r.txt", mediaType: "text/plain" },
          { type: "data", data: { answer: 42 } },
          { type: "data", data: [1, 2] },
        ],
        stopReason: "completed" as const,
      }),
      cancel() {},
      dispose: () => Promise.resolve(),
    }),
  };
}

Deno.test("gateway a2a03: files and data out, in each binding's 0.3 form", async (t) => {
  await withGateway({ a2a03: true }, async (served) => {
    served.subagents.registerProvider(richProvider());
    await t.step(
      "JSON-RPC: file parts with bytes/uri, data objects, a list wrapped as {value}",
      async () => {
        const { body } = await rpc(served, "message/send", {
          message: message03([{ kind: "text", text: "go" }]),
        }, { path: "/rich/" });
        const parts = (body.result as { artifacts: { parts: unknown[] }[] }).artifacts[0].parts;
        assert.deepEqual(parts, [
          { kind: "text", text: "here" },
          { kind: "file", file: { bytes: "JVBERg==", mimeType: "application/pdf", name: "r.pdf" } },
          { kind: "file", file: { uri: "https://example.com/r.txt", mimeType: "text/plain" } },
          { kind: "data", data: { answer: 42 } },
          { kind: "data", data: { value: [1, 2] }, metadata: { data_part_compat: true } },
        ]);
      },
    );
    await t.step("HTTP+JSON: proto JSON parts", async () => {
      const r = await rest(served, "POST", "/rich/v1/message:send", {
        message: { messageId: "m", role: "ROLE_USER", content: [{ text: "go" }] },
      });
      const task = r.body.task as { artifacts: { parts: unknown[] }[] };
      assert.deepEqual(task.artifacts[0].parts, [
        { text: "here" },
        { file: { fileWithBytes: "JVBERg==", mimeType: "application/pdf" } },
        { file: { fileWithUri: "https://example.com/r.txt", mimeType: "text/plain" } },
        { data: { data: { answer: 42 } } },
        { data: { data: { value: [1, 2] } } },
      ]);
    });
    for (const binding of BINDINGS) {
      await t.step(
        `the SDK's 0.3 client reads them as raw, url and data parts (${binding})`,
        async () => {
          const client = await client03(served, binding, "/rich/.well-known/agent-card.json");
          const task = asTask(await client.sendMessage(sendRequest(userMessage("go"))));
          const cases = task.artifacts[0].parts.map((p) => p.content?.$case);
          assert.deepEqual(cases, ["text", "raw", "url", "data", "data"]);
          const data = task.artifacts[0].parts.slice(3).map((p) =>
            p.content?.$case === "data" ? p.content.value : undefined
          );
          assert.deepEqual(data[0], { answer: 42 });
          // The JSON-RPC form carries the flag that unwraps a list; proto JSON has no part metadata.
          assert.deepEqual(data[1], binding === "JSONRPC" ? [1, 2] : { value: [1, 2] });
        },
      );
    }
  });
});

Deno.test("gateway a2a03: a direct Message reply in 0.3 form", async (t) => {
  const replying: SubagentProvider = {
    name: "replies",
    capabilities: { outputSchema: false, depthLimit: false, toolFilter: false, persona: false },
    inheritsParentContext: false,
    start(request) {
      getGatewayTask(request.parent.scope)!.replyWithMessage();
      return {
        id: crypto.randomUUID(),
        started: Promise.resolve(),
        result: Promise.resolve({ output: "Direct answer", stopReason: "completed" as const }),
        cancel() {},
        dispose: () => Promise.resolve(),
      };
    },
  };
  await withGateway({ a2a03: true }, async (served) => {
    served.subagents.registerProvider(replying);
    await t.step(
      "on the wire: kind message, role agent (JSON-RPC); {message} (HTTP+JSON)",
      async () => {
        const { body } = await rpc(served, "message/send", {
          message: message03([{ kind: "text", text: "hi" }]),
        }, { path: "/replies/" });
        const m = body.result as Record<string, unknown>;
        assert.equal(m.kind, "message");
        assert.equal(m.role, "agent");
        assert.deepEqual(m.parts, [{ kind: "text", text: "Direct answer" }]);
        const r = await rest(served, "POST", "/replies/v1/message:send", {
          message: { messageId: "m", role: "ROLE_USER", content: [{ text: "hi" }] },
        });
        const pm = r.body.message as Record<string, unknown>;
        assert.equal(pm.role, "ROLE_AGENT");
        assert.deepEqual(pm.content, [{ text: "Direct answer" }]);
      },
    );
    for (const binding of BINDINGS) {
      await t.step(
        `the SDK's 0.3 client gets a Message, and a stream of one (${binding})`,
        async () => {
          const client = await client03(served, binding, "/replies/.well-known/agent-card.json");
          const reply = await client.sendMessage(sendRequest(userMessage("hi"))) as Message;
          assert.equal(reply.role, Role.ROLE_AGENT);
          assert.equal(
            reply.parts[0].content?.$case === "text" ? reply.parts[0].content.value : "",
            "Direct answer",
          );
          const events: StreamResponse[] = [];
          for await (const e of client.sendMessageStream(sendRequest(userMessage("hi")))) {
            events.push(e);
          }
          assert.deepEqual(kinds(events), ["message"]);
        },
      );
    }
  });
});

/** A webhook receiver on 127.0.0.1 for the duration of `fn`: what it heard. */
async function withReceiver(
  fn: (url: string, heard: { headers: Headers; body: Record<string, unknown> }[]) => Promise<void>,
): Promise<void> {
  const heard: { headers: Headers; body: Record<string, unknown> }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    heard.push({ headers: req.headers, body: await req.json() });
    return new Response(null, { status: 200 });
  });
  try {
    await fn(`http://127.0.0.1:${server.addr.port}/hook`, heard);
  } finally {
    await server.shutdown();
  }
}

for (const binding of BINDINGS) {
  Deno.test(`gateway a2a03 over ${binding}: push configs set, got, listed, deleted by the SDK's 0.3 client`, async () => {
    await withReceiver(async (hook, heard) => {
      await withGateway({
        a2a03: true,
        push: { allowWebhook: (url) => url.hostname === "127.0.0.1" },
      }, async (served) => {
        assert.equal(
          ((await card03(served)).capabilities as Record<string, unknown>).pushNotifications,
          true,
        );
        const client = await client03(served, binding);
        const task = asTask(
          await client.sendMessage(sendRequest(userMessage("hang"), { returnImmediately: true })),
        );
        const made = await client.createTaskPushNotificationConfig({
          tenant: "",
          taskId: task.id,
          id: "cfg-1",
          url: hook,
          token: "tok-1",
          authentication: { scheme: "Bearer", credentials: "cred-1" },
        });
        assert.equal(made.taskId, task.id);
        assert.equal(made.id, "cfg-1");
        assert.equal(made.url, hook);
        const got = await client.getTaskPushNotificationConfig({
          tenant: "",
          taskId: task.id,
          id: "cfg-1",
        });
        assert.equal(got.authentication?.scheme, "Bearer");
        const listed = await client.listTaskPushNotificationConfig({
          tenant: "",
          taskId: task.id,
          pageSize: 0,
          pageToken: "",
        });
        assert.deepEqual(listed.configs.map((c) => c.id), ["cfg-1"]);
        await until(() => served.reference.live.size > 0);
        await client.cancelTask({ tenant: "", id: task.id, metadata: undefined });
        await until(() => heard.some((h) => JSON.stringify(h.body).includes("CANCELED")), 5_000);
        const last = heard.at(-1)!;
        assert.equal(last.headers.get("authorization"), "Bearer cred-1");
        assert.equal(last.headers.get("x-a2a-notification-token"), "tok-1");
        await client.deleteTaskPushNotificationConfig({ tenant: "", taskId: task.id, id: "cfg-1" });
        const after = await client.listTaskPushNotificationConfig({
          tenant: "",
          taskId: task.id,
          pageSize: 0,
          pageToken: "",
        });
        assert.equal(after.configs.length, 0);
      });
    });
  });
}

Deno.test("gateway a2a03: push config refusals name the 0.3 field", async (t) => {
  await withGateway({
    a2a03: true,
    push: { allowWebhook: (url) => url.hostname === "127.0.0.1" },
  }, async (served) => {
    const cases: [string, string, unknown, RegExp, number][] = [
      [
        "set without taskId",
        "tasks/pushNotificationConfig/set",
        {
          pushNotificationConfig: { url: "http://127.0.0.1:1/h" },
        },
        /set params\): taskId must be a non-empty string/,
        -32602,
      ],
      [
        "set with a 1.0 shape",
        "tasks/pushNotificationConfig/set",
        {
          taskId: "t",
          url: "http://127.0.0.1:1/h",
        },
        /unknown field "url" \(known: taskId, pushNotificationConfig\)/,
        -32602,
      ],
      [
        "get without id",
        "tasks/pushNotificationConfig/get",
        {},
        /get params\): id must be/,
        -32602,
      ],
      [
        "delete without its config id",
        "tasks/pushNotificationConfig/delete",
        { id: "t" },
        /pushNotificationConfigId must be/,
        -32602,
      ],
      [
        "list of an unknown task",
        "tasks/pushNotificationConfig/list",
        { id: "no-such" },
        /./,
        -32001,
      ],
    ];
    for (const [what, method, params, pattern, code] of cases) {
      await t.step(what, async () => {
        const e = error((await rpc(served, method, params)).body);
        assert.equal(e.code, code, e.message);
        assert.match(e.message, pattern);
      });
    }

    await t.step(
      "a config on message/send (JSON-RPC) and on message:send (HTTP+JSON) is registered",
      async () => {
        const { body } = await rpc(served, "message/send", {
          message: message03([{ kind: "text", text: "hang" }]),
          configuration: {
            blocking: false,
            pushNotificationConfig: {
              id: "on-send",
              url: "http://127.0.0.1:9/h",
              authentication: { schemes: ["Bearer"], credentials: "c" },
            },
          },
        });
        const id = (body.result as { id: string }).id;
        const listed = await rpc(served, "tasks/pushNotificationConfig/list", { id });
        assert.deepEqual(listed.body.result, [{
          taskId: id,
          pushNotificationConfig: {
            id: "on-send",
            url: "http://127.0.0.1:9/h",
            authentication: { schemes: ["Bearer"], credentials: "c" },
          },
        }]);
        const r = await rest(served, "POST", "/v1/message:send", {
          message: { messageId: "p", role: "ROLE_USER", content: [{ text: "hang" }] },
          configuration: { pushNotification: { id: "rest", url: "http://127.0.0.1:9/r" } },
        });
        const taskId = (r.body.task as { id: string }).id;
        const one = await rest(served, "GET", `/v1/tasks/${taskId}/pushNotificationConfigs/rest`);
        assert.equal(one.body.name, `tasks/${taskId}/pushNotificationConfigs/rest`);
        const refused = await rpc(served, "message/send", {
          message: message03([{ kind: "text", text: "hang" }]),
          configuration: { pushNotificationConfig: { url: "http://10.0.0.1/h" } },
        });
        assert.equal(error(refused.body).code, -32602);
      },
    );
  });
});

Deno.test("gateway a2a03: the authenticated extended card and required extensions, in 0.3", async (t) => {
  const EXT = "https://example.com/ext/must/v1";
  await withGateway({
    a2a03: true,
    auth: { tokens: { alice: "tok-a" } },
    extendedCard: {
      description: "For alice",
      skills: [{ id: "secret", name: "secret", description: "shown to callers with a token" }],
    },
    requiredExtensions: [{ uri: EXT, description: "must be on" }],
  }, async (served) => {
    const fetchImpl: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      headers.set("authorization", "Bearer tok-a");
      return fetch(input, { ...init, headers });
    };
    const c03 = await card03(served);
    assert.equal(c03.supportsAuthenticatedExtendedCard, true);
    for (const binding of BINDINGS) {
      await t.step(`the SDK's 0.3 client reads the extended card (${binding})`, async () => {
        const transport = binding === "JSONRPC"
          ? new LegacyJsonRpcTransport({ endpoint: `${served.url}/`, fetchImpl })
          : new LegacyRestTransport({ endpoint: served.url, fetchImpl });
        const card = await transport.getExtendedAgentCard({ tenant: "" });
        assert.equal(card.description, "For alice");
        assert.ok(card.skills.some((s) => s.id === "secret"));
        assert.ok(card.supportedInterfaces.some((i) => i.protocolBinding === binding));
      });
      await t.step(
        `a message without the required extension is -32008, with it accepted (${binding})`,
        async () => {
          const transport = binding === "JSONRPC"
            ? new LegacyJsonRpcTransport({ endpoint: `${served.url}/`, fetchImpl })
            : new LegacyRestTransport({ endpoint: served.url, fetchImpl });
          const client = new Client(transport, parseLegacyAgentCard(c03));
          await assert.rejects(
            client.sendMessage(sendRequest(userMessage("complete x"))),
            /Extension support required.*X-A2A-Extensions/,
          );
          const task = asTask(
            await client.sendMessage(sendRequest(userMessage("complete y")), {
              serviceParameters: { "X-A2A-Extensions": EXT },
            }),
          );
          assert.equal(textOf(task), "y");
          const viaMessage = asTask(
            await client.sendMessage(sendRequest(userMessage("complete z", { extensions: [EXT] }))),
          );
          assert.equal(textOf(viaMessage), "z");
        },
      );
    }
  });
});
