"use strict";
// The referee replay viewer (referee/replay/html.py writes its pages; docs/replays.md). The page
// holds the match data in #data: JSON, gzip-compressed, base64. A whole-match page holds the
// whole match's view and each seat's (D.views: frames as deltas of the whole match's, `expand`);
// a seat's page, that seat's view only.
// The page knows no game: every card's face comes from the game's describer (D.faces, by code;
// a card without one is drawn plain), with the symbols and CSS it uses (D.symbols, D.css).
const $ = (id) => document.getElementById(id);
const SVG = "http://www.w3.org/2000/svg", WORD = /\w+/g;
// D: the page's data; VIEWS: its views ({seat, frames, deals}, a seat's expanded when first
// shown); V: the view shown, F its frames; cur: the step shown
let D = null, VIEWS = [], V = null, F = [], N = 0, cur = 0, timer = null, hashTimer = null;

async function load() {
  // the data: base64 of gzip of JSON, read with the browser's own gzip (DecompressionStream)
  const text = $("data").textContent.replace(/\s+/g, "");
  const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}

function voice(seat) {
  // how a seat's view words the whole match's story lines: its own name followed by " (you)"
  if (seat === null) return (text) => text;
  const plain = "[" + seat + "] " + D.names[seat], own = plain + " (you)";
  return (text) => text.split(plain).join(own);
}

function expand(deltas, bases, say) {
  // a view's frames from their compact form (referee/replay/html.py, _delta): each frame as what
  // changes against its base (the whole match's frame of the step, in a seat's view) and the
  // view's previous frame
  const out = [];
  deltas.forEach((delta, k) => {
    const base = bases[k] || {}, prev = out.length ? out[out.length - 1] : {}, f = {};
    const gone = delta["-"] || [];
    Object.keys(base).forEach((key) => { if (!gone.includes(key)) f[key] = base[key]; });
    (delta["="] || []).forEach((key) => { f[key] = prev[key]; });
    Object.entries(delta).forEach(([key, v]) => {
      if (key === "=" || key === "-") return;
      if ((key === "h" || key === "c") && v !== null && typeof v === "object" && !Array.isArray(v)) {
        const list = (own(base, key) ? base[key] : prev[key]).slice();
        Object.entries(v).forEach(([i, x]) => { list[+i] = x; });
        v = list;
      } else if (key === "log") {
        v = v.map((line) => typeof line !== "number" ? line
          : say(line === -1 ? who(base.who) + " " + base.act : base.log[line]));
      }
      f[key] = v;
    });
    out.push(f);
  });
  return out;
}

function label(f) {
  return "deal " + f.d + (f.m === undefined ? " dealt" : " · move " + f.m + (f.e ? " · end" : ""));
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
}
function use(id, cls) {
  const s = document.createElementNS(SVG, "svg");
  s.setAttribute("class", cls); s.setAttribute("viewBox", "0 0 100 100");
  const u = document.createElementNS(SVG, "use");
  u.setAttribute("href", "#" + id); s.appendChild(u); return s;
}
function shape(spec) {
  // [tag, attributes, children]: an SVG element built from data, never parsed as markup
  const e = document.createElementNS(SVG, spec[0]);
  Object.entries(spec[1] || {}).forEach(([k, v]) => e.setAttribute(k, v));
  (spec[2] || []).forEach((child) => e.appendChild(shape(child)));
  return e;
}
function pictures() {
  // the game's symbols and CSS, from its describer
  const defs = $("symbols");
  Object.entries(D.symbols).forEach(([id, s]) => {
    const sym = document.createElementNS(SVG, "symbol"); sym.id = id; sym.setAttribute("viewBox", s.v);
    s.s.forEach((spec) => sym.appendChild(shape(spec))); defs.appendChild(sym);
  });
  if (D.css) document.head.appendChild(el("style", null, D.css));
}
function own(o, k) { return Object.prototype.hasOwnProperty.call(o, k); }
function face(code) { return own(D.faces, code) ? D.faces[code] : null; }
function card(code, small) {
  const c = el("div", "card" + (small ? " sm" : ""));
  if (code === "?" || code === null) { c.classList.add("back"); c.title = "hidden"; return c; }
  c.dataset.code = code;
  const f = face(code) || {c: ["plain"], r: code};
  c.title = f.t || code;
  (f.c || []).forEach((k) => c.classList.add(k));
  c.appendChild(el("span", "rk", f.r === undefined ? code : f.r));
  if (f.f) c.appendChild(el("span", "fig", f.f));
  if (f.p) c.appendChild(use(f.p, "pip"));
  if (f.b) c.appendChild(use(f.b, "big"));
  if (f.m) c.appendChild(el("span", "big"));
  return c;
}
function chip(code) {
  // a card inside a line of text: its code on the suit's colour
  const c = el("span", "chip"); c.dataset.code = code;
  const h = (face(code) || {}).h || {};
  (h.c || []).forEach((k) => c.classList.add(k));
  c.appendChild(document.createTextNode(h.r === undefined ? code : h.r));
  if (h.p) c.appendChild(use(h.p, "cp"));
  return c;
}
function richText(parent, text) {
  // the cards of a story line (the words the game calls cards) become chips; everything else
  // stays text (never HTML)
  let last = 0; WORD.lastIndex = 0; let m;
  while ((m = WORD.exec(text))) {
    if (!face(m[0])) continue;
    if (m.index > last) parent.appendChild(document.createTextNode(text.slice(last, m.index)));
    parent.appendChild(chip(m[0])); last = m.index + m[0].length;
  }
  if (last < text.length) parent.appendChild(document.createTextNode(text.slice(last)));
  return parent;
}
function who(s) { return s === null || s === undefined ? "" : "[" + s + "] " + D.names[s]; }

