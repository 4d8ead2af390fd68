/**
 * The run inspector's page module, as a string (edge-safe: no file reads).
 * Plain browser JavaScript, no framework and no build step: it reads the
 * gateway's inspector event stream with `fetch` (so it can send the bearer
 * token, which `EventSource` cannot), keeps the tasks and runs it heard of,
 * and renders them with `textContent` only (nothing a child wrote is ever
 * parsed as HTML).
 *
 * Written without backticks and dollar-brace so it sits in a raw template.
 */
export const INSPECTOR_MODULE: string = String.raw`
const root = document.documentElement;
const base = root.dataset.base;
const TOKEN_KEY = "seam-inspector-token:" + base;
const state = {
  tasks: new Map(),
  runs: new Map(),
  limits: { maxTextPerRun: 4096 },
  notices: new Map(),
  drafts: new Map(),
  selected: undefined,
  skew: 0,
};
// Server time, as elapsed times are counted from the server's timestamps.
const now = () => Date.now() + state.skew;

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

const $ = (selector, from) => (from || document).querySelector(selector);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const short = (id) => (id.length > 12 ? id.slice(0, 8) + "…" : id);
const stateWord = (s) => String(s).replace(/^TASK_STATE_/, "").toLowerCase();
const ENDED = new Set(["completed", "canceled", "failed", "rejected"]);

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

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

function clip(text) {
  const max = state.limits.maxTextPerRun;
  return text.length > max ? text.slice(text.length - max) : text;
}

function apply(event) {
  switch (event.type) {
    case "snapshot":
      state.tasks.clear();
      state.runs.clear();
      state.limits = event.limits || state.limits;
      if (typeof event.now === "number") state.skew = event.now - Date.now();
      for (const task of event.tasks) state.tasks.set(task.id, task);
      for (const run of event.runs) state.runs.set(run.runId, run);
      renderAll();
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
      break;
    }
    case "text": {
      let run = state.runs.get(event.runId);
      if (!run) {
        run = { runId: event.runId, taskId: event.taskId, status: "running", text: "", startedAt: now() };
        state.runs.set(event.runId, run);
      }
      run.text = clip(run.text + event.text);
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

function elapsed(since, until) {
  const ms = Math.max(0, (until || now()) - since);
  if (ms < 1000) return ms + " ms";
  if (ms < 60000) return (ms / 1000).toFixed(1) + " s";
  return Math.floor(ms / 60000) + " min " + Math.floor((ms % 60000) / 1000) + " s";
}

function clock(since, until) {
  return el("span", {
    class: "elapsed muted",
    "data-since": since,
    "data-until": until,
    text: elapsed(since, until),
  });
}

function usageText(usage) {
  if (!usage || !usage.total) return "";
  const t = usage.total;
  return "tokens " + t.inputTokens + " in / " + t.outputTokens + " out · " + t.modelCalls +
    " model calls · " + t.toolCalls + " tool calls" + (usage.partial ? " (partial)" : "");
}

function budgetText(budget) {
  if (!budget || typeof budget !== "object") return "";
  const left = budget.left || budget.remaining || budget;
  const parts = Object.entries(left).filter(([, v]) => typeof v === "number")
    .map(([k, v]) => k + " " + v);
  return parts.length ? "budget left: " + parts.join(", ") : "";
}

// What the task's budget has left: exact once its run ended (the run's usage
// covers its subtree); while it runs, what the page can count (tool calls and
// runs below, elapsed time); tokens are known at the end.
function budgetLeft(task, runs) {
  const budget = task.budget;
  if (!budget || typeof budget !== "object") return "";
  const root = runs.find((r) => r.runId === task.rootRunId);
  const total = root && root.usage && root.usage.total;
  const below = runs.filter((r) => r !== root);
  const used = {
    tokens: total ? total.inputTokens + total.outputTokens : undefined,
    toolCalls: total ? total.toolCalls : runs.reduce((n, r) => n + (r.toolCalls || 0), 0),
    wallTimeMs: total ? total.wallTimeMs : root ? now() - root.startedAt : undefined,
    children: below.length,
    liveChildren: below.filter((r) => r.status === "running").length,
  };
  const parts = [];
  for (const [limit, max] of Object.entries(budget)) {
    if (typeof max !== "number") continue;
    const spent = used[limit];
    const name = limit === "wallTimeMs" ? "ms" : limit;
    if (limit === "liveChildren") parts.push(name + " " + spent + " of " + max + " live");
    else if (spent === undefined) parts.push(name + " ? of " + max + " (known when the run ends)");
    else parts.push(name + " " + Math.max(0, max - Math.round(spent)) + " of " + max);
  }
  return parts.length ? "budget left: " + parts.join(" · ") : "";
}

function renderAll() {
  const list = $("#tasks");
  list.replaceChildren();
  const tasks = [...state.tasks.values()].sort((a, b) => b.createdAt - a.createdAt);
  if (tasks.length === 0) list.append(el("p", { id: "empty", text: "No tasks yet." }));
  for (const task of tasks) list.append(taskCard(task));
  summary();
}

function renderTask(taskId) {
  const task = state.tasks.get(taskId);
  if (!task) return;
  const card = taskCard(task);
  const old = $('[data-task-id="' + CSS.escape(taskId) + '"]');
  if (old) old.replaceWith(card);
  else {
    $("#empty")?.remove();
    $("#tasks").prepend(card);
  }
  summary();
}

function summary() {
  const tasks = [...state.tasks.values()];
  const running = tasks.filter((t) => !ENDED.has(stateWord(t.state))).length;
  $("#summary").textContent = tasks.length + " tasks · " + running + " not ended";
}

function taskCard(task) {
  const word = stateWord(task.state);
  const ended = ENDED.has(word);
  const head = el(
    "div",
    { class: "task-head", "data-action": "select", title: "show this task's history" },
    el("span", { class: "badge", "data-kind": word, text: word }),
    el("span", { class: "id", text: short(task.id) }),
    el("span", { text: task.provider }),
    clock(task.createdAt, ended ? task.updatedAt : undefined),
    task.from
      ? el("span", {
        class: "hop",
        text: "hop: called over A2A from " +
          (task.from.path.length ? "run " + task.from.path[task.from.path.length - 1] : "a remote caller") +
          " (caller depth " + task.from.depth + ")",
      })
      : undefined,
    ended ? undefined : el("button", { type: "button", "data-action": "cancel", text: "Cancel" }),
  );
  const card = el("article", { class: "task", "data-task-id": task.id, "data-state": word }, head);
  if (task.statusText && task.inputs.length === 0) {
    card.append(el("p", { class: "status-text", text: task.statusText }));
  }
  const left = budgetLeft(task, [...state.runs.values()].filter((r) => r.taskId === task.id));
  if (left) card.append(el("p", { class: "muted budget", text: left }));
  card.append(el("div", { class: "notice", role: "alert", text: state.notices.get(task.id) || "" }));
  for (const input of task.inputs) card.append(inputBox(input));
  card.append(runTree(task));
  if (task.runsDropped > 0) {
    card.append(el("p", { class: "muted", text: task.runsDropped + " more runs not kept" }));
  }
  return card;
}

function inputBox(input) {
  const box = el(
    "div",
    { class: "input", "data-request-id": input.id, "data-run-id-asking": input.runId },
    el("div", { text: input.kind + ": " + input.message }),
    input.tool ? el("div", { class: "muted", text: "tool call: " + input.tool }) : undefined,
  );
  const actions = el("div", { class: "actions" });
  if (input.options) {
    for (const option of input.options) {
      actions.append(el("button", {
        type: "button",
        "data-action": "option",
        "data-option-id": option.id,
        "data-kind": option.kind,
        text: option.label,
      }));
    }
  } else {
    const field = el("input", {
      type: input.kind === "authentication" ? "password" : "text",
      "aria-label": "answer",
      placeholder: "your answer",
    });
    field.value = state.drafts.get(input.id) || "";
    field.oninput = () => state.drafts.set(input.id, field.value);
    actions.append(field, el("button", { type: "button", "data-action": "text", text: "Answer" }));
    actions.append(el("button", { type: "button", "data-action": "refuse", text: "Refuse" }));
  }
  box.append(actions);
  return box;
}

function runTree(task) {
  const runs = [...state.runs.values()].filter((r) => r.taskId === task.id);
  const ids = new Set(runs.map((r) => r.runId));
  const children = new Map();
  for (const run of runs) {
    const parent = run.parentRunId && ids.has(run.parentRunId) ? run.parentRunId : "";
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(run);
  }
  const waiting = new Set(task.inputs.map((i) => i.runId));
  const list = (parent) => {
    const ul = el("ul", { class: "runs" });
    for (const run of (children.get(parent) || []).sort((a, b) => a.startedAt - b.startedAt)) {
      ul.append(runItem(run, waiting.has(run.runId), list(run.runId)));
    }
    return ul;
  };
  return list("");
}

function runItem(run, waiting, below) {
  const status = waiting ? "waiting for an answer" : run.status;
  const head = el(
    "div",
    { class: "run-head" },
    el("span", { class: "provider", text: run.provider || "?" }),
    el("span", { class: "muted", text: run.depth === undefined ? "" : "depth " + run.depth }),
    run.label ? el("span", { text: run.label }) : undefined,
    el("span", { class: "badge", "data-kind": waiting ? "input_required" : run.status, text: status }),
    clock(run.startedAt, run.endedAt),
    el("span", { class: "muted id", text: short(run.runId) }),
    run.toolCalls
      ? el("span", { class: "muted", text: run.toolCalls + " tool calls (last: " + run.lastTool + ")" })
      : undefined,
    run.usage ? el("span", { class: "muted usage", text: usageText(run.usage) }) : undefined,
    run.budget ? el("span", { class: "muted budget", text: budgetText(run.budget) }) : undefined,
    run.error ? el("span", { class: "notice", text: run.error.code + ": " + run.error.message }) : undefined,
  );
  const text = el("pre", { class: "text", text: run.text || "" });
  return el("li", { class: "run", "data-run-id": run.runId, "data-status": run.status }, head, text, below);
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

function notice(taskId, text) {
  if (text) state.notices.set(taskId, text);
  else state.notices.delete(taskId);
  const box = $('[data-task-id="' + CSS.escape(taskId) + '"] > .notice');
  if (box) box.textContent = text || "";
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

function partText(part) {
  if (typeof part.text === "string") return part.text;
  if (part.data !== undefined) return JSON.stringify(part.data, null, 2);
  if (part.url) return part.url;
  return JSON.stringify(part);
}

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
  const seam = Object.values(task.metadata || {})[0] || {};
  const out = [
    el("h2", { text: "Task " + task.id }),
    el("p", { class: "muted", text: stateWord(task.status.state) + " · " + (seam.provider || "") + " · context " + task.contextId }),
  ];
  if (seam.usage) out.push(el("p", { class: "muted", text: usageText(seam.usage) }));
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
  for (const node of document.querySelectorAll(".elapsed")) {
    if (node.dataset.until) continue;
    node.textContent = elapsed(Number(node.dataset.since));
  }
}, 1000);

connect();
`;
