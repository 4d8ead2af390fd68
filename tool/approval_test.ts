import assert from "node:assert/strict";
import { createHost, createMemoryLogger, createScriptedModel, textOf } from "@seam/host";
import {
  createSubagentService,
  handleSubagentInput,
  type SubagentInputRequest,
  subagentStart,
} from "@seam/subagent";
import { createSpawnProvider } from "@seam/subagent-spawn";
import { installSubagentTool } from "./mod.ts";

Deno.test("installSubagentTool(): a grandchild's approval travels up two levels of tool calls to the root", async (t) => {
  for (const optionId of ["allow_once", "reject_once"] as const) {
    await t.step(optionId, async () => {
      const host = createHost({ logger: createMemoryLogger().logger });
      host.models.register(host.scope, "scripted", createScriptedModel());
      const subagents = createSubagentService(host.scope);
      subagents.registerProvider(createSpawnProvider());
      installSubagentTool(host.scope, { provider: "spawn", maxDepth: 2 });
      const ran: string[] = [];
      host.tools.register(host.scope, {
        name: "run_command",
        description: "Run a shell command",
        parameters: { type: "object", properties: { command: { type: "string" } } },
        requiresApproval: true,
        execute: ({ command }: { command: string }) => {
          ran.push(command);
          return { content: `ran ${command}` };
        },
      });
      const seen: SubagentInputRequest[] = [];
      handleSubagentInput(host.scope, (request) => {
        seen.push(request);
        return { outcome: "selected", optionId };
      });
      const starts: { runId: string; parentId: string }[] = [];
      host.scope.on(subagentStart, (info) => void starts.push(info));

      const grandchild = '@call run_command {"command": "deno test"}\n@reply {{results}}';
      const child = `@call subagent ${
        JSON.stringify({ description: "Run the tests", prompt: grandchild })
      }\n@reply child: {{results}}`;
      const main = await host.agents.create({ id: "main", options: { model: "scripted" } });
      main.send(
        `@call subagent ${
          JSON.stringify({ description: "Check", prompt: child })
        }\n@reply main: {{results}}`,
      );
      const end = await main.whenIdle();

      // The parent model was not interrupted: its one turn collected the answer.
      assert.equal(end.reason, "completed");
      assert.equal(starts.length, 2);
      const [first, second] = starts;
      assert.equal(first.parentId, "main");
      assert.equal(second.parentId, first.runId);
      assert.equal(seen.length, 1);
      assert.equal(seen[0].runId, second.runId);
      assert.deepEqual(seen[0].path, [first.runId, second.runId]);
      assert.equal(seen[0].toolCall?.name, "run_command");
      if (optionId === "allow_once") {
        assert.equal(textOf(end.output), "main: child: ran deno test");
        assert.deepEqual(ran, ["deno test"]);
      } else {
        assert.equal(
          textOf(end.output),
          'main: child: Tool "run_command" was not run: the call was not approved: the answer was "Reject once"',
        );
        assert.deepEqual(ran, []);
      }
      await host.scope.dispose();
    });
  }
});
