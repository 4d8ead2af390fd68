// Asking the human at the terminal for what a remote task needs: a
// permission (one of the offered options, by number or id) or an answer in
// words. An empty line or the end of input refuses; so does a signal.
import process from "node:process";
import type { SubagentInputAnswer, SubagentInputRequest } from "@seam/subagent";
import type { LineReader } from "./_terminal.ts";

/** Tries at a malformed answer before the request is refused. */
const MAX_TRIES = 5;

/** Ask `request` at the terminal; resolves with the answer to give. */
export async function askAtTerminal(
  request: SubagentInputRequest,
  lines: LineReader,
  signal: AbortSignal,
): Promise<SubagentInputAnswer> {
  const write = (text: string) => process.stderr.write(text);
  const options = request.options ?? [];
  write(`\n? ${request.kind}: ${request.message}\n`);
  if (request.toolCall) {
    const input = request.toolCall.rawInput === undefined
      ? ""
      : ` ${JSON.stringify(request.toolCall.rawInput).slice(0, 500)}`;
    write(`  tool: ${request.toolCall.title ?? request.toolCall.name}${input}\n`);
  }
  options.forEach((option, i) => write(`  [${i + 1}] ${option.label} (${option.kind})\n`));
  for (let tries = 0; tries < MAX_TRIES; tries++) {
    write(
      options.length > 0
        ? `answer 1-${options.length} (empty refuses): `
        : "answer (empty refuses): ",
    );
    const line = (await lines.next(signal))?.trim();
    if (line === undefined) {
      write("\n");
      return { outcome: "refused", reason: "no answer at the terminal (input closed)" };
    }
    if (line === "") return { outcome: "refused", reason: "refused at the terminal" };
    if (options.length === 0) return { outcome: "answered", text: line };
    const chosen = /^\d+$/.test(line)
      ? options[Number(line) - 1]
      : options.find((option) => option.id === line);
    if (chosen) return { outcome: "selected", optionId: chosen.id };
    write(`"${line}" is not one of the options: type a number from 1 to ${options.length}\n`);
  }
  return { outcome: "refused", reason: `no valid answer at the terminal in ${MAX_TRIES} tries` };
}
