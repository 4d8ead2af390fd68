// codex-acp (npm `@zed-industries/codex-acp`) for the ACP tests and the pool
// benchmark, offline: installed with npm into tests/.out on first use (Deno's
// npm resolution cannot install its per-platform binary), run with a
// CODEX_HOME of its own whose model provider is the fake Responses API server
// (tests/mcp_fake_responses.ts), so a prompt gets an answer and nothing
// leaves the machine.
import type { AcpProviderConfig } from "@seam/subagent-acp";

/** The version checked here. */
export const CODEX_ACP = "@zed-industries/codex-acp@0.16.0";
const OUT = new URL("./.out/", import.meta.url).pathname;
/** Where it is installed; every process of it has this in its command line. */
export const CODEX_ACP_DIR = `${OUT}codex-acp/`;
const BIN = `${CODEX_ACP_DIR}node_modules/.bin/codex-acp`;

function installed(): boolean {
  try {
    return Deno.statSync(BIN).isFile;
  } catch {
    return false;
  }
}

/** The codex-acp executable, installed when missing; `undefined` (and why, on stderr) without npm. */
export async function codexAcp(): Promise<string | undefined> {
  if (installed()) return BIN;
  let why = "npm install failed";
  try {
    await Deno.mkdir(CODEX_ACP_DIR, { recursive: true });
    const { success, stderr } = await new Deno.Command("npm", {
      args: ["install", "--no-audit", "--no-fund", "--prefix", CODEX_ACP_DIR, CODEX_ACP],
      stdout: "null",
      stderr: "piped",
    }).output();
    if (success && installed()) return BIN;
    why = new TextDecoder().decode(stderr).trim().split("\n").at(-1) ?? why;
  } catch (error) {
    why = `no npm (${error instanceof Error ? error.message : error})`;
  }
  console.warn(`codex-acp: ${CODEX_ACP} could not be installed: ${why}`);
  return undefined;
}

/** A CODEX_HOME (under tests/.out) whose model provider is the Responses server at `baseUrl`. */
export async function codexHome(baseUrl: string): Promise<string> {
  const home = await Deno.makeTempDir({ dir: OUT, prefix: "codex-acp-home-" });
  await Deno.writeTextFile(
    `${home}/config.toml`,
    `model = "fake-model"\nmodel_provider = "fake"\n\n[model_providers.fake]\n` +
      `name = "fake"\nbase_url = "${baseUrl}"\nwire_api = "responses"\n`,
  );
  return home;
}

/** A provider config running codex-acp `bin` with `home`. */
export function codexAcpConfig(
  bin: string,
  home: string,
  extra: Partial<AcpProviderConfig> = {},
): AcpProviderConfig {
  return {
    name: "codex",
    command: bin,
    // HOME too: codex snapshots a login shell, whose profile must not be the user's.
    env: { CODEX_HOME: home, HOME: home, RUST_LOG: "error" },
    startupTimeoutMs: 30_000,
    disposeEofGraceMs: 200,
    disposeGraceMs: 1_000,
    ...extra,
  };
}
