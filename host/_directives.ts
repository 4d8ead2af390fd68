/**
 * The directive parser of the scripted model. See `scripted_model.ts` for the
 * language.
 */
import { isRecord } from "./unknown.ts";
import { isArray, stringify } from "./_builtins.ts";

/** One parsed step. */
export type DirectiveStep =
  | { readonly kind: "reply"; readonly text: string; readonly delayMs: number }
  | { readonly kind: "system"; readonly delayMs: number }
  | { readonly kind: "echo"; readonly delayMs: number }
  | {
    readonly kind: "calls";
    readonly calls: readonly {
      readonly name: string;
      readonly args: unknown;
      readonly id?: string;
    }[];
    readonly text?: string;
    readonly delayMs: number;
  }
  | { readonly kind: "hang"; readonly delayMs: number }
  | { readonly kind: "fail"; readonly text: string; readonly delayMs: number }
  | { readonly kind: "max-tokens"; readonly text: string; readonly delayMs: number }
  | { readonly kind: "refuse"; readonly text: string; readonly delayMs: number };

/** A parsed prompt: its steps (empty when it holds no directive) and its plain text. */
export interface ParsedPrompt {
  readonly steps: readonly DirectiveStep[];
  /** The prompt without its directive lines. */
  readonly text: string;
  /** Set when the directives are malformed: the first step fails with it. */
  readonly error?: string;
}

const NAMES = new Set([
  "reply",
  "call",
  "calls",
  "hang",
  "fail",
  "max-tokens",
  "refuse",
  "system",
  "echo",
  "delay",
]);

class DirectiveError extends Error {}

/** Parse the directives of `text`. Never throws: a problem becomes `error`. */
export function parseDirectives(text: string): ParsedPrompt {
  if (!text.includes("@")) return { steps: [], text };
  const steps: DirectiveStep[] = [];
  const plain: string[] = [];
  const unknown: string[] = [];
  let delayMs = 0;
  let pos = 0;
  let line = 1;
  let error: string | undefined;
  const length = text.length;
  try {
    while (pos < length) {
      const lineStart = pos;
      let i = pos;
      while (i < length && (text[i] === " " || text[i] === "\t")) i++;
      const match = text[i] === "@" ? /^@([a-z][a-z-]*)/.exec(text.slice(i, i + 32)) : null;
      if (!match || !NAMES.has(match[1])) {
        if (match) unknown.push(`@${match[1]} (line ${line})`);
        const end = text.indexOf("\n", pos);
        const stop = end === -1 ? length : end;
        plain.push(text.slice(lineStart, stop));
        pos = stop + 1;
        line++;
        continue;
      }
      const name = match[1];
      pos = i + 1 + name.length;
      if (pos < length && !/\s/.test(text[pos])) {
        throw new DirectiveError(`@${name} on line ${line} must be followed by a space`);
      }
      const at = `@${name} on line ${line}`;
      switch (name) {
        case "reply":
        case "fail":
        case "max-tokens":
        case "refuse": {
          const [value, next] = readText(text, pos, at);
          pos = next;
          const kind = name as "reply" | "fail" | "max-tokens" | "refuse";
          steps.push({ kind, text: value, delayMs });
          break;
        }
        case "call": {
          pos = skipSpaces(text, pos);
          const nameMatch = /^[A-Za-z0-9_-]+/.exec(text.slice(pos, pos + 80));
          if (!nameMatch) throw new DirectiveError(`${at} needs a tool name`);
          pos += nameMatch[0].length;
          pos = skipSpaces(text, pos);
          let args: unknown = {};
          if (text[pos] === "{" || text[pos] === "[") {
            const [value, next] = readJson(text, pos, at);
            args = value;
            pos = next;
          }
          steps.push({ kind: "calls", calls: [{ name: nameMatch[0], args }], delayMs });
          break;
        }
        case "calls": {
          pos = skipSpaces(text, pos);
          if (text[pos] !== "[") throw new DirectiveError(`${at} needs a JSON array of calls`);
          const [value, next] = readJson(text, pos, at);
          pos = next;
          if (!isArray(value) || value.length === 0) {
            throw new DirectiveError(`${at} needs a non-empty JSON array of calls`);
          }
          const calls = value.map((item, index) => {
            if (
              !isRecord(item) ||
              typeof item.name !== "string" || item.name === ""
            ) {
              throw new DirectiveError(
                `${at}: call #${index} must be an object {"name": ..., "args": ...}`,
              );
            }
            return { name: item.name as string, args: item.args ?? {} };
          });
          steps.push({ kind: "calls", calls, delayMs });
          break;
        }
        case "hang":
        case "system":
        case "echo":
          steps.push({ kind: name, delayMs });
          break;
        case "delay": {
          pos = skipSpaces(text, pos);
          const number = /^\d+/.exec(text.slice(pos, pos + 16));
          if (!number) throw new DirectiveError(`${at} needs a whole number of milliseconds`);
          pos += number[0].length;
          delayMs = Number(number[0]);
          break;
        }
      }
      // The rest of the directive's line must be blank.
      const end = text.indexOf("\n", pos);
      const stop = end === -1 ? length : end;
      if (text.slice(pos, stop).trim() !== "") {
        throw new DirectiveError(
          `${at}: unexpected text after the directive: ${stringify(text.slice(pos, stop).trim())}`,
        );
      }
      line += countLines(text, lineStart, stop);
      pos = stop + 1;
      line++;
    }
  } catch (caught) {
    if (!(caught instanceof DirectiveError)) throw caught;
    error = `Scripted model: ${caught.message}`;
  }
  if (steps.length === 0 && error === undefined) return { steps, text };
  if (error === undefined && unknown.length > 0) {
    error = `Scripted model: unknown directive ${unknown.join(", ")}`;
  }
  return { steps, text: plain.join("\n").trim(), ...(error === undefined ? {} : { error }) };
}

function countLines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (text.charCodeAt(i) === 10) n++;
  return n;
}

function skipSpaces(text: string, pos: number): number {
  while (pos < text.length && (text[pos] === " " || text[pos] === "\t")) pos++;
  return pos;
}

/** The text argument: a JSON string, or the rest of the line. */
function readText(text: string, pos: number, at: string): [string, number] {
  pos = skipSpaces(text, pos);
  if (text[pos] === '"') {
    const [value, next] = readJson(text, pos, at);
    if (typeof value !== "string") throw new DirectiveError(`${at}: expected a JSON string`);
    return [value, next];
  }
  const end = text.indexOf("\n", pos);
  const stop = end === -1 ? text.length : end;
  return [text.slice(pos, stop).trimEnd(), stop];
}

/** One JSON value starting at `pos` (it may span lines). */
function readJson(text: string, pos: number, at: string): [unknown, number] {
  const end = scanJson(text, pos);
  if (end === -1) throw new DirectiveError(`${at}: unterminated JSON`);
  const slice = text.slice(pos, end);
  try {
    return [JSON.parse(slice), end];
  } catch (error) {
    throw new DirectiveError(`${at}: invalid JSON (${(error as Error).message})`);
  }
}

/** The index just past the JSON string, object or array at `pos`, or -1. */
function scanJson(text: string, pos: number): number {
  let depth = 0;
  let inString = false;
  for (let i = pos; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') {
        inString = false;
        if (depth === 0) return i + 1;
      }
    } else if (c === '"') inString = true;
    else if (c === "{" || c === "[") depth++;
    else if (c === "}" || c === "]") {
      depth--;
      if (depth === 0) return i + 1;
      if (depth < 0) return -1;
    }
  }
  return -1;
}