function seatBoxes() {
  // the seats around the table, the view's own seat at the bottom
  const table = $("table");
  table.querySelectorAll(".seat").forEach((b) => b.remove());
  const bottom = V.seat === null ? 0 : V.seat;
  for (let s = 0; s < N; s++) {
    const k = (s - bottom + N) % N, a = Math.PI / 2 + (2 * Math.PI * k) / N;
    const cos = Math.cos(a), sin = Math.sin(a), side = Math.abs(cos) > 0.5;
    const w = N <= 4 ? (side ? 25 : 46) : N <= 6 ? 27 : 21;
    const box = el("div", "seat" + (s === V.seat ? " viewer" : ""));
    // hug the rim: the box's own edge nearest the rim sits at 3% from it
    box.style.left = (50 + 47 * cos) + "%"; box.style.top = (50 + 46 * sin) + "%"; box.style.width = w + "%";
    box.style.transform = "translate(" + (-50 - 50 * cos) + "%, " + (-50 - 50 * sin) + "%)";
    box.style.setProperty("--k", String(k));  // a narrow window lists the seats in this order (viewer.css)
    const name = el("div", "who"); name.appendChild(el("span", null, D.names[s]));
    name.appendChild(el("span", "n", "seat " + s + (s === V.seat ? " · you" : "")));
    box.appendChild(name);
    const hand = el("div", "hand"); hand.id = "hand-" + s; box.appendChild(hand);
    box.id = "seat-" + s; table.appendChild(box);
  }
}

function dealStart(i) { let k = i; while (k > 0 && F[k - 1].d === F[i].d) k--; return k; }
function dealEnd(i) { let k = i; while (k < F.length - 1 && F[k + 1].d === F[i].d) k++; return k; }

function debugText(parent, text) {
  // a bot's debug text beside its move: text, never markup
  const box = parent.appendChild(el("div", "dbg"));
  box.appendChild(el("span", "dl", "debug"));
  box.appendChild(el("span", "dt", text));
  return box;
}

function renderNow(f, i) {
  const now = $("now"); now.textContent = "";
  now.appendChild(el("div", "label", "Step " + i + " of " + (F.length - 1) + " · " + label(f)));
  if (f.act) richText(now.appendChild(el("div", "act")), who(f.who) + " " + f.act);
  else if (f.who === null && !f.log.length) now.appendChild(el("div", "act", "another seat decided (nothing you were told)"));
  if (f.fault) now.appendChild(el("div", "fault", "FAULT " + f.fault));
  else if (f.fb) now.appendChild(el("div", "fb", "played by the fallback: this seat is disqualified"));
  (f.pen || []).forEach((p) => now.appendChild(el("div", "pen", "penalty " + who(p[0]) + ": " + penText(p))));
  if (f.dbg) debugText(now, f.dbg);
}

