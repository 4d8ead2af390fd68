import { stringify } from "./_builtins.ts";
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `path.key`, or `path["odd key"]` when the key is not an identifier (`key` alone at the root). */
export function childPath(path: string, key: string): string {
  if (IDENTIFIER.test(key)) return path ? `${path}.${key}` : key;
  return `${path}[${stringify(key)}]`;
}
