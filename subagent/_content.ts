// Content a caller gives a run (its prompt, a message, a follow-up): copied,
// checked and frozen, for the request (`_request.ts`) and the run (`_run.ts`).
import { type ContentBlock, frozenJsonCopy, parseContent } from "@seam/host";
import { freeze } from "./_builtins.ts";

/** Content given to `sendMessage`/`resume`: copied, checked, frozen. */
export function acceptContent(
  value: unknown,
  path: string,
): readonly ContentBlock[] {
  if (typeof value === "string") {
    // The common case, built frozen: one text block.
    if (value === "") parseContent(value, path);
    return freeze([freeze({ type: "text" as const, text: value })]);
  }
  return parseContent(frozenJsonCopy(value, path), path);
}
