/**
 * The run inspector's view module, as a string, served as
 * `{base}/_inspect/view.js`: the tasks and runs the page heard of and how
 * they are drawn (the tree, the pending requests with their buttons, usage
 * and what a budget has left, the clocks). Everything is set with
 * `textContent` or attributes: nothing a child wrote is parsed as HTML.
 * Written without backticks and dollar-brace so it sits in a raw template.
 */
export const INSPECTOR_VIEW: string = String.raw`
// What the page heard of: tasks and runs by id, and what it keeps for itself.
export const state = {
  tasks: new Map(),
  runs: new Map(),
  // The principal's tasks as the store lists them (every instance's): id -> listed task.
  listed: new Map(),
  limits: { maxTextPerRun: 4096 },
  notices: new Map(),
  drafts: new Map(),
  selected: undefined,
  // The runs the selected task's detail answer gave (the page may not have heard of them).
  detailRuns: [],
  skew: 0,
};

/** Server time: elapsed times are counted from the server's timestamps. */
export const now = () => Date.now() + state.skew;

export const $ = (selector, from) => (from || document).querySelector(selector);
const short = (id) => (id.length > 12 ? id.slice(0, 8) + "…" : id);
export const stateWord = (s) => String(s).replace(/^TASK_STATE_/, "").toLowerCase();
const ENDED = new Set(["completed", "canceled", "failed", "rejected"]);

export function el(tag, attrs, ...children) {
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

export function usageText(usage) {
  if (!usage || !usage.total) return "";
  const t = usage.total;
  return "tokens " + t.inputTokens + " in / " + t.outputTokens + " out · " + t.modelCalls +
    " model calls · " + t.toolCalls + " tool calls" + (usage.partial ? " (partial)" : "");
}

// What the task's budget has left: exact once its run ended (the run's usage
// covers its subtree); while it runs, what the page can count (tool calls and
// runs below, elapsed time); tokens are known at the end.
function budgetLeft(budget, root, below) {
  if (!budget || typeof budget !== "object") return "";
  const total = root && root.usage && root.usage.total;
  const used = {
    tokens: total ? total.inputTokens + total.outputTokens : undefined,
    toolCalls: total
      ? total.toolCalls
      : [root, ...below].reduce((n, r) => n + ((r && r.toolCalls) || 0), 0),
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

export function renderAll() {
  const list = $("#tasks");
  list.replaceChildren();
  const tasks = [...state.tasks.values()].sort((a, b) => b.createdAt - a.createdAt);
  const others = elsewhere();
  if (tasks.length === 0 && others.length === 0) {
    list.append(el("p", { id: "empty", text: "No tasks yet." }));
  }
  for (const task of tasks) list.append(taskCard(task));
  if (others.length) {
    const box = el("section", { id: "others", "aria-label": "tasks this instance does not run" });
    box.append(el("h2", { text: "Not run by this instance" }));
    for (const task of others) box.append(listedCard(task));
    list.append(box);
  }
  summary();
}

/** The listed tasks this page has no live detail of (another instance runs them, or they ended). */
function elsewhere() {
  return [...state.listed.values()].filter((t) => !state.tasks.has(t.id));
}

function listedCard(task) {
  const word = stateWord(task.state);
  const note = task.where === "elsewhere"
    ? "runs on another instance: its live runs are on that instance's page; click for its history"
    : "ended, from the store; click for its history";
  const head = el(
    "div",
    { class: "task-head", "data-action": "select", title: "show this task's history" },
    el("span", { class: "badge", "data-kind": word, text: word }),
    el("span", { class: "id", text: short(task.id) }),
    task.provider ? el("span", { text: task.provider }) : undefined,
    task.title ? el("span", { class: "title", text: task.title }) : undefined,
  );
  return el(
    "article",
    { class: "task listed", "data-task-id": task.id, "data-state": word, "data-where": task.where },
    head,
    el("p", { class: "muted where", text: note }),
  );
}

export function renderTask(taskId) {
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
  const others = elsewhere();
  const away = others.filter((t) => t.where === "elsewhere").length;
  $("#summary").textContent = tasks.length + others.length + " tasks · " + (running + away) +
    " not ended" + (away ? " (" + away + " on other instances)" : "");
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
    titleOf(task) ? el("span", { class: "title", text: titleOf(task) }) : undefined,
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
  const runs = [...state.runs.values()].filter((r) => r.taskId === task.id);
  const root = runs.find((r) => r.runId === task.rootRunId);
  const left = budgetLeft(task.budget, root, runs.filter((r) => r !== root));
  if (left) card.append(el("p", { class: "muted budget", text: left }));
  card.append(el("div", { class: "notice", role: "alert", text: state.notices.get(task.id) || "" }));
  for (const input of task.inputs) card.append(inputBox(input));
  card.append(runTree(task));
  if (task.runsDropped > 0) {
    card.append(el("p", { class: "muted", text: task.runsDropped + " more runs not kept" }));
  }
  return card;
}

/** A task's label (its root run's) or the first words of its first prompt. */
function titleOf(task) {
  const root = state.runs.get(task.rootRunId);
  return (root && root.label) || task.title || (state.listed.get(task.id) || {}).title || "";
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

/**
 * Each run's children, by its id, in the order they started; "" holds the
 * runs whose parent is not among them (the top).
 */
function childrenOf(runs) {
  const ids = new Set(runs.map((r) => r.runId));
  const children = new Map();
  for (const run of [...runs].sort((a, b) => a.startedAt - b.startedAt)) {
    const parent = run.parentRunId && ids.has(run.parentRunId) ? run.parentRunId : "";
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(run);
  }
  return children;
}

function runTree(task) {
  const children = childrenOf([...state.runs.values()].filter((r) => r.taskId === task.id));
  const waiting = new Set(task.inputs.map((i) => i.runId));
  const below = (id) =>
    (children.get(id) || []).flatMap((child) => [child, ...below(child.runId)]);
  const list = (parent) => {
    const ul = el("ul", { class: "runs" });
    for (const run of children.get(parent) || []) {
      const left = run.budget ? budgetLeft(run.budget, run, below(run.runId)) : "";
      ul.append(runItem(run, waiting.has(run.runId), list(run.runId), left));
    }
    return ul;
  };
  return list("");
}

function runItem(run, waiting, below, left) {
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
    run.remote
      ? el("span", {
        class: "hop remote",
        text: "runs on " + (run.remote.agentName || "a remote agent") +
          (run.remote.url ? " at " + run.remote.url : "") + " (task " + short(run.remote.taskId) + ")",
      })
      : undefined,
    run.toolCalls
      ? el("span", { class: "muted", text: run.toolCalls + " tool calls (last: " + run.lastTool + ")" })
      : undefined,
    run.usage ? el("span", { class: "muted usage", text: usageText(run.usage) }) : undefined,
    left ? el("span", { class: "muted budget", text: left }) : undefined,
    run.error ? el("span", { class: "notice", text: run.error.code + ": " + run.error.message }) : undefined,
  );
  const text = el("pre", { class: "text", text: run.text || "" });
  return el("li", { class: "run", "data-run-id": run.runId, "data-status": run.status }, head, text, below);
}

export function partText(part) {
  if (typeof part.text === "string") return part.text;
  if (part.data !== undefined) return JSON.stringify(part.data, null, 2);
  if (part.url) return part.url;
  return JSON.stringify(part);
}

export function notice(taskId, text) {
  if (text) state.notices.set(taskId, text);
  else state.notices.delete(taskId);
  const box = $('[data-task-id="' + CSS.escape(taskId) + '"] > .notice');
  if (box) box.textContent = text || "";
}

/** Count the running clocks on. */
export function tickClocks() {
  for (const node of document.querySelectorAll(".elapsed")) {
    if (node.dataset.until) continue;
    node.textContent = elapsed(Number(node.dataset.since));
  }
}

/**
 * A task's runs as a waterfall: a row per run in tree order, indented by its
 * depth, a bar from its start to its end (or now) on the task's time axis,
 * its waits for input marked on the bar, then its duration, state and tokens.
 */
export function timeline(taskId) {
  const byId = new Map();
  for (const run of state.detailRuns || []) byId.set(run.runId, run);
  for (const run of state.runs.values()) if (run.taskId === taskId) byId.set(run.runId, run);
  const runs = [...byId.values()].filter((r) => r.taskId === taskId);
  const box = el("div", { class: "timeline", "data-task-id": taskId, "aria-label": "timeline" });
  if (runs.length === 0) {
    box.append(el("p", {
      class: "muted",
      text: "No runs of this task here: another instance runs it, or they are no longer kept.",
    }));
    return box;
  }
  const rows = treeOrder(runs);
  const start = Math.min(...runs.map((r) => r.startedAt));
  const end = Math.max(...runs.map((r) => r.endedAt || now()));
  const span = Math.max(1, end - start);
  const at = (t) => (Math.min(end, Math.max(start, t)) - start) / span * 100;
  // A bar from..to in % of the task's span: at least 0.5% wide, never past the end.
  const place = (node, from, to) => {
    const width = Math.max(0.5, at(to) - at(from));
    node.style.left = Math.min(at(from), 100 - width).toFixed(2) + "%";
    node.style.width = width.toFixed(2) + "%";
  };
  for (const [run, level] of rows) {
    const until = run.endedAt || now();
    const track = el("div", { class: "tl-track" });
    const bar = el("div", { class: "tl-bar", "data-status": run.status });
    place(bar, run.startedAt, until);
    track.append(bar);
    let waited = 0;
    for (const wait of run.waits || []) {
      const to = wait.until || run.endedAt || now();
      waited += Math.max(0, to - wait.from);
      const mark = el("div", { class: "tl-wait", title: "waited for input " + elapsed(wait.from, to) });
      place(mark, wait.from, to);
      track.append(mark);
    }
    const total = run.usage && run.usage.total;
    const info = [
      elapsed(run.startedAt, until),
      run.status,
      waited ? "waited " + elapsed(0, waited) + " for input" : "",
      total ? "tokens " + total.inputTokens + " in / " + total.outputTokens + " out" : "",
    ].filter(Boolean).join(" · ");
    const name = el("div", {
      class: "tl-name",
      text: (run.provider || "?") + (run.label ? " · " + run.label : ""),
      title: "depth " + (run.depth === undefined ? level : run.depth) + " · run " + run.runId,
    });
    name.style.paddingLeft = level * 0.9 + "rem";
    box.append(el(
      "div",
      { class: "tl-row", "data-run-id": run.runId, "data-depth": level, "data-status": run.status },
      name,
      track,
      el("div", { class: "tl-info muted", text: info }),
    ));
  }
  box.append(el("div", { class: "tl-axis muted", text: "0 … " + elapsed(start, end) }));
  return box;
}

/** Runs in tree order (each after its parent, siblings by start), with their level below the top. */
function treeOrder(runs) {
  const children = childrenOf(runs);
  const rows = [];
  const walk = (parent, level) => {
    for (const run of children.get(parent) || []) {
      rows.push([run, level]);
      walk(run.runId, level + 1);
    }
  };
  walk("", 0);
  return rows;
}

/** Draw the selected task's timeline again (its runs changed, or time went on). */
export function refreshTimeline() {
  const old = $("#detail .timeline");
  if (old && old.dataset.taskId === state.selected) old.replaceWith(timeline(state.selected));
}
`;