function penText(p) {
  // a conduct penalty [seat, why, ruling] (referee.game.penalty) in words: its reason and rule
  return p[1] + " (" + p[2] + ")";
}
function penMark(li, f) {
  // the log's mark of a step's conduct penalties, on its line
  li.classList.add("pen");
  f.pen.forEach((p) => li.appendChild(el("span", "penb",
    (p[0] !== f.who ? "penalty " + who(p[0]) + ": " : "penalty: ") + penText(p))));
  return li;
}

function renderTable(f) {
  for (let s = 0; s < N; s++) {
    const box = $("seat-" + s), hand = $("hand-" + s); hand.textContent = "";
    // a hand: its cards (null: a card this view does not see, face down), else as many backs as
    // its size (null: a size this view is not told)
    const cards = f.h[s], size = f.c[s];
    if (cards) cards.forEach((c) => hand.appendChild(card(c)));
    else for (let k = 0; k < (size || 0); k++) hand.appendChild(card("?"));
    hand.classList.toggle("empty", size === 0);
    box.classList.toggle("turn", f.turn === s);
    const name = box.querySelector(".who"); name.querySelectorAll(".tag,.dq,.part").forEach((t) => t.remove());
    if (f.turn === s) name.appendChild(el("span", "tag", "to act"));
    if (f.dq && f.dq.includes(s)) name.appendChild(el("span", "dq", "disqualified"));
    if (!cards || cards.includes(null)) {
      name.appendChild(el("span", "tag", size === null ? "cards not told" : size + " cards")).style.background = "#c9d6cf";
    }
    ((f.parts && f.parts[s]) || []).forEach((r) => name.appendChild(el("span", "part", r)));
  }
  const center = $("center"); center.textContent = "";
  f.ctr.forEach((z) => {
    const zone = el("div", "zone" + (f.done ? " done" : "") + (z.top ? " fan" : ""));
    zone.appendChild(el("div", "zl", z.l + (z.n > z.cards.length ? " (" + z.n + " cards, top " + z.cards.length + ")" : "")));
    const row = el("div", "zc");
    z.cards.forEach((c, k) => {
      const slot = el("div", "slot"); slot.appendChild(card(c));
      if (z.by[k] !== null && z.by[k] !== undefined) slot.appendChild(el("span", "by", "[" + z.by[k] + "] " + D.names[z.by[k]]));
      row.appendChild(slot);
    });
    if (!z.cards.length) row.appendChild(el("span", "zl", "empty"));
    zone.appendChild(row); center.appendChild(zone);
  });
}

function renderLog(i) {
  const log = $("log"); log.textContent = "";
  const start = dealStart(i);
  $("logtitle").textContent = "Deal " + F[i].d;
  for (let k = start; k <= i; k++) {
    const f = F[k], cls = k === i ? " cur" : "";
    if (f.act) {
      const li = richText(el("li", "mv" + (f.fault ? " flt" : f.fb ? " fb" : "") + cls),
        who(f.who) + " " + f.act + (f.fault ? "  — FAULT " + f.fault : f.fb ? "  — by the fallback" : ""));
      log.appendChild(f.pen ? penMark(li, f) : li);
      if (f.dbg) debugText(log.appendChild(el("li", "ev" + cls)), f.dbg);
    } else if (f.pen) {
      log.appendChild(penMark(el("li", "ev" + cls), f));  // a step this view saw only by its events
    }
    f.log.forEach((line) => log.appendChild(richText(el("li", "ev" + cls), line)));
  }
  log.scrollTop = log.scrollHeight;
}

function renderPiles(f) {
  const box = $("piles"); box.textContent = "";
  $("pilesp").style.display = f.piles.length ? "" : "none";
  f.piles.forEach((p) => {
    const d = el("div", "pile"); d.appendChild(el("div", "pl", p.l + " · " + p.n + (p.n === 1 ? " card" : " cards")));
    const row = el("div", "pc"); p.cards.forEach((c) => row.appendChild(card(c, true))); d.appendChild(row); box.appendChild(d);
  });
}

function fmt(v) { return v === null || v === undefined ? "" : typeof v === "number" ? String(Math.round(v * 100) / 100) : String(v); }

