// release/check.ts fails when it should: run as `deno task release:check`
// runs it, on fixture workspaces that break one rule each (release/testdata/).
import assert from "node:assert/strict";

async function releaseCheck(...args: string[]): Promise<{ code: number; output: string }> {
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "release/check.ts", ...args],
    cwd: new URL("..", import.meta.url),
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const decoder = new TextDecoder();
  return { code, output: decoder.decode(stdout) + decoder.decode(stderr) };
}

Deno.test("release:check fails when the packages' versions disagree, naming each", async () => {
  const { code, output } = await releaseCheck("--root", "release/testdata/versions_disagree");
  assert.equal(code, 1, output);
  assert.match(output, /versions disagree \(0\.3\.0: @fixture\/a; 0\.2\.9: @fixture\/b\)/);
});

Deno.test("release:check fails when CHANGELOG.md has no section for the version", async () => {
  const { code, output } = await releaseCheck("--root", "release/testdata/changelog_lacks_version");
  assert.equal(code, 1, output);
  assert.match(output, /Cannot release 0\.3\.0: CHANGELOG\.md has no "## \[0\.3\.0\]/);
  assert.doesNotMatch(output, /disagree/);
});

Deno.test("release:check fails when SEAM_VERSION names another version than the packages", async () => {
  const { code, output } = await releaseCheck("--root", "release/testdata/constant_stale");
  assert.equal(code, 1, output);
  assert.match(output, /host\/version\.ts says SEAM_VERSION is "0\.2\.9"; set it to "0\.3\.0"/);
  assert.doesNotMatch(output, /disagree|CHANGELOG/);
});

Deno.test("release:check passes a consistent workspace and fails a tag naming another version", async () => {
  const passed = await releaseCheck("--root", "release/testdata/consistent", "--tag", "v0.3.0");
  assert.equal(passed.code, 0, passed.output);
  assert.match(passed.output, /2 packages at 0\.3\.0/);
  const tagged = await releaseCheck("--root", "release/testdata/consistent", "--tag", "v0.3.1");
  assert.equal(tagged.code, 1, tagged.output);
  assert.match(tagged.output, /Cannot release tag "v0\.3\.1": the packages are at 0\.3\.0/);
});

Deno.test("release:check passes this repository: every package at one version, in CHANGELOG.md", async () => {
  const { code, output } = await releaseCheck();
  assert.equal(code, 0, output);
  const root = JSON.parse(await Deno.readTextFile(new URL("../deno.json", import.meta.url)));
  assert.match(output, new RegExp(`${root.workspace.length} packages at \\d+\\.\\d+\\.\\d+`));
});

Deno.test("release:check refuses an unknown option, naming the known ones", async () => {
  const { code, output } = await releaseCheck("--tga", "v1.0.0");
  assert.notEqual(code, 0);
  assert.match(output, /unknown option --tga \(known: --root, --tag\)/);
});
