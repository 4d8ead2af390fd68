// A headless Chromium (the system's /usr/bin/chromium, never a downloaded
// one) driven by playwright-core, in a process of its own: playwright reads
// /proc and the home directory when it loads, which `deno task test`'s
// permissions do not grant, so the test talks to it over stdin/stdout, one
// JSON command a line (see browser_support.ts). Run with -A by the test.
import { chromium } from "playwright-core";

const [executablePath, userDataDir] = Deno.args;
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath,
  headless: true,
  args: [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
  ],
  viewport: { width: 1200, height: 800 },
});
const page = context.pages()[0] ?? await context.newPage();
const logs: string[] = [];
page.on("console", (m) => logs.push(`${m.type()}: ${m.text()}`));
page.on("pageerror", (e) => logs.push(`pageerror: ${e.message}`));

interface Command {
  id: number;
  op: string;
  url?: string;
  selector?: string;
  state?: "attached" | "detached" | "visible" | "hidden";
  value?: string;
  path?: string;
  timeout?: number;
  expression?: string;
}

async function run(c: Command): Promise<unknown> {
  const timeout = c.timeout ?? 15_000;
  switch (c.op) {
    case "goto":
      await page.goto(c.url!, { timeout });
      return null;
    case "waitFor":
      await page.locator(c.selector!).first().waitFor({ state: c.state ?? "visible", timeout });
      return null;
    case "click":
      await page.locator(c.selector!).first().click({ timeout });
      return null;
    case "fill":
      await page.locator(c.selector!).first().fill(c.value!, { timeout });
      return null;
    case "text":
      return await page.locator(c.selector!).first().textContent({ timeout });
    case "count":
      return await page.locator(c.selector!).count();
    case "screenshot":
      await page.screenshot({ path: c.path!, fullPage: true });
      return null;
    case "evaluate":
      return await page.evaluate(c.expression!);
    case "logs":
      return logs.splice(0);
    default:
      throw new Error(`unknown command ${c.op}`);
  }
}

const encoder = new TextEncoder();
const reply = (value: unknown) => Deno.stdout.write(encoder.encode(JSON.stringify(value) + "\n"));
await reply({ id: 0, ok: true, value: "ready" });
const lines = Deno.stdin.readable.pipeThrough(new TextDecoderStream());
let buffer = "";
reading: for await (const chunk of lines) {
  buffer += chunk;
  let end;
  while ((end = buffer.indexOf("\n")) !== -1) {
    const command = JSON.parse(buffer.slice(0, end)) as Command;
    buffer = buffer.slice(end + 1);
    if (command.op === "close") break reading;
    try {
      await reply({ id: command.id, ok: true, value: await run(command) });
    } catch (error) {
      await reply({ id: command.id, ok: false, error: (error as Error).message });
    }
  }
}
await context.close();
await reply({ id: -1, ok: true, value: "closed" });