function renderScores(i) {
  const t = $("scores"); t.textContent = "";
  const cols = t.appendChild(el("colgroup")); cols.appendChild(el("col", "dc"));
  for (let s = 0; s < N; s++) cols.appendChild(el("col"));
  const head = t.appendChild(el("tr")); head.appendChild(el("th", null, "deal"));
  for (let s = 0; s < N; s++) head.appendChild(el("th", null, D.names[s])).title = "seat " + s + ": " + D.names[s];
  let notes = "";
  V.deals.forEach((d) => {
    if (d.frame > i) return;
    const tr = t.appendChild(el("tr", d.frame === i || d.frame === i - 1 ? "cur" : ""));
    tr.appendChild(el("td", null, String(d.deal)));
    for (let s = 0; s < N; s++) {
      const td = tr.appendChild(el("td"));
      const keys = Object.keys(d.cols);
      td.appendChild(document.createTextNode(fmt(d.cols[keys[0]][s])));
      const rest = keys.slice(1).map((k) => (own(D.prefixes, k) ? D.prefixes[k] : "") + fmt(d.cols[k][s])).join(" · ");
      if (rest) td.appendChild(el("span", "sub", rest));
    }
    notes = d.notes ? "Deal " + d.deal + ": " + d.notes : "";
  });
  if (D.result && i === F.length - 1) {
    const tr = t.appendChild(el("tr", "res")); tr.appendChild(el("td", null, "result"));
    for (let s = 0; s < N; s++) {
      const td = tr.appendChild(el("td", null, fmt(D.result.scores[s])));
      const bits = ["rank " + D.result.ranks[s]];
      if (D.result.faults[s]) bits.push(D.result.faults[s] + " fault" + (D.result.faults[s] > 1 ? "s" : ""));
      if (D.result.disqualified.includes(s)) bits.push("disqualified");
      td.appendChild(el("span", "sub", bits.join(" · ")));
    }
  }
  $("notes").textContent = notes;
  renderPenalties(i); renderResources();
}

function renderPenalties(i) {
  // each seat's conduct penalties up to step i, by reason and rule, with how many times
  const counts = new Map();
  for (let k = 0; k <= i; k++) {
    (F[k].pen || []).forEach((p) => { const key = JSON.stringify(p); counts.set(key, (counts.get(key) || 0) + 1); });
  }
  const box = $("pens"); box.textContent = "";
  box.style.display = counts.size ? "" : "none";
  if (!counts.size) return;
  box.appendChild(el("h3", null, "Penalties" + (i < F.length - 1 ? " so far" : "")));
  const list = box.appendChild(el("ul"));
  [...counts.entries()].map(([key, n]) => [JSON.parse(key), n]).sort((a, b) => a[0][0] - b[0][0])
    .forEach(([p, n]) => list.appendChild(el("li", null, who(p[0]) + ": " + penText(p) + " \u00d7" + n)));
}

const FIGURES = [["decisions", "moves"], ["ms_p50", "p50 ms"], ["ms_p90", "p90 ms"], ["ms_max", "max ms"],
  ["cpu_s", "CPU s"], ["peak_mb", "peak MB"], ["measured", "measured"]];
function renderResources() {
  // each seat's move times, CPU and memory over the match (the result's `resources`, when the
  // replay has them); a seat's view, its own seat's only
  const res = D.result && D.result.resources, t = $("res");
  $("resp").style.display = res ? "" : "none";
  t.textContent = "";
  if (!res) return;
  const cols = t.appendChild(el("colgroup")); cols.appendChild(el("col", "dc"));
  for (let s = 0; s < N; s++) cols.appendChild(el("col"));
  const head = t.appendChild(el("tr")); head.appendChild(el("th"));
  for (let s = 0; s < N; s++) head.appendChild(el("th", null, D.names[s])).title = "seat " + s + ": " + D.names[s];
  FIGURES.forEach(([key, name]) => {
    const tr = t.appendChild(el("tr")); tr.appendChild(el("td", null, name));
    for (let s = 0; s < N; s++) {
      const r = V.seat === null || V.seat === s ? res[s] : null;
      const v = r ? r[key] : null;
      tr.appendChild(el("td", key === "measured" && v === "approximate" ? "approx" : null,
        key === "measured" ? (v === "approximate" ? "approx." : v || "") : v === null || v === undefined ? (r ? "\u2013" : "")
          : key.startsWith("ms_") && v === 0 ? "<0.1" : fmt(v)));  // a time below its rounding, as play shows it
    }
  });
}

