import type { Scope } from "./scope.ts";

/** One named section of a system prompt. */
export interface PromptSection {
  /** Its name; a nearer scope's section of the same name shadows this one. */
  readonly name: string;
  /** Where it goes: lower first, then by name. Default `0`. */
  readonly order?: number;
  /** Its text; `{{var}}` placeholders are filled in when rendering. */
  readonly text: string;
}

/** Values for the `{{var}}` placeholders of a system prompt. */
export type PromptVars = Readonly<Record<string, string | number | boolean>>;

/**
 * The host's system-prompt sections, registered per scope.
 *
 * Rendering for a scope collects the sections along its ancestry; a nearer
 * scope's section shadows an ancestor's section of the same name (so one
 * child can get its own `persona` without touching its siblings). Sections
 * are sorted by `order`, then by name, their texts filled in with
 * {@linkcode renderTemplate} and joined with a blank line; an empty text
 * (after filling in) is left out.
 */
export interface PromptRegistry {
  /**
   * Register `section` in `scope`, owned by it. Returns the disposer.
   *
   * @throws {TypeError} for a malformed section or a second section with the
   * same name in the same scope.
   */
  register(scope: Scope, section: PromptSection): () => Promise<void>;
  /** The sections in effect for `scope`, after shadowing, in render order. */
  sections(scope: Scope): PromptSection[];
  /** The system prompt for `scope`, with `vars` filled in. */
  render(scope: Scope, vars?: PromptVars): string;
}

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g;

/**
 * Fill the `{{name}}` placeholders of `text` from `vars`. A placeholder whose
 * name is not in `vars` is left as it is, so text meant for something else
 * (a template in a tool's instructions) survives.
 *
 * @example
 * ```ts
 * import { renderTemplate } from "@seam/host";
 * import assert from "node:assert/strict";
 *
 * assert.equal(renderTemplate("Hi {{ who }}, {{other}}", { who: "ada" }), "Hi ada, {{other}}");
 * ```
 */
export function renderTemplate(text: string, vars: PromptVars = {}): string {
  if (!text.includes("{{")) return text;
  return text.replace(
    PLACEHOLDER,
    (whole, name: string) => Object.hasOwn(vars, name) ? String(vars[name]) : whole,
  );
}
