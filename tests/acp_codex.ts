// codex-acp (npm `@zed-industries/codex-acp`) for the ACP tests and the pool
// benchmark, offline: installed with npm into tests/.out on first use
// (tests/npm_bin.ts), run with a CODEX_HOME of its own whose model provider
// is the fake Responses API server (tests/mcp_fake_responses.ts), so a
// prompt gets an answer and nothing leaves the machine.
import type { AcpProviderConfig } from "@seam/subagent-acp";
import { npmBin, npmBinDir } from "./npm_bin.ts";

/** The version checked here. */
export const CODEX_ACP = "@zed-industries/codex-acp@0.16.0";
const OUT = new URL("./.out/", import.meta.url).pathname;
/** Where it is installed; every process of it has this in its command line. */
export const CODEX_ACP_DIR: string = npmBinDir("codex-acp");

/** The codex-acp executable, installed when missing; `undefined` (and why, on stderr) without npm. */
export function codexAcp(): Promise<string | undefined> {
  return npmBin(CODEX_ACP, "codex-acp", "codex-acp");
}

/** A CODEX_HOME (under tests/.out) for codex or codex-acp, whose model provider is the Responses server at `baseUrl`. */
export async function codexHome(baseUrl: string): Promise<string> {
  const home = await Deno.makeTempDir({ dir: OUT, prefix: "codex-home-" });
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
