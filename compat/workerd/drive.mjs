// Run one bundled worker in workerd through Miniflare and talk A2A to it:
// GET the agent card, then SendMessage and expect a completed task with the
// text sent. Prints one JSON report line; exits 1 when anything failed.
// Usage: node drive.mjs <worker.js> <text>
import { Miniflare } from "miniflare";

const [scriptPath, text] = process.argv.slice(2);
const problems = [];
const report = { card: undefined, state: undefined, answer: undefined };
const mf = new Miniflare({
  modules: true,
  scriptPath,
  compatibilityDate: "2025-09-01",
  // No nodejs_compat: the bundle imports no node: built-in.
});
try {
  const cardResponse = await mf.dispatchFetch("http://seam.test/.well-known/agent-card.json");
  if (!cardResponse.ok) problems.push(`GET agent card answered HTTP ${cardResponse.status}`);
  const card = await cardResponse.json().catch(() => undefined);
  report.card = card?.name;
  const response = await mf.dispatchFetch("http://seam.test/", {
    method: "POST",
    headers: { "content-type": "application/json", "A2A-Version": "1.0" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: {
        message: { messageId: "workerd-1", role: "ROLE_USER", parts: [{ text: `@reply ${text}` }] },
      },
    }),
  });
  const body = await response.text();
  let answer;
  try {
    answer = JSON.parse(body);
  } catch {
    problems.push(`SendMessage answered HTTP ${response.status}, not JSON: ${body.slice(0, 300)}`);
  }
  const task = answer?.result?.task;
  report.state = task?.status?.state;
  report.answer = task?.artifacts?.[0]?.parts?.[0]?.text;
  if (answer && report.state !== "TASK_STATE_COMPLETED") {
    problems.push(`SendMessage did not complete: ${body.slice(0, 300)}`);
  } else if (answer && report.answer !== text) {
    problems.push(
      `the task answered ${JSON.stringify(report.answer)}, not ${JSON.stringify(text)}`,
    );
  }
} catch (error) {
  problems.push(`workerd failed: ${error?.message ?? error}`);
} finally {
  await mf.dispose().catch(() => {}); // a runtime that never started has nothing to stop
}
console.log(JSON.stringify({ ...report, problems }));
process.exitCode = problems.length === 0 ? 0 : 1;
