import assert from "node:assert/strict";
import { checkWebhookUrl, nonPublicReason } from "./_push_policy.ts";
import { GatewayError } from "../core/_errors.ts";

Deno.test("nonPublicReason() names every non-public target and passes public ones", async (t) => {
  await t.step("loopback, private, link-local and reserved IPv4, in every written form", () => {
    for (
      const url of [
        "http://127.0.0.1/",
        "http://127.1.2.3:8080/x",
        "http://2130706433/", // 127.0.0.1 as one number
        "http://0x7f.1/", // 127.0.0.1 in hex
        "http://10.1.2.3/",
        "http://172.16.0.1/",
        "http://172.31.255.255/",
        "http://192.168.1.1/",
        "http://169.254.169.254/latest/meta-data", // cloud metadata
        "http://100.64.0.1/",
        "http://0.0.0.0/",
        "http://224.0.0.1/",
        "http://255.255.255.255/",
      ]
    ) {
      assert.ok(nonPublicReason(new URL(url)), url);
    }
  });
  await t.step("IPv6 loopback, unique-local, link-local, and IPv4 embedded in IPv6", () => {
    for (
      const url of [
        "http://[::1]/",
        "http://[::]/",
        "http://[fc00::1]/",
        "http://[fd12:3456::1]/",
        "http://[fe80::1]/",
        "http://[ff02::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://[::ffff:10.0.0.1]/",
        "http://[64:ff9b::10.0.0.1]/",
      ]
    ) {
      assert.ok(nonPublicReason(new URL(url)), url);
    }
  });
  await t.step("localhost, single labels and private-use suffixes", () => {
    for (
      const url of [
        "http://localhost:3000/",
        "http://LOCALHOST./",
        "http://api.localhost/",
        "http://metadata/",
        "http://printer.local/",
        "http://metadata.google.internal/",
        "http://nas.home.arpa/",
      ]
    ) {
      assert.ok(nonPublicReason(new URL(url)), url);
    }
  });
  await t.step("public addresses and names pass", () => {
    for (
      const url of [
        "https://example.com/hook",
        "https://8.8.8.8/",
        "http://172.32.0.1/",
        "http://192.169.0.1/",
        "https://[2606:4700::1111]/",
        "https://[::ffff:8.8.8.8]/",
      ]
    ) {
      assert.equal(nonPublicReason(new URL(url)), undefined, url);
    }
  });
});

Deno.test("checkWebhookUrl() refuses what the policy refuses, naming the field", async (t) => {
  const refused = async (url: string, allow?: (u: URL) => boolean, pattern?: RegExp) => {
    const error = await checkWebhookUrl(url, "config.url", allow).then(
      () => undefined,
      (e) => e,
    );
    assert.ok(error instanceof GatewayError, url);
    assert.equal(error.kind, "invalidParams");
    assert.match(error.message, /config\.url/);
    if (pattern) assert.match(error.message, pattern);
  };
  await t.step("only http(s), absolute, without credentials", async () => {
    await refused("file:///etc/passwd", undefined, /http or https/);
    await refused("ftp://example.com/", undefined, /http or https/);
    await refused("/relative", undefined, /absolute/);
    await refused("https://user:pw@example.com/", undefined, /credentials/);
    await refused(`https://example.com/${"a".repeat(2_100)}`, undefined, /limit is 2048/);
  });
  await t.step("a loopback target unless allowWebhook says yes", async () => {
    await refused("http://127.0.0.1:9/hook", undefined, /loopback/);
    await refused("http://127.0.0.1:9/hook", () => false, /allowWebhook/);
    await refused("http://127.0.0.1:9/hook", () => {
      throw new Error("boom");
    });
    const allowed = await checkWebhookUrl(
      "http://127.0.0.1:9/hook",
      "url",
      (u) => u.hostname === "127.0.0.1",
    );
    assert.equal(allowed.href, "http://127.0.0.1:9/hook");
  });
  await t.step("allowWebhook cannot allow another scheme", async () => {
    await refused("file:///etc/passwd", () => true, /http or https/);
  });
  await t.step("a public URL needs no allowance", async () => {
    let asked = false;
    await checkWebhookUrl("https://example.com/hook", "url", () => (asked = true));
    assert.equal(asked, false);
  });
});
