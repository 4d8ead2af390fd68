import assert from "node:assert/strict";
import { createHost, createMemoryLogger, InactiveScopeError, renderTemplate } from "./mod.ts";

Deno.test("PromptRegistry.render() sorts sections by order, then name", async () => {
  const host = createHost({ logger: createMemoryLogger().logger });
  host.prompts.register(host.scope, { name: "b", text: "B" });
  host.prompts.register(host.scope, { name: "a", text: "A" });
  host.prompts.register(host.scope, { name: "first", order: -10, text: "First" });
  host.prompts.register(host.scope, { name: "last", order: 100, text: "Last" });
  host.prompts.register(host.scope, { name: "blank", order: 50, text: "{{nothing}}" });
  assert.equal(host.prompts.render(host.scope, { nothing: "" }), "First\n\nA\n\nB\n\nLast");
  assert.deepEqual(
    host.prompts.sections(host.scope).map((s) => s.name),
    ["first", "a", "b", "blank", "last"],
  );
  await host.scope.dispose();
});

Deno.test("PromptRegistry.render() lets a nearer scope's section shadow an ancestor's", async () => {
  const host = createHost({ logger: createMemoryLogger().logger });
  host.prompts.register(host.scope, { name: "rules", order: 1, text: "Be brief." });
  host.prompts.register(host.scope, { name: "persona", text: "You are the deployment's agent." });
  const child = host.scope.child("child");
  const sibling = host.scope.child("sibling");
  const shadow = host.prompts.register(child, { name: "persona", text: "You are a {{role}}." });
  const grandchild = child.child("grandchild");
  assert.equal(
    host.prompts.render(child, { role: "reviewer" }),
    "You are a reviewer.\n\nBe brief.",
  );
  assert.equal(host.prompts.render(grandchild), "You are a {{role}}.\n\nBe brief.");
  assert.equal(
    host.prompts.render(sibling),
    "You are the deployment's agent.\n\nBe brief.",
    "the sibling keeps the deployment persona",
  );
  await shadow();
  assert.equal(host.prompts.render(child), "You are the deployment's agent.\n\nBe brief.");
  await child.dispose();
  assert.equal(host.prompts.render(host.scope), "You are the deployment's agent.\n\nBe brief.");
  await host.scope.dispose();
});

Deno.test("PromptRegistry.register() rejects malformed sections and duplicates", async () => {
  const host = createHost({ logger: createMemoryLogger().logger });
  const bad: [unknown, RegExp][] = [
    [null, /expected an object/],
    [{ name: "", text: "x" }, /name must be a non-empty string/],
    [{ name: "n", text: 1 }, /text must be a string/],
    [{ name: "n", text: "x", order: NaN }, /order must be a finite number/],
    [{ name: "n", text: "x", order: "1" }, /order must be a finite number/],
  ];
  for (const [section, pattern] of bad) {
    assert.throws(() => host.prompts.register(host.scope, section as never), pattern);
  }
  host.prompts.register(host.scope, { name: "n", text: "x" });
  assert.throws(
    () => host.prompts.register(host.scope, { name: "n", text: "y" }),
    /already has a section/,
  );
  assert.equal(host.prompts.render(host.scope), "x");
  await host.scope.dispose();
  assert.throws(
    () => host.prompts.register(host.scope, { name: "m", text: "y" }),
    InactiveScopeError,
  );
  assert.equal(host.prompts.render(host.scope), "");
});

Deno.test("renderTemplate() fills known placeholders and leaves the rest", () => {
  assert.equal(renderTemplate("no placeholders"), "no placeholders");
  assert.equal(
    renderTemplate("{{a}} {{ b }} {{c}} {{a.b}} {{ 1x }}", { a: 1, b: true, "a.b": "dot" }),
    "1 true {{c}} dot {{ 1x }}",
  );
  assert.equal(renderTemplate("{{toString}}", {}), "{{toString}}");
});
