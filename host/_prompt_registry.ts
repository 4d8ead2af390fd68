import { describe } from "./content.ts";
import {
  type PromptRegistry,
  type PromptSection,
  type PromptVars,
  renderTemplate,
} from "./prompts.ts";
import type { Scope } from "./scope.ts";
import { cannot } from "./_invalid.ts";
import { keepInLevel } from "./_levels.ts";
import { freeze } from "./_builtins.ts";

interface Section {
  readonly name: string;
  readonly order: number;
  readonly text: string;
}

function compare(a: Section, b: Section): number {
  return a.order - b.order || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
}

/** The host's prompt registry. */
export class PromptRegistryImpl implements PromptRegistry {
  #levels = new WeakMap<Scope, Map<string, Section>>();

  register(scope: Scope, section: PromptSection): () => Promise<void> {
    if (section === null || typeof section !== "object") {
      cannot("register a prompt section", `expected an object, got ${describe(section)}`);
    }
    const { name, order = 0, text } = section;
    if (typeof name !== "string" || name === "") {
      cannot(
        "register a prompt section",
        `the name must be a non-empty string, got ${describe(name)}`,
      );
    }
    if (typeof order !== "number" || !Number.isFinite(order)) {
      cannot(
        `register prompt section "${name}"`,
        `order must be a finite number, got ${describe(order)}`,
      );
    }
    if (typeof text !== "string") {
      cannot(`register prompt section "${name}"`, `text must be a string, got ${describe(text)}`);
    }
    if (this.#levels.get(scope)?.has(name)) {
      cannot(
        `register prompt section "${name}"`,
        `scope "${scope.label}" already has a section with that name`,
      );
    }
    const entry: Section = freeze({ name, order, text });
    return keepInLevel(this.#levels, scope, name, entry);
  }

  sections(scope: Scope): PromptSection[] {
    let found: Map<string, Section> | undefined;
    let single: Map<string, Section> | undefined;
    for (let s: Scope | undefined = scope; s; s = s.parent) {
      const level = this.#levels.get(s);
      if (!level || level.size === 0) continue;
      if (!single && !found) {
        single = level;
        continue;
      }
      if (!found) found = new Map(single);
      for (const [name, section] of level) {
        if (!found.has(name)) found.set(name, section);
      }
    }
    const list = [...(found ?? single)?.values() ?? []];
    return list.length > 1 ? list.sort(compare) : list;
  }

  render(scope: Scope, vars?: PromptVars): string {
    const sections = this.sections(scope);
    if (sections.length === 0) return "";
    if (sections.length === 1) return renderTemplate(sections[0].text, vars);
    const parts: string[] = [];
    for (const section of sections) {
      const text = renderTemplate(section.text, vars);
      if (text !== "") parts.push(text);
    }
    return parts.join("\n\n");
  }
}
