import { isRecord, type JsonValue } from "@seam/host";
import type {
  SubagentInputAnswer,
  SubagentInputAsk,
  SubagentPermissionOption,
} from "@seam/subagent";
import { questionOf } from "@seam/adapter-kit";

/**
 * A tool call an interrupt asks a person to review, in either of the two
 * shapes LangChain uses: LangGraph's prebuilt `HumanInterrupt`
 * (`{action_request: {action, args}, config, description?}`, resumed with a
 * `HumanResponse` each) and the `langchain` human-in-the-loop middleware's
 * `{actionRequests: [{name, args, description?}]}` (resumed with
 * `{decisions}`).
 */
interface Review {
  readonly name: string;
  readonly args: unknown;
  readonly description?: string;
  /** For a `HumanInterrupt`: its `config.allow_*` flags. */
  readonly allow?: Record<string, unknown>;
}

type Shape = "human-interrupt" | "human-interrupts" | "middleware" | "question";

const APPROVE: SubagentPermissionOption = { id: "approve", label: "Approve", kind: "allow_once" };
const REJECT: SubagentPermissionOption = { id: "reject", label: "Reject", kind: "reject_once" };

/**
 * The seam requests for one `interrupt()` value: one permission request per
 * reviewed tool call, or one question (the value if a string, its
 * `question` or `message` if one is a string, else its JSON).
 */
export function asksOf(value: unknown): SubagentInputAsk[] {
  const reviews = reviewsOf(value)[1];
  if (reviews.length > 0) {
    return reviews.map((review) => ({
      kind: "permission",
      message: review.description ?? `The graph wants to call tool "${review.name}"`,
      toolCall: { name: review.name, title: `Call ${review.name}`, rawInput: toJson(review.args) },
      // A HumanInterrupt that does not allow accepting offers rejecting only.
      options: review.allow && review.allow.allow_accept === false ? [REJECT] : [APPROVE, REJECT],
    }));
  }
  return [questionOf(value, ["question", "message"], () => JSON.stringify(value) ?? String(value))];
}

/**
 * What the interrupt resumes with, from the answers to {@linkcode asksOf}'s
 * requests, in the value's own shape; a refusal rejects with its reason. A
 * question resumes with the answer's text; a refused one yields `undefined`
 * (the run cannot go on).
 */
export function resumeOf(value: unknown, answers: readonly SubagentInputAnswer[]): unknown {
  const [shape, reviews] = reviewsOf(value);
  const approved = (a: SubagentInputAnswer) => a.outcome === "selected" && a.optionId === "approve";
  const reason = (a: SubagentInputAnswer) => a.outcome === "refused" ? a.reason : undefined;
  if (shape === "middleware") {
    return {
      decisions: answers.map((a) =>
        approved(a) ? { type: "approve" } : { type: "reject", message: reason(a) ?? "rejected" }
      ),
    };
  }
  if (shape === "human-interrupt" || shape === "human-interrupts") {
    const responses = answers.map((a, i) => {
      if (approved(a)) return { type: "accept", args: null };
      const allow = reviews[i].allow ?? {};
      return allow.allow_respond === true
        ? { type: "response", args: reason(a) ?? "rejected" }
        : { type: "ignore", args: null };
    });
    return shape === "human-interrupt" ? responses[0] : responses;
  }
  const [answer] = answers;
  return answer?.outcome === "answered" ? answer.text : undefined;
}

function reviewsOf(value: unknown): [Shape, Review[]] {
  const human = (v: unknown): Review | undefined => {
    if (!isRecord(v) || !isRecord(v.action_request) || !isRecord(v.config)) return undefined;
    const { action, args } = v.action_request;
    if (typeof action !== "string" || action === "") return undefined;
    const description = typeof v.description === "string" ? v.description : undefined;
    return { name: action, args, allow: v.config, ...(description ? { description } : {}) };
  };
  const one = human(value);
  if (one) return ["human-interrupt", [one]];
  if (Array.isArray(value) && value.length > 0) {
    const many = value.map(human);
    if (many.every((r) => r !== undefined)) return ["human-interrupts", many as Review[]];
  }
  if (isRecord(value) && Array.isArray(value.actionRequests) && value.actionRequests.length > 0) {
    const actions = value.actionRequests.map((a): Review | undefined =>
      isRecord(a) && typeof a.name === "string" && a.name !== ""
        ? {
          name: a.name,
          args: a.args,
          ...(typeof a.description === "string" ? { description: a.description } : {}),
        }
        : undefined
    );
    if (actions.every((a) => a !== undefined)) return ["middleware", actions as Review[]];
  }
  return ["question", []];
}

function toJson(value: unknown): JsonValue {
  try {
    return (JSON.parse(JSON.stringify(value ?? null)) ?? null) as JsonValue;
  } catch {
    return String(value);
  }
}
