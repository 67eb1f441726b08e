// doomagent watch: plain JS, no build step. The server pushes a version number (server-sent events)
// whenever a watched file changes; the page then fetches the JSON it shows.

function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v; else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(c ?? ""));
  return node;
}

async function getJSON(url) {
  const response = await fetch(url, { cache: "no-store" });
  if (!response.ok) throw new Error(url + ": " + response.status);
  return response.json();
}

function onChange(callback) {
  callback();
  const events = new EventSource("/api/events");
  events.onmessage = () => callback();
  events.onerror = () => setTimeout(callback, 2000);
}

// Maps by key: an eval over several maps holds trials of each, and every trial is drawn on its own.
const mapCache = {};
async function loadMap(trialId, key) {
  const k = key ?? (trialId ? "trial:" + trialId : "");
  if (!mapCache[k]) mapCache[k] = await getJSON(trialId ? "/api/map?trial=" + encodeURIComponent(trialId) : "/api/map");
  return mapCache[k];
}

// Draw the map's lines, the path and the player; lines touching `room` are highlighted.
function drawMap(canvas, map, path, room) {
  const ratio = window.devicePixelRatio || 1;
  const w = canvas.clientWidth * ratio, h = canvas.clientHeight * ratio;
  canvas.width = w; canvas.height = h;
  const ctx = canvas.getContext("2d");
  const [x0, y0, x1, y1] = map.bounds;
  const scale = Math.min((w - 8) / (x1 - x0), (h - 8) / (y1 - y0));
  const ox = (w - (x1 - x0) * scale) / 2, oy = (h - (y1 - y0) * scale) / 2;
  const px = (x) => ox + (x - x0) * scale, py = (y) => h - oy - (y - y0) * scale;
  for (const line of map.lines) {
    const mine = room && line.rooms.includes(room);
    ctx.strokeStyle = mine ? "#fbbc04" : line.special ? "#8ab4f8" : line.wall ? "#9aa0a6" : "#3c4043";
    ctx.lineWidth = (mine ? 2 : 1) * ratio;
    ctx.beginPath(); ctx.moveTo(px(line.a[0]), py(line.a[1])); ctx.lineTo(px(line.b[0]), py(line.b[1])); ctx.stroke();
  }
  if (path && path.length) {
    ctx.strokeStyle = "#34a853"; ctx.lineWidth = 2 * ratio; ctx.beginPath();
    path.forEach(([x, y], i) => (i ? ctx.lineTo(px(x), py(y)) : ctx.moveTo(px(x), py(y))));
    ctx.stroke();
    const [x, y] = path[path.length - 1];
    ctx.fillStyle = "#ea4335"; ctx.beginPath(); ctx.arc(px(x), py(y), 4 * ratio, 0, 7); ctx.fill();
  }
}

function badge(status) { return el("span", { class: "badge " + status }, status); }

// -- the overview ------------------------------------------------------------------------------

async function overview() {
  const map = await loadMap();
  const data = await getJSON("/api/overview");
  const rooms = map.rooms.filter((r) => r.route).map((r) => r.label);
  const table = el("table", {},
    el("tr", {}, ...["recipe × model", "trials", "playing", ...rooms.map((r) => "PMAT " + r), "deaths", "finishes", "cost $"]
      .map((t) => el("th", {}, t))));
  for (const row of data.table) {
    table.append(el("tr", {}, el("td", {}, row.group), el("td", {}, row.trials), el("td", {}, row.playing),
      ...rooms.map((r) => el("td", {}, row.pmat[r] == null ? "∞" : row.pmat[r])),
      el("td", {}, row.deaths), el("td", {}, row.finishes), el("td", {}, row.cost.toFixed(4))));
  }
  document.getElementById("table").replaceChildren(table);
  const cards = document.getElementById("cards");
  cards.replaceChildren();
  for (const c of data.cards) {
    const canvas = el("canvas");
    const card = el("a", { class: "card", href: "/trial/" + c.id, "data-trial": c.id },
      el("div", { class: "title" }, el("span", {}, (c.group ? c.group + " " : "") + "#" + c.trial), badge(c.status)),
      el("div", {}, `frame ${c.frame}${c.max_frames ? " / " + c.max_frames : ""} · room ${c.room ?? "-"} · health ${c.health ?? "-"}`),
      el("div", { class: "muted" }, `${c.decisions} decisions · last ${c.action ?? "-"} · ${c.calls} calls · $${c.cost.toFixed(4)}`),
      canvas);
    cards.append(card);
    drawMap(canvas, await loadMap(c.id, c.map), c.path, c.room);
  }
}

