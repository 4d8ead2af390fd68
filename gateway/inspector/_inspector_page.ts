/**
 * The run inspector's page: a small HTML shell with its styles. It holds no
 * data (the module fetches everything behind the gateway's auth), so it is
 * served to anyone who asks; a string here, not a file, so the gateway stays
 * edge-safe (no file reads at runtime).
 */

const STYLE = `
:root { color-scheme: light dark; --line: #8884; --muted: #888; --accent: #2a6df4;
  --ok: #1f9d55; --warn: #d97706; --bad: #dc2626; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.4 system-ui, sans-serif; }
header { display: flex; gap: 1rem; align-items: center; padding: .6rem 1rem;
  border-bottom: 1px solid var(--line); position: sticky; top: 0; background: Canvas; }
header h1 { font-size: 1rem; margin: 0; }
#conn { font-size: .8rem; color: var(--muted); }
#conn[data-state="live"] { color: var(--ok); }
#token-form { display: none; gap: .4rem; }
#token-form[data-open] { display: flex; }
main { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 1fr); gap: 1rem; padding: 1rem; }
#empty { color: var(--muted); }
.task { border: 1px solid var(--line); border-radius: 8px; margin-bottom: .8rem; padding: .6rem .8rem; }
.task-head { display: flex; flex-wrap: wrap; gap: .6rem; align-items: baseline; cursor: pointer; }
.task-head .id { font-family: ui-monospace, monospace; font-size: .85rem; }
.badge { font-size: .75rem; padding: 0 .4rem; border-radius: 4px; border: 1px solid var(--line); }
.badge[data-kind="working"], .badge[data-kind="running"] { color: var(--accent); border-color: var(--accent); }
.badge[data-kind="completed"] { color: var(--ok); border-color: var(--ok); }
.badge[data-kind="input_required"], .badge[data-kind="auth_required"] { color: var(--warn); border-color: var(--warn); }
.badge[data-kind="failed"], .badge[data-kind="canceled"], .badge[data-kind="rejected"],
.badge[data-kind="error"], .badge[data-kind="aborted"], .badge[data-kind="budget-exhausted"] { color: var(--bad); border-color: var(--bad); }
.muted { color: var(--muted); font-size: .8rem; }
.hop { font-size: .75rem; color: var(--warn); }
.status-text { margin: .3rem 0; font-size: .85rem; }
.notice { color: var(--bad); font-size: .85rem; margin: .3rem 0; }
.notice:empty { display: none; }
.input { border-left: 3px solid var(--warn); padding: .3rem .6rem; margin: .4rem 0; }
.input .actions { display: flex; gap: .4rem; flex-wrap: wrap; margin-top: .3rem; }
button { font: inherit; padding: .15rem .6rem; border-radius: 4px; border: 1px solid var(--line);
  background: ButtonFace; color: ButtonText; cursor: pointer; }
button[data-kind^="allow"] { border-color: var(--ok); }
button[data-kind^="reject"], button[data-action="cancel"] { border-color: var(--bad); }
ul.runs { list-style: none; margin: .4rem 0 0; padding-left: 0; }
ul.runs ul.runs { padding-left: 1.2rem; border-left: 1px dashed var(--line); }
.run { margin: .3rem 0; }
.run-head { display: flex; flex-wrap: wrap; gap: .5rem; align-items: baseline; }
.run-head .provider { font-weight: 600; }
.run pre { margin: .2rem 0; padding: .3rem .5rem; max-height: 8rem; overflow: auto;
  white-space: pre-wrap; word-break: break-word; background: #8881; border-radius: 4px; font-size: .8rem; }
.run pre:empty { display: none; }
#detail { border: 1px solid var(--line); border-radius: 8px; padding: .6rem .8rem; align-self: start;
  position: sticky; top: 3.5rem; max-height: calc(100vh - 5rem); overflow: auto; }
#detail h2 { font-size: .95rem; margin: 0 0 .4rem; }
#detail .msg { border-bottom: 1px solid var(--line); padding: .3rem 0; }
#detail .role { font-size: .75rem; color: var(--muted); }
.task-head .title { font-weight: 600; max-width: 40ch; overflow: hidden; text-overflow: ellipsis;
  white-space: nowrap; }
.task.listed { border-style: dashed; }
#others h2 { font-size: .9rem; margin: 1rem 0 .4rem; color: var(--muted); }
.timeline { display: grid; grid-template-columns: minmax(6rem, 12rem) minmax(8rem, 1fr);
  gap: .2rem .5rem; font-size: .8rem; margin-bottom: .6rem; }
.tl-row { display: contents; }
.tl-name { grid-column: 1; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.tl-track { grid-column: 2; position: relative; height: .9rem; background: #8881; border-radius: 3px; }
.tl-bar { position: absolute; top: 0; bottom: 0; border-radius: 3px; background: var(--accent); opacity: .75; }
.tl-bar[data-status="completed"] { background: var(--ok); }
.tl-bar[data-status="error"], .tl-bar[data-status="aborted"],
.tl-bar[data-status="budget-exhausted"] { background: var(--bad); }
.tl-wait { position: absolute; top: 0; bottom: 0; background: var(--warn);
  background-image: repeating-linear-gradient(45deg, #fff6 0 3px, transparent 3px 6px); }
.tl-info { grid-column: 2; margin-bottom: .2rem; }
.tl-axis { grid-column: 2; text-align: right; }
.timeline > p { grid-column: 1 / -1; margin: 0; }
#detail pre { white-space: pre-wrap; word-break: break-word; margin: .2rem 0; font-size: .8rem; }
`;

/**
 * The page, with the inspector's URL prefix (`{basePath}/_inspect`) written
 * in, and whether the gateway wants a bearer token.
 */
export function inspectorPage(prefix: string, auth: boolean): string {
  const base = escapeAttribute(prefix);
  return `<!doctype html>
<html lang="en" data-base="${base}" data-auth="${auth}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>seam inspector</title>
<style>${STYLE}</style>
<script type="module" src="${base}/app.js"></script>
</head>
<body>
<header>
  <h1>seam inspector</h1>
  <span id="conn" data-state="connecting">connecting…</span>
  <span id="summary" class="muted"></span>
  <form id="token-form">
    <input id="token" type="password" placeholder="bearer token" autocomplete="off" aria-label="bearer token">
    <button type="submit">Connect</button>
  </form>
</header>
<main>
  <section id="tasks" aria-label="tasks"><p id="empty">No tasks yet.</p></section>
  <aside id="detail" aria-label="task history"><p class="muted">Click a task for its history.</p></aside>
</main>
</body>
</html>
`;
}

function escapeAttribute(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
}
