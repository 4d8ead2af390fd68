/**
 * An MCP server's `elicitation/create` as a seam input request, and the
 * answer back as an elicitation result. A form with no fields (a yes/no
 * confirmation, as `codex mcp-server` asks approvals) is a permission
 * request with "accept" and "decline"; a form with fields is a question
 * whose text answer fills its one field, or is parsed as JSON for several;
 * an answer with data is the form's content as it is.
 * A refusal declines. URL-mode elicitations are questions naming the URL.
 */
import type { JsonValue } from "@seam/host";
import type { SubagentInputAnswer, SubagentInputAsk } from "@seam/subagent";

/** What a server asked, as the SDK hands it over. */
export interface ElicitParams {
  readonly message?: unknown;
  readonly mode?: unknown;
  readonly url?: unknown;
  readonly requestedSchema?: { readonly properties?: Record<string, { type?: unknown }> };
}

/** An elicitation result. */
export interface ElicitAnswer {
  readonly action: "accept" | "decline" | "cancel";
  readonly content?: Record<string, JsonValue>;
  readonly [key: string]: unknown;
}

const CONFIRM_OPTIONS = [
  { id: "accept", label: "Accept", kind: "allow_once" as const },
  { id: "decline", label: "Decline", kind: "reject_once" as const },
];

/** The input request for `params`. */
export function askOf(params: ElicitParams, tool: string): SubagentInputAsk {
  const message = typeof params.message === "string" && params.message !== ""
    ? params.message
    : "The MCP server asks for input";
  if (params.mode === "url") {
    return {
      kind: "authentication",
      message,
      ...(typeof params.url === "string" ? { authentication: { url: params.url } } : {}),
    };
  }
  const fields = Object.keys(params.requestedSchema?.properties ?? {});
  if (fields.length === 0) {
    return {
      kind: "permission",
      message,
      toolCall: { name: tool, title: message },
      options: CONFIRM_OPTIONS,
    };
  }
  return {
    kind: "question",
    message: fields.length === 1
      ? message
      : `${message}\n(answer with a JSON object with the fields ${fields.join(", ")})`,
  };
}

/** The elicitation result for `answer`. */
export function elicitAnswerOf(params: ElicitParams, answer: SubagentInputAnswer): ElicitAnswer {
  if (answer.outcome === "refused") return { action: "decline" };
  if (answer.outcome === "selected") {
    return answer.optionId === "accept" ? { action: "accept", content: {} } : { action: "decline" };
  }
  if (params.mode === "url") return { action: "accept" };
  const properties = params.requestedSchema?.properties ?? {};
  const fields = Object.keys(properties);
  // An answer's data is the form's content as it is (one field: that field's value, when it has it).
  const data = answer.data;
  if (data && fields.length !== 1) return { action: "accept", content: data };
  if (data && Object.hasOwn(data, fields[0])) {
    return { action: "accept", content: { [fields[0]]: data[fields[0]] } };
  }
  if (fields.length === 1) {
    const [field] = fields;
    const type = properties[field]?.type;
    const text = answer.text;
    const value: JsonValue = type === "number" || type === "integer"
      ? Number(text)
      : type === "boolean"
      ? /^(y|yes|true|1)$/i.test(text.trim())
      : text;
    if (typeof value === "number" && Number.isNaN(value)) return { action: "cancel" };
    return { action: "accept", content: { [field]: value } };
  }
  try {
    const content = JSON.parse(answer.text);
    if (content !== null && typeof content === "object" && !Array.isArray(content)) {
      return { action: "accept", content };
    }
  } catch { /* not JSON */ }
  return { action: "cancel" };
}
