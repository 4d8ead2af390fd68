import process from "node:process";
import type { Logger } from "@seam/host";

/** Names an agent does not inherit: anything that looks like a credential. */
const SECRET_NAME = /KEY|SECRET|TOKEN/i;

/** Whether the ambient variable `name` is withheld from the agent. */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

let warnedNoEnv = false;

/**
 * The agent's environment: the ambient one minus names containing `KEY`,
 * `SECRET` or `TOKEN` (any case), plus `extra` (which may add such names
 * back on purpose).
 */
export function childEnv(
  extra: Readonly<Record<string, string>>,
  logger: Logger,
): Record<string, string> {
  let ambient: Record<string, string> = {};
  try {
    ambient = { ...process.env } as Record<string, string>;
  } catch (error) {
    if (!warnedNoEnv) {
      warnedNoEnv = true;
      logger.warn(
        "Cannot read the environment (no --allow-env): ACP agents get only config.env",
        error,
      );
    }
  }
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(ambient)) {
    if (!isSecretName(name)) env[name] = value;
  }
  return Object.assign(env, extra);
}
