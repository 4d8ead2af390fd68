import { describe } from "@seam/host";
import {
  assertSubagentMaxDepth,
  type SubagentAgentOptions,
  type SubagentToolFilter,
} from "@seam/subagent";
import type { SubagentToolConfig } from "./install.ts";

/** The config as accepted: copied, checked, frozen; absent keys stay absent. */
export interface AcceptedConfig {
  readonly provider: string;
  readonly toolName: string;
  /** The request fields every run gets: only the configured ones. */
  readonly options: {
    readonly agentOptions?: SubagentAgentOptions;
    readonly persona?: string;
    readonly toolFilter?: SubagentToolFilter;
    readonly maxDepth?: number;
  };
}

const KEYS = new Set(["provider", "toolName", "agentOptions", "persona", "toolFilter", "maxDepth"]);
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

function invalid(message: string): never {
  throw new TypeError(`Cannot install the subagent tool: ${message}`);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function unknownKeys(record: Record<string, unknown>, known: Set<string>, path: string): void {
  const extra = Object.keys(record).filter((key) => !known.has(key));
  if (extra.length > 0) {
    invalid(
      `unknown key${extra.length > 1 ? "s" : ""} ${
        extra.map((k) => `"${k}"`).join(", ")
      } in ${path} (known: ${[...known].join(", ")})`,
    );
  }
}

function readList(value: unknown, path: string): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    invalid(`${path} must be an array of tool names, got ${describe(value)}`);
  }
  return Object.freeze(value.map((name, i) => {
    if (typeof name !== "string" || name === "") {
      invalid(`${path}[${i}] must be a non-empty string, got ${describe(name)}`);
    }
    return name;
  }));
}

/** Read every config key once, check it, and build the frozen accepted config. */
export function acceptConfig(config: SubagentToolConfig): AcceptedConfig {
  if (!isRecord(config)) invalid(`config must be an object, got ${describe(config)}`);
  unknownKeys(config, KEYS, "config");
  const { provider, toolName = "subagent", agentOptions, persona, toolFilter, maxDepth } =
    config as Record<string, unknown>;

  if (typeof provider !== "string" || provider === "") {
    invalid(`config.provider must be a non-empty provider name, got ${describe(provider)}`);
  }
  if (typeof toolName !== "string" || !TOOL_NAME.test(toolName)) {
    invalid(`config.toolName must match ${TOOL_NAME.source}, got ${describe(toolName)}`);
  }
  const options: {
    agentOptions?: SubagentAgentOptions;
    persona?: string;
    toolFilter?: SubagentToolFilter;
    maxDepth?: number;
  } = {};

  if (agentOptions !== undefined) {
    if (!isRecord(agentOptions)) {
      invalid(`config.agentOptions must be an object, got ${describe(agentOptions)}`);
    }
    unknownKeys(agentOptions, new Set(["model"]), "config.agentOptions");
    const model = agentOptions.model;
    if (model !== undefined) {
      if (typeof model !== "string" || model === "") {
        invalid(`config.agentOptions.model must be a non-empty string, got ${describe(model)}`);
      }
      options.agentOptions = Object.freeze({ model });
    }
  }

  if (persona !== undefined) {
    if (typeof persona !== "string" || persona.trim() === "") {
      invalid(`config.persona must be a non-empty string, got ${describe(persona)}`);
    }
    options.persona = persona;
  }

  if (toolFilter !== undefined) {
    if (!isRecord(toolFilter)) {
      invalid(`config.toolFilter must be an object, got ${describe(toolFilter)}`);
    }
    unknownKeys(toolFilter, new Set(["allow", "deny"]), "config.toolFilter");
    const allow = readList(toolFilter.allow, "config.toolFilter.allow");
    const deny = readList(toolFilter.deny, "config.toolFilter.deny");
    if (allow === undefined && deny === undefined) {
      invalid("config.toolFilter names neither list: give allow, deny or both (or omit it)");
    }
    options.toolFilter = Object.freeze({
      ...(allow !== undefined ? { allow } : {}),
      ...(deny !== undefined ? { deny } : {}),
    });
  }

  assertSubagentMaxDepth(maxDepth, "config.maxDepth");
  if (maxDepth !== undefined) options.maxDepth = maxDepth;

  return Object.freeze({ provider, toolName, options: Object.freeze(options) });
}
