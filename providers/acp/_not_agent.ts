// The words of a run's failure before its prompt, and of one kind in
// particular: a command that failed `initialize` without a word of JSON-RPC
// (it exited, printed only text, echoed the request back as `cat` does, or
// stayed silent) is most likely no ACP agent at all, or one started without
// its ACP flag. Such a failure names the command, its first stdout lines and
// what to check.
import type { JsonValue } from "@seam/host";
import type { AcpFailureCode } from "./_failure.ts";
import { cut } from "./_failure.ts";
import type { InboundScreen } from "./_inbound.ts";

/** The most characters of the command line quoted. */
const COMMAND_CHARS = 200;

/** What to check, after the failure of a command that never spoke JSON-RPC. */
const CHECK = ". Check that the command starts an ACP agent speaking JSON-RPC on its " +
  "stdin and stdout (many need a flag or an adapter, e.g. `gemini --experimental-acp`, " +
  "`npx @zed-industries/codex-acp`), and that, run by hand, it waits for input instead of " +
  "exiting or printing text";

/** `words` as a shell would read them back (quoted where needed), cut. */
export function shellLine(words: readonly string[]): string {
  const quotedWords = words.map((word) =>
    /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`
  );
  return cut(quotedWords.join(" "), COMMAND_CHARS);
}

/** A run's failure message, and what it says of a command that is no ACP agent. */
export interface FailureText {
  readonly message: string;
  /** Set when the command never spoke JSON-RPC before `initialize` failed. */
  readonly notAnAcpAgent?: { readonly command: string; readonly stdout: JsonValue[] };
}

/**
 * The message of a run that failed during `phase` with `code` and `reason`:
 * the agent's stderr `tail` quoted for a failure before the prompt (unless
 * the reason already ends with it, as a lost connection's does), and, for an
 * `initialize` failure from a command that never spoke JSON-RPC, who it was,
 * what it printed and what to check.
 */
export function describeFailure(
  phase: string,
  code: AcpFailureCode,
  reason: string,
  tail: string,
  { startup, inbound }: { startup: boolean; inbound: InboundScreen },
): FailureText {
  const quoteTail = startup && tail !== "" && code !== "CONNECTION_LOST";
  const told = `${reason}${quoteTail ? `; its last stderr lines:\n${tail}` : ""}`;
  // START_FAILED: it could not be spawned, or it answered (then it spoke).
  if (phase !== "initialize" || code === "START_FAILED" || inbound.spoke) {
    return { message: `The ACP run failed during ${phase}: ${told}` };
  }
  const command = shellLine(inbound.commandLine);
  const stdout = inbound.firstLines();
  const printed = stdout.length === 0
    ? "it printed nothing on stdout"
    : `its first lines on stdout: ${stdout.map((line) => JSON.stringify(line)).join(", ")}`;
  return {
    message: `The ACP run failed during initialize: \`${command}\` did not answer initialize ` +
      `as an ACP agent (${printed}): ${told}${CHECK}`,
    notAnAcpAgent: { command, stdout: [...stdout] },
  };
}
