import type { Logger } from "@seam/host";
import type { PermissionOptionWire, PermissionOutcome } from "./_connection.ts";
import type { AcpPermissionDecision } from "./types.ts";

/** The `cancelled` answer. */
export const CANCELLED: PermissionOutcome = Object.freeze({ outcome: "cancelled" });

function pick(options: readonly PermissionOptionWire[], kinds: string[]): string | undefined {
  for (const kind of kinds) {
    const found = options.find((o) => o.kind === kind);
    if (found) return found.optionId;
  }
  return undefined;
}

/** Turn a decision into the wire answer for the offered `options`. */
export function toOutcome(
  decision: AcpPermissionDecision,
  options: readonly PermissionOptionWire[],
  logger: Logger,
): PermissionOutcome {
  let optionId: string | undefined;
  if (decision === "allow") optionId = pick(options, ["allow_once", "allow_always"]);
  else if (decision === "reject") optionId = pick(options, ["reject_once", "reject_always"]);
  else if (decision === "cancel") return CANCELLED;
  else if (
    decision !== null && typeof decision === "object" && typeof decision.optionId === "string" &&
    options.some((o) => o.optionId === decision.optionId)
  ) {
    optionId = decision.optionId;
  } else {
    logger.error(
      `A permission handler returned ${
        JSON.stringify(decision)
      }, which is not "allow", "reject", "cancel" or an offered { optionId }: answering cancelled`,
    );
    return CANCELLED;
  }
  if (optionId === undefined) {
    logger.warn(
      `The agent offered no option for "${decision}" in its permission request: answering cancelled`,
    );
    return CANCELLED;
  }
  return { outcome: "selected", optionId };
}
