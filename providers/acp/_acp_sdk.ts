// What `_acp_sdk.bundle.js` holds: the ACP SDK (npm:@agentclientprotocol/sdk
// at the version deno.json pins), bundled with its zod into one module by
// `deno task vendor:acp` (tests/acp_vendor.ts). The package imports the
// bundle, typed by the SDK's own declarations (`@ts-types`): from source, the
// SDK as one module starts ~30 ms sooner than its files and zod's (~150
// modules, 64 of them zod's locales, which the bundle leaves out);
// bench/README.md has the figures. tests/acp_vendor_test.ts fails when the
// bundle is not what a fresh one would be.
export * from "@agentclientprotocol/sdk";
