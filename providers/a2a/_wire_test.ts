import assert from "node:assert/strict";
import type { ContentBlock } from "@seam/host";
import type { Part } from "@a2a-js/sdk";
import {
  appendPieces,
  blocksToParts,
  isTerminal,
  partsToPieces,
  type Piece,
  stateName,
  TaskStates,
  textOfPieces,
} from "./_wire.ts";
import { stopReasonOf } from "./_task_reader.ts";
import { readSeamCard, readSeamReport, SEAM_EXTENSION_URI } from "./_extension.ts";

const part = (content: Part["content"], mediaType = "", metadata?: Part["metadata"]): Part => ({
  content,
  metadata,
  filename: "",
  mediaType,
});

Deno.test("blocksToParts() and partsToPieces() round-trip every block kind", () => {
  const blocks: ContentBlock[] = [
    { type: "text", text: "hello" },
    { type: "image", mediaType: "image/png", data: "iVBORw0KGgo=" },
    { type: "resource", uri: "file:///a.txt", mediaType: "text/plain", text: "inlined" },
    { type: "resource", uri: "https://example.com/b.pdf", mediaType: "application/pdf" },
  ];
  const parts = blocksToParts(blocks);
  assert.equal(parts[0].content?.$case, "text");
  assert.equal(parts[1].content?.$case, "raw");
  assert.deepEqual(parts[2].metadata, { uri: "file:///a.txt" });
  assert.equal(parts[3].content?.$case, "url");
  assert.deepEqual(partsToPieces(parts, true), blocks);
  // A plain agent's metadata.uri is not read as a resource.
  assert.deepEqual(partsToPieces([parts[2]], false), [{ type: "text", text: "inlined" }]);
});

Deno.test("partsToPieces() keeps data, other bytes as a file, skips empty parts", () => {
  const pieces = partsToPieces([
    part({ $case: "data", value: { answer: "42" } }, "application/json"),
    part({ $case: "raw", value: new Uint8Array([1, 2, 3]) as never }, "application/zip"),
    part(undefined),
  ], false);
  assert.deepEqual(pieces, [
    { type: "data", data: { answer: "42" } },
    { type: "file", mediaType: "application/zip", data: "AQID" },
  ]);
});

Deno.test("appendPieces() merges text into text and keeps the rest", () => {
  const pieces: Piece[] = [{ type: "text", text: "a" }];
  appendPieces(pieces, [{ type: "text", text: "b" }, { type: "data", data: 1 }, {
    type: "text",
    text: "c",
  }]);
  assert.deepEqual(pieces, [{ type: "text", text: "ab" }, { type: "data", data: 1 }, {
    type: "text",
    text: "c",
  }]);
  assert.equal(textOfPieces(pieces), "abc");
});

Deno.test("stopReasonOf() maps the A2A states without the seam extension", () => {
  assert.equal(stopReasonOf(TaskStates.COMPLETED), "completed");
  assert.equal(stopReasonOf(TaskStates.CANCELED), "aborted");
  assert.equal(stopReasonOf(TaskStates.FAILED), "error");
  assert.equal(stopReasonOf(TaskStates.REJECTED), "refusal");
  assert.equal(stopReasonOf(TaskStates.INPUT_REQUIRED), "error");
  assert.equal(stopReasonOf(TaskStates.AUTH_REQUIRED), "error");
  assert.ok(isTerminal(TaskStates.REJECTED) && !isTerminal(TaskStates.INPUT_REQUIRED));
  assert.equal(stateName(99), "an unknown state (99)");
});

Deno.test("readSeamCard() reads the providers; readSeamReport() the exact stop reason", () => {
  const card = {
    capabilities: {
      extensions: [{
        uri: SEAM_EXTENSION_URI,
        params: {
          provider: "spawn",
          providers: {
            spawn: {
              capabilities: {
                outputSchema: true,
                depthLimit: true,
                toolFilter: false,
                persona: "yes",
              },
              inheritsParentContext: false,
            },
          },
        },
      }],
    },
  };
  const seam = readSeamCard(card)!;
  assert.equal(seam.provider, "spawn");
  assert.deepEqual(seam.providers.get("spawn"), {
    name: "spawn",
    // A card from before budgets says nothing of them: no budget.
    capabilities: {
      outputSchema: true,
      depthLimit: true,
      toolFilter: false,
      persona: false,
      budget: false,
    },
    inheritsParentContext: false,
  });
  assert.equal(readSeamCard({ capabilities: { extensions: [] } }), undefined);
  assert.throws(
    () => readSeamCard({ capabilities: { extensions: [{ uri: SEAM_EXTENSION_URI }] } }),
    /no params\.providers object/,
  );
  assert.deepEqual(
    readSeamReport({ [SEAM_EXTENSION_URI]: { stopReason: "max-tokens", resumedFrom: "t0" } }),
    { stopReason: "max-tokens", resumedFrom: "t0" },
  );
  assert.deepEqual(readSeamReport({ [SEAM_EXTENSION_URI]: { stopReason: "weird" } }), {});
  assert.equal(readSeamReport(undefined), undefined);
});
