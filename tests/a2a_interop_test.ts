// Interop with a server nobody here wrote: the `@a2a-js/sdk` 1.3 reference
// request handler (Express, real loopback HTTP) with a test executor, over
// JSON-RPC and HTTP+JSON, streaming and not, and as a v0.3 agent through the
// SDK's compatibility layer: send, stream, cancel, failure, rejection,
// input-required and resume, a direct message, a data part.
import assert from "node:assert/strict";
import { type ContentBlock, createMemoryLogger, createRootScope, textOf } from "@seam/host";
import {
  createSubagentService,
  handleSubagentInput,
  type SubagentInputRequest,
  subagentProgress,
} from "@seam/subagent";
import { createA2AProvider } from "@seam/subagent-a2a";
import { startSdkServer } from "./a2a_sdk_server.ts";
import { until } from "./a2a_support.ts";

const MODES = [
  { name: "v1.0, streaming", streaming: true, path: "", version: "1.0" },
  { name: "v1.0, not streaming", streaming: false, path: "", version: "1.0" },
  { name: "v0.3 compatibility", streaming: true, path: "/v03", version: "0.3" },
] as const;

for (const mode of MODES) {
  for (const binding of ["JSONRPC", "HTTP+JSON"] as const) {
    Deno.test(`A2A provider ↔ @a2a-js/sdk reference server (${mode.name}, ${binding})`, async (t) => {
      const server = await startSdkServer({ streaming: mode.streaming });
      const root = createRootScope({ logger: createMemoryLogger().logger });
      const subagents = createSubagentService(root);
      const parent = { id: "main", scope: root.child("main") };
      try {
        const provider = await createA2AProvider({
          url: `${server.url}${mode.path}`,
          binding,
          timeoutMs: 5_000,
          pollIntervalMs: 10,
        });
        subagents.registerProvider(provider);
        const run = (prompt: string) => subagents.start("a2a", { prompt, parent });
        const outcome = async (prompt: string) => {
          const r = run(prompt);
          try {
            const result = await r.result;
            return {
              stopReason: result.stopReason,
              text: textOf(result.output),
              error: result.error,
              run: r,
            };
          } finally {
            await r.dispose();
          }
        };

        await t.step("discovery: a plain A2A agent, no start-time capability", () => {
          assert.deepEqual({ ...provider.capabilities }, {
            outputSchema: false,
            depthLimit: false,
            toolFilter: false,
            persona: false,
            budget: false,
          });
          assert.equal(provider.inheritsParentContext, false);
          assert.equal(provider.remote.seam, false);
          assert.equal(provider.remote.binding, binding);
          assert.equal(provider.remote.protocolVersion, mode.version);
          assert.equal(provider.remote.streaming, mode.streaming);
        });

        await t.step(
          "send: COMPLETED → completed, artifacts → output, text → progress",
          async () => {
            const progress: string[] = [];
            const off = parent.scope.on(subagentProgress, (info) => {
              if (info.kind === "text") progress.push(info.text!);
            });
            const { stopReason, text } = await outcome("complete one two three");
            await off();
            assert.equal(stopReason, "completed");
            assert.equal(text, "one two three");
            if (mode.streaming) assert.equal(progress.join(""), "one two three");
            const sent = server.received.at(-1)!;
            assert.equal(sent.text, "complete one two three");
            assert.ok(
              sent.metadata === undefined || Object.keys(sent.metadata as object).length === 0,
              "a plain agent gets a plain message (no seam extension)",
            );
          },
        );

        await t.step("FAILED → error, with the agent's status message", async () => {
          const { stopReason, text, error } = await outcome("fail the disk is full");
          assert.equal(stopReason, "error");
          assert.equal(text, "the disk is full", "the agent's own words, nothing else");
          assert.equal(error?.code, "CHILD_FAILED");
          assert.match(error!.message, /the remote task ended in TASK_STATE_FAILED/);
        });

        await t.step("REJECTED → refusal", async () => {
          const { stopReason, text } = await outcome("reject not my job");
          assert.equal(stopReason, "refusal");
          assert.equal(text, "not my job");
        });

        await t.step("cancel → CancelTask, the run ends aborted", async () => {
          const r = run("hang");
          try {
            await r.started;
            await until(() => server.running() === 1);
            r.cancel("enough");
            assert.equal((await r.result).stopReason, "aborted");
          } finally {
            await r.dispose();
          }
          assert.equal(server.cancelled.length, 1, "the executor was asked to cancel");
          assert.equal(server.cancelled[0], server.received.at(-1)!.taskId);
          await until(() => server.running() === 0);
        });

        await t.step(
          "INPUT_REQUIRED → error saying so; resume() answers on the same task",
          async () => {
            const first = run("ask which file?");
            try {
              const result = await first.result;
              assert.equal(result.stopReason, "error");
              assert.match(textOf(result.output as ContentBlock[]), /which file\?/);
              assert.equal(result.error?.code, "INPUT_REQUIRED");
              assert.match(result.error!.message, /TASK_STATE_INPUT_REQUIRED: it needs more input/);
              const second = first.resume!("report.txt");
              try {
                const answer = await second.result;
                assert.equal(answer.stopReason, "completed");
                assert.equal(textOf(answer.output), "got: report.txt");
              } finally {
                await second.dispose();
              }
              const [asked, answered] = server.received.slice(-2);
              assert.equal(answered.taskId, asked.taskId, "the answer went to the same task");
            } finally {
              await first.dispose();
            }
          },
        );

        await t.step(
          "INPUT_REQUIRED with a handler: the question goes up, its answer to the same task, the run goes on",
          async () => {
            const asked: SubagentInputRequest[] = [];
            const stop = handleSubagentInput(root, (request) => {
              asked.push(request);
              return { outcome: "answered", text: "report.txt" };
            });
            try {
              const { stopReason, text, run: r } = await outcome("ask which file?");
              assert.equal(stopReason, "completed");
              assert.equal(text, "got: report.txt");
              assert.equal(asked.length, 1);
              assert.equal(asked[0].kind, "question");
              assert.equal(asked[0].message, "which file?");
              assert.deepEqual(asked[0].path, [r.id]);
              const [question, answer] = server.received.slice(-2);
              assert.equal(answer.taskId, question.taskId, "the answer went to the same task");
              assert.equal(answer.text, "report.txt");
              assert.ok(
                answer.metadata === undefined ||
                  Object.keys(answer.metadata as object).length === 0,
                "a plain agent's answer is plain text",
              );
            } finally {
              await stop();
            }
          },
        );

        await t.step(
          "INPUT_REQUIRED refused by the handler: the run ends there, with the reason",
          async () => {
            const stop = handleSubagentInput(
              root,
              () => ({ outcome: "refused", reason: "not in this session" }),
            );
            try {
              const before = server.received.length;
              const { stopReason, error } = await outcome("ask which file?");
              assert.equal(stopReason, "error");
              assert.equal(error?.code, "INPUT_REQUIRED");
              assert.match(error!.message, /its input request was refused \(not in this session\)/);
              assert.equal(
                server.received.length,
                before + 1,
                "nothing was sent after the refusal",
              );
            } finally {
              await stop();
            }
          },
        );

        await t.step("resume() after COMPLETED: a follow-up in the same context", async () => {
          const first = run("complete first");
          try {
            assert.equal((await first.result).stopReason, "completed");
            const second = first.resume!("complete second");
            try {
              assert.equal(textOf((await second.result).output), "second");
            } finally {
              await second.dispose();
            }
            const [asked, followed] = server.received.slice(-2);
            assert.equal(followed.contextId, asked.contextId);
            assert.notEqual(followed.taskId, asked.taskId, "a new task in that context");
          } finally {
            await first.dispose();
          }
        });

        await t.step("a direct message (no task) → completed with its text", async () => {
          const { stopReason, text } = await outcome("direct hi there");
          assert.equal(stopReason, "completed");
          assert.equal(text, "hi there");
        });

        await t.step("a data part without an outputSchema → its JSON text", async () => {
          const { stopReason, text } = await outcome("data");
          assert.equal(stopReason, "completed");
          assert.deepEqual(JSON.parse(text), { answer: "42" });
        });

        await provider.dispose();
      } finally {
        await root.dispose();
        await server.close();
      }
    });
  }
}
