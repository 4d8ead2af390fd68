import { describe, isRecord, refuseUnknownOptions } from "@seam/host";
import {
  acceptBudget,
  acceptMaxDepth,
  acceptPersona,
  acceptToolFilter,
  type SubagentAgentOptions,
  type SubagentBudget,
  type SubagentToolFilter,
} from "@seam/subagent";
import type { SubagentToolConfig } from "./types.ts";

/** The config as accepted: copied, checked, frozen; absent keys stay absent. */
export interface AcceptedConfig {
  readonly provider: string;
  readonly toolName: string;
  /** Whether the tool result gets the run's usage line. */
  readonly reportUsage: boolean;
  /** The request fields every run gets: only the configured ones. */
  readonly options: {
    readonly agentOptions?: SubagentAgentOptions;
    readonly persona?: string;
    readonly toolFilter?: SubagentToolFilter;
    readonly maxDepth?: number;
    readonly budget?: SubagentBudget;
  };
}

const KEYS = [
  "provider",
  "toolName",
  "agentOptions",
  "persona",
  "toolFilter",
  "maxDepth",
  "budget",
  "reportUsage",
] satisfies (keyof SubagentToolConfig)[];
const ACTION = "install the subagent tool";
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

function invalid(message: string): never {
  throw new TypeError(`Cannot ${ACTION}: ${message}`);
}

/** Read every config key once, check it, and build the frozen accepted config. */
export function acceptConfig(config: SubagentToolConfig): AcceptedConfig {
  if (!isRecord(config)) invalid(`config must be an object, got ${describe(config)}`);
  refuseUnknownOptions(ACTION, config, KEYS);
  const {
    provider,
    toolName = "subagent",
    agentOptions,
    persona,
    toolFilter,
    maxDepth,
    budget,
    reportUsage = false,
  } = config as Record<string, unknown>;
  if (typeof reportUsage !== "boolean") {
    invalid(`config.reportUsage must be a boolean, got ${describe(reportUsage)}`);
  }

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
    budget?: SubagentBudget;
  } = {};

  if (agentOptions !== undefined) {
    if (!isRecord(agentOptions)) {
      invalid(`config.agentOptions must be an object, got ${describe(agentOptions)}`);
    }
    refuseUnknownOptions(ACTION, agentOptions, ["model"], { under: "agentOptions" });
    const model = agentOptions.model;
    if (model !== undefined) {
      if (typeof model !== "string" || model === "") {
        invalid(`config.agentOptions.model must be a non-empty string, got ${describe(model)}`);
      }
      options.agentOptions = Object.freeze({ model });
    }
  }

  // The start-time fields: the seam's own checkers (the same as the service's).
  if (persona !== undefined) options.persona = acceptPersona(persona, "config.persona", ACTION);
  if (toolFilter !== undefined) {
    options.toolFilter = acceptToolFilter(toolFilter, "config.toolFilter", ACTION);
  }
  if (maxDepth !== undefined) options.maxDepth = acceptMaxDepth(maxDepth, "config.maxDepth");
  if (budget !== undefined) options.budget = acceptBudget(budget, "config.budget", ACTION);

  return Object.freeze({ provider, toolName, reportUsage, options: Object.freeze(options) });
}