function renderObs(i) {
  // a seat's page: the observation it was sent with its last decision (a whole-match page's
  // seat views leave it out)
  const p = $("obsp");
  p.style.display = V.obs ? "" : "none";
  if (!V.obs) return;
  let k = i; while (k >= 0 && !F[k].obs) k--;
  $("obs").textContent = k >= 0 ? JSON.stringify(F[k].obs, null, 1) : "(no decision yet)";
}

function viewIndex() { return VIEWS.indexOf(V); }

function hash() {
  // #s=<step>, plus &v=<seat> in a seat's view
  return "#s=" + cur + (V.seat !== null ? "&v=" + V.seat : "");
}
function followHash() {
  // the address names the step (replaced, not pushed: Back leaves the page); a little later, so
  // that stepping fast writes it once
  clearTimeout(hashTimer);
  hashTimer = setTimeout(() => { try { history.replaceState(null, "", hash()); } catch (e) { /* not allowed here */ } }, 60);
}

function show(i) {
  cur = Math.max(0, Math.min(F.length - 1, i));
  const f = F[cur];
  document.body.dataset.frame = String(cur);
  document.body.dataset.deal = String(f.d);
  $("slider").value = String(cur);
  $("pos").textContent = (cur) + " / " + (F.length - 1);
  renderNow(f, cur); renderTable(f); renderLog(cur); renderPiles(f); renderScores(cur); renderObs(cur);
  followHash();
}
function step(d) { show(cur + d); }
function jumpDeal(d) {
  // the previous deal's first step (or this deal's, from inside it), the next deal's first step
  const start = dealStart(cur);
  if (d < 0) show(cur > start ? start : dealStart(Math.max(0, start - 1)));
  else show(Math.min(F.length - 1, dealEnd(cur) + 1));
}
function play() {
  const icon = $("playicon");
  if (timer) { clearInterval(timer); timer = null; icon.setAttribute("d", "M6 4v12l9-6z"); return; }
  icon.setAttribute("d", "M5 4h4v12H5zM11 4h4v12h-4z");
  timer = setInterval(() => { if (cur >= F.length - 1) play(); else step(1); }, 450);
}

function setView(k) {
  // show view k of the page (the step kept)
  V = VIEWS[Math.max(0, Math.min(VIEWS.length - 1, k))];
  if (!V.frames) {
    const raw = D.views.find((v) => v.seat === V.seat);
    V.frames = expand(raw.frames, D.frames, voice(V.seat)); V.deals = raw.deals;
  }
  F = V.frames;
  $("viewsel").value = String(viewIndex());
  $("view").textContent = V.seat === null ? "every hand" : "seen by seat " + V.seat + " (" + D.names[V.seat] + ")";
  document.body.dataset.view = V.seat === null ? "" : String(V.seat);
  seatBoxes(); ticks();
  const slider = $("slider"); slider.max = String(F.length - 1);
  show(cur);
}

function ticks() {
  // marks on the timeline: each new deal, and (red) each fault
  const box = $("ticks"), span = Math.max(1, F.length - 1); box.textContent = "";
  F.forEach((f, k) => {
    if ((k > 0 && f.d !== F[k - 1].d) || f.fault || f.pen) {
      const t = el("i", f.fault ? "f" : f.pen ? "p" : ""); t.style.left = (100 * k / span) + "%";
      t.title = f.fault ? "fault: " + f.fault : f.pen ? "penalty: " + f.pen.map(penText).join(", ") : "deal " + f.d;
      box.appendChild(t);
    }
  });
}

