/**
 * The tools a server offers: one per chosen provider, with the `subagent`
 * tool's wording (from `@seam/tool-subagent`) and schema `{description,
 * prompt}`, plus `outputSchema` where the provider has that capability.
 */
import type { RegisteredSubagentProvider, SubagentService } from "@seam/subagent";
import { subagentToolParameters, subagentToolWording } from "@seam/tool-subagent";

/** One tool, as `tools/list` shows it, and the provider it runs. */
export interface ToolEntry {
  readonly provider: string;
  readonly outputSchema: boolean;
  readonly listing: {
    readonly name: string;
    readonly title: string;
    readonly description: string;
    readonly inputSchema: Record<string, unknown>;
  };
}

const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/** The default tool name of a provider: `subagent_<name>`, made a valid MCP tool name. */
export function defaultToolName(provider: string): string {
  return `subagent_${provider.replace(/[^A-Za-z0-9_.-]/g, "_")}`.slice(0, 64);
}

/** Whether `name` is a valid MCP tool name. */
export function isToolName(name: string): boolean {
  return TOOL_NAME.test(name);
}

/** The tools for the providers registered now (chosen ones only, when `chosen` is given). */
export function toolsOf(
  subagents: SubagentService,
  chosen: readonly string[] | undefined,
  nameOf: (provider: string) => string,
): Map<string, ToolEntry> {
  const tools = new Map<string, ToolEntry>();
  for (const name of chosen ?? subagents.list()) {
    const provider = subagents.getProvider(name);
    if (!provider) continue;
    const toolName = nameOf(name);
    if (tools.has(toolName)) continue;
    tools.set(toolName, entryOf(provider, toolName));
  }
  return tools;
}

function entryOf(provider: RegisteredSubagentProvider, name: string): ToolEntry {
  const wording = subagentToolWording(provider.inheritsParentContext);
  const parameters = subagentToolParameters(wording);
  const properties: Record<string, unknown> = { ...parameters.properties };
  if (provider.capabilities.outputSchema) {
    properties.outputSchema = {
      type: "object",
      description:
        "Optional: a JSON Schema (rooted at type object) the child's answer must match; the result then carries it as structuredContent.",
    };
  }
  return {
    provider: provider.name,
    outputSchema: provider.capabilities.outputSchema,
    listing: {
      name,
      title: `Subagent (${provider.name})`,
      description: wording.description,
      inputSchema: { ...parameters, properties },
    },
  };
}
