const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** `path.key`, or `path["odd key"]` when the key is not an identifier. */
export function childPath(path: string, key: string): string {
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}