// -- one trial ---------------------------------------------------------------------------------

let steps = null;
let scrubbing = false;

async function trial(id) {
  const map = await loadMap(id);
  const t = await getJSON("/api/trial/" + id);
  document.getElementById("title").textContent = (t.group ? t.group + " " : "") + "trial " + t.trial;
  document.getElementById("status").replaceChildren(badge(t.status));
  const hud = t.hud || {};
  document.getElementById("hud").replaceChildren(
    el("span", {}, "frame " + t.frame), el("span", { id: "room" }, "room " + (t.room ?? "-")),
    el("span", {}, "health " + (hud.health ?? "-")), el("span", {}, "armor " + (hud.armor ?? "-")),
    el("span", {}, "weapon " + (hud.weapon ?? "-") + " (" + (hud.weapon_ammo ?? "-") + ")"),
    el("span", {}, "decisions " + t.decisions));
  if (!scrubbing) {
    drawMap(document.getElementById("map"), map, t.path, t.room);
    if (t.has_screen) document.getElementById("screen").src = "/api/screen/" + id + "?v=" + Date.now();
  }
  document.getElementById("plan").replaceChildren(...(t.plan.length ? t.plan : ["(none yet)"]).map((p) => el("li", {}, p)));
  document.getElementById("experts").replaceChildren(...(t.expert_moves.length ? t.expert_moves : ["(none)"]).map((p) => el("li", {}, p)));
  const last = el("table", { id: "last" }, el("tr", {}, ...["#", "frame", "room", "action", "reason"].map((h) => el("th", {}, h))));
  for (const s of t.last.slice().reverse()) {
    last.append(el("tr", { class: s.wait ? "wait" : "" }, el("td", {}, s.decision), el("td", {}, s.frame), el("td", {}, s.room ?? "-"),
      el("td", { class: "action" }, s.action + (s.wait ? " (WAIT fallback)" : "")), el("td", {}, s.reason ?? "")));
  }
  document.getElementById("actions").replaceChildren(last);
  const usage = el("table", {}, el("tr", {}, ...["role", "calls", "errors", "tokens", "cost $", "mean latency s"].map((h) => el("th", {}, h))));
  for (const [role, u] of Object.entries(t.usage)) {
    usage.append(el("tr", {}, el("td", {}, role), el("td", {}, u.calls), el("td", {}, u.errors), el("td", {}, u.tokens),
      el("td", {}, u.cost.toFixed(4)), el("td", {}, u.mean_latency_s ?? "")));
  }
  document.getElementById("usage").replaceChildren(usage);
  const scrubber = document.getElementById("scrubber");
  if (t.has_demo && t.summary && !steps) {
    // Shown only once the steps are here and the slider answers, so that it never ignores a move.
    steps = await getJSON("/api/steps/" + id);
    const input = document.getElementById("decision");
    input.max = steps.length - 1;
    input.oninput = () => scrub(id, map, Number(input.value));
    scrubber.hidden = false;
  }
}

function scrub(id, map, k) {
  scrubbing = true;
  const s = steps[k];
  document.getElementById("screen").src = "/api/frame/" + id + "?decision=" + k;
  document.getElementById("chosen").replaceChildren(
    el("b", { id: "chosen-action" }, s.action), " at decision " + k + ", frame " + s.frame + ", room " + (s.room ?? "-") + ": ",
    el("span", { class: s.parse_ok === false ? "wait" : "" }, s.reason ?? ""));
  drawMap(document.getElementById("map"), map, steps.slice(0, k + 1).map((x) => [x.x, x.y]), s.room);
}
