/**
 * The run inspector's page module, as a string (edge-safe: no file reads),
 * served as `{base}/_inspect/app.js`: the connection (the event stream read
 * with `fetch`, so it can send the bearer token, which `EventSource` cannot;
 * reconnected with backoff, each time from a new snapshot) and the actions
 * (cancel, answer, a task's history). What it draws is `./view.js`
 * (`_inspector_view.ts`). Plain browser JavaScript, no framework, no build
 * step; written without backticks and dollar-brace so it sits in a raw
 * template.
 */
export const INSPECTOR_MODULE: string = String.raw`
import {
  $,
  el,
  notice,
  now,
  partText,
  refreshTimeline,
  renderAll,
  renderTask,
  state,
  stateWord,
  tickClocks,
  timeline,
  usageText,
} from "./view.js";

const base = document.documentElement.dataset.base;
const TOKEN_KEY = "seam-inspector-token:" + base;
// A token in the fragment (#token=...) never reaches the server or its logs: take it, then drop it.
let token = "";
const fragment = new URLSearchParams(location.hash.slice(1));
if (fragment.get("token")) {
  token = fragment.get("token");
  sessionStorage.setItem(TOKEN_KEY, token);
  history.replaceState(null, "", location.pathname + location.search);
} else {
  token = sessionStorage.getItem(TOKEN_KEY) || "";
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function headers(extra) {
  const h = Object.assign({}, extra);
  if (token) h.authorization = "Bearer " + token;
  return h;
}

async function errorText(response) {
  const text = await response.text();
  try {
    const body = JSON.parse(text);
    return (body.error && body.error.message) || text;
  } catch {
    return text || "HTTP " + response.status;
  }
}

function setConn(kind, text) {
  const conn = $("#conn");
  conn.dataset.state = kind;
  conn.textContent = text;
}

function askToken(why) {
  setConn("down", why);
  const form = $("#token-form");
  form.dataset.open = "";
  form.onsubmit = (event) => {
    event.preventDefault();
    token = $("#token").value.trim();
    sessionStorage.setItem(TOKEN_KEY, token);
    delete form.dataset.open;
    connect();
  };
}

async function connect() {
  let delay = 500;
  for (;;) {
    setConn("connecting", "connecting…");
    try {
      const response = await fetch(base + "/events", {
        headers: headers({ accept: "text/event-stream" }),
      });
      if (response.status === 401) {
        askToken(token ? "the token was refused" : "this gateway needs a bearer token");
        return;
      }
      if (!response.ok) throw new Error(await errorText(response));
      setConn("live", "live");
      delay = 500;
      await readEvents(response.body);
      setConn("connecting", "the stream ended; reconnecting…");
    } catch (error) {
      setConn("down", "disconnected (" + error.message + "); retrying…");
    }
    await sleep(delay);
    delay = Math.min(delay * 2, 10000);
  }
}

async function readEvents(body) {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) !== -1) {
      const frame = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = frame.split("\n").filter((l) => l.startsWith("data: "))
        .map((l) => l.slice(6)).join("\n");
      if (data) apply(JSON.parse(data));
    }
  }
}

function clip(text, keep) {
  const max = Math.min(state.limits.maxTextPerRun, keep ?? Infinity);
  return text.length > max ? text.slice(text.length - max) : text;
}

function apply(event) {
  switch (event.type) {
    case "batch":
      for (const one of event.events) apply(one);
      break;
    case "snapshot":
      state.tasks.clear();
      state.runs.clear();
      state.limits = event.limits || state.limits;
      if (typeof event.now === "number") state.skew = event.now - Date.now();
      for (const task of event.tasks) state.tasks.set(task.id, task);
      for (const run of event.runs) state.runs.set(run.runId, run);
      renderAll();
      refreshList();
      break;
    case "task":
      state.tasks.set(event.task.id, event.task);
      renderTask(event.task.id);
      if (state.selected === event.task.id) showDetail(event.task.id);
      break;
    case "run": {
      const old = state.runs.get(event.run.runId);
      state.runs.set(event.run.runId, Object.assign({ text: old ? old.text : "" }, event.run));
      renderTask(event.run.taskId);
      if (state.selected === event.run.taskId) refreshTimeline();
      break;
    }
    case "text": {
      let run = state.runs.get(event.runId);
      if (!run) {
        run = { runId: event.runId, taskId: event.taskId, status: "running", text: "", startedAt: now() };
        state.runs.set(event.runId, run);
      }
      run.text = clip(run.text + event.text, event.keep);
      const pre = $('[data-run-id="' + CSS.escape(event.runId) + '"] > pre');
      if (pre) {
        pre.textContent = run.text;
        pre.scrollTop = pre.scrollHeight;
      } else renderTask(event.taskId);
      break;
    }
    case "drop":
      state.tasks.delete(event.taskId);
      for (const [id, run] of state.runs) if (run.taskId === event.taskId) state.runs.delete(id);
      renderAll();
      break;
    case "error":
      setConn("down", event.message);
      break;
  }
}

// Every task of the principal, as the store lists them (on a shared store,
// every instance's): those this page has no live detail of are listed below
// its own. Read after each snapshot and every few seconds.
let listing = false;
async function refreshList() {
  if (listing) return;
  listing = true;
  try {
    const response = await fetch(base + "/tasks", { headers: headers() });
    if (!response.ok) return;
    const body = await response.json();
    state.listed.clear();
    for (const task of body.tasks) state.listed.set(task.id, task);
    renderAll();
  } catch {
    // The stream's own reconnect says what is wrong; the list comes back with it.
  } finally {
    listing = false;
  }
}

async function post(path, body) {
  const response = await fetch(base + path, {
    method: "POST",
    // Always JSON (the gateway asks for it: a cross-site form cannot send it).
    headers: headers({ "content-type": "application/json" }),
    body: JSON.stringify(body || {}),
  });
  if (!response.ok) throw new Error(await errorText(response));
  return response.json();
}


async function act(taskId, path, body, button) {
  if (button) button.disabled = true;
  notice(taskId, "");
  try {
    await post("/tasks/" + encodeURIComponent(taskId) + path, body);
  } catch (error) {
    notice(taskId, error.message);
    if (button) button.disabled = false;
  }
}

$("#tasks").addEventListener("click", (event) => {
  const target = event.target.closest("[data-action]");
  const card = event.target.closest("[data-task-id]");
  if (!target || !card) return;
  const taskId = card.dataset.taskId;
  const box = target.closest("[data-request-id]");
  const requestId = box && box.dataset.requestId;
  switch (target.dataset.action) {
    case "select":
      if (event.target.closest("button")) return;
      state.selected = taskId;
      showDetail(taskId);
      break;
    case "cancel":
      act(taskId, "/cancel", undefined, target);
      break;
    case "option":
      act(taskId, "/answer", { requestId, optionId: target.dataset.optionId }, target);
      break;
    case "text": {
      const text = $("input", box).value;
      state.drafts.delete(requestId);
      act(taskId, "/answer", { requestId, text }, target);
      break;
    }
    case "refuse":
      act(taskId, "/answer", { requestId, refuse: "refused from the inspector" }, target);
      break;
  }
});

async function showDetail(taskId) {
  const detail = $("#detail");
  let body;
  try {
    const response = await fetch(base + "/tasks/" + encodeURIComponent(taskId), { headers: headers() });
    if (!response.ok) throw new Error(await errorText(response));
    body = await response.json();
  } catch (error) {
    detail.replaceChildren(el("p", { class: "notice", text: error.message }));
    return;
  }
  if (state.selected !== taskId) return;
  const task = body.task;
  state.detailRuns = body.runs || [];
  const seam = Object.values(task.metadata || {})[0] || {};
  const out = [
    el("h2", { text: "Task " + task.id }),
    el("p", { class: "muted", text: stateWord(task.status.state) + " · " + (seam.provider || "") + " · context " + task.contextId }),
  ];
  if (seam.usage) out.push(el("p", { class: "muted", text: usageText(seam.usage) }));
  out.push(el("h2", { text: "Timeline" }), timeline(taskId));
  out.push(el("h2", { text: "History" }));
  for (const message of task.history || []) {
    out.push(el(
      "div",
      { class: "msg" },
      el("div", { class: "role", text: message.role === "ROLE_USER" ? "user" : "agent" }),
      el("pre", { text: (message.parts || []).map(partText).join("\n") }),
    ));
  }
  if (task.status.message) {
    out.push(el("div", { class: "msg" }, el("div", { class: "role", text: "status" }),
      el("pre", { text: task.status.message.parts.map(partText).join("\n") })));
  }
  for (const artifact of task.artifacts || []) {
    out.push(el("div", { class: "msg" }, el("div", { class: "role", text: "artifact " + (artifact.name || "") }),
      el("pre", { text: artifact.parts.map(partText).join("\n") })));
  }
  detail.replaceChildren(...out);
}

setInterval(() => {
  tickClocks();
  refreshTimeline();
}, 1000);
setInterval(refreshList, 5000);

connect();
`;