function views() {
  // the page's views: a seat's page its own; a whole-match page the whole match and each seat's
  VIEWS = [{seat: D.seat, frames: D.frames, deals: D.deals, obs: D.seat !== null}];
  (D.views || []).forEach((v) => VIEWS.push({seat: v.seat, frames: null, deals: null, obs: false}));
  const sel = $("viewsel");
  VIEWS.forEach((v, k) => {
    const o = el("option", null, v.seat === null ? "all hands" : "seat " + v.seat + ": " + D.names[v.seat]);
    o.value = String(k); sel.appendChild(o);
  });
  // (then the keys step again: a focused select would take the arrows)
  sel.addEventListener("change", () => { setView(parseInt(sel.value, 10)); sel.blur(); });
  if (VIEWS.length < 2) { $("viewsl").style.display = "none"; $("helpv").style.display = "none"; }
}

function fromHash() {
  // #s=12&v=2 (or the older #12): the step and the view to open at
  const h = location.hash.replace(/^#/, ""), old = /^(\d+)$/.exec(h);
  if (old) return {s: parseInt(old[1], 10), v: null};
  const p = new URLSearchParams(h), s = parseInt(p.get("s"), 10), v = parseInt(p.get("v"), 10);
  return {s: Number.isNaN(s) ? 0 : s, v: Number.isNaN(v) ? null : v};
}

function goHash() {
  const to = fromHash(), k = VIEWS.findIndex((v) => v.seat === to.v);
  cur = to.s;
  setView(k >= 0 ? k : 0);
}

function tab(name) {
  // a narrow window's part shown (the table, the log or the scores: viewer.css); a wide one shows all
  document.body.dataset.tab = name;
  document.querySelectorAll("#tabs button").forEach((b) => b.setAttribute("aria-selected", String(b.dataset.tab === name)));
}

function init() {
  N = D.names.length;
  D.frames = expand(D.frames, [], voice(null));
  pictures();
  $("title").textContent = D.title;
  const cfg = Object.entries(D.config).map(([k, v]) => k + "=" + v).join(", ");
  $("subtitle").textContent = "match " + D.match + (D.seed !== null ? " · seed " + D.seed : "") + (cfg ? " · " + cfg : "");
  if (D.warning) { $("warning").style.display = "block"; $("warning").textContent = "warning: " + D.warning; }
  views();
  const slider = $("slider");
  slider.addEventListener("input", () => show(parseInt(slider.value, 10)));
  $("bprev").onclick = () => step(-1); $("bnext").onclick = () => step(1);
  $("bfirst").onclick = () => show(0); $("blast").onclick = () => show(F.length - 1);
  $("bpdeal").onclick = () => jumpDeal(-1); $("bndeal").onclick = () => jumpDeal(1); $("bplay").onclick = play;
  tab("table");
  // (shown again: the log scrolls to its last line only once it is on screen)
  $("tabs").addEventListener("click", (e) => { const b = e.target.closest("button"); if (b) { tab(b.dataset.tab); b.blur(); show(cur); } });
  document.addEventListener("keydown", (e) => {
    if (e.target && e.target.tagName === "INPUT" && e.key !== "ArrowLeft" && e.key !== "ArrowRight") return;
    if (e.target && e.target.tagName === "SELECT" || e.ctrlKey || e.metaKey || e.altKey) return;
    let handled = true;
    if (e.key === "ArrowRight") e.shiftKey ? jumpDeal(1) : step(1);
    else if (e.key === "ArrowLeft") e.shiftKey ? jumpDeal(-1) : step(-1);
    else if (e.key === "PageDown") jumpDeal(1);
    else if (e.key === "PageUp") jumpDeal(-1);
    else if (e.key === "Home") show(0);
    else if (e.key === "End") show(F.length - 1);
    else if (e.key === " ") play();
    else if ((e.key === "v" || e.key === "V") && VIEWS.length > 1) setView((viewIndex() + 1) % VIEWS.length);
    else handled = false;
    if (handled) e.preventDefault();
  });
  goHash();
  window.addEventListener("hashchange", goHash);  // a link to another moment of the page
  document.body.dataset.ready = "1";
}

function fail(message) {
  const w = $("warning"); w.style.display = "block"; w.textContent = message;
  document.body.dataset.ready = "error";
}

if (typeof DecompressionStream === "undefined") {
  fail("This browser cannot open the viewer: it lacks DecompressionStream (gzip), which Chrome 80, " +
       "Firefox 113, Safari 16.4 and later have. Open the page in a newer browser.");
} else {
  load().then((data) => { D = data; init(); }, (e) => fail("The viewer's data could not be read: " + e));
}
