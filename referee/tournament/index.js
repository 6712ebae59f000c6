
(() => {
  "use strict";
  const $$ = (sel, root = document) => [...root.querySelectorAll(sel)];
  const bar = document.getElementById("bar"), box = document.getElementById("q"),
        pick = document.getElementById("who"), sum = document.getElementById("sum");
  document.documentElement.classList.add("js");
  bar.hidden = false;

  // sorting: a click on a column's head, again to reverse; numbers numerically, blanks last
  const key = cell => cell ? (cell.dataset.v ?? cell.textContent).trim() : "";
  const blank = k => k === "" || k === "-";
  function sortBy(th) {
    const table = th.closest("table"), body = table.tBodies[0], col = th.cellIndex;
    const up = th.getAttribute("aria-sort") !== "ascending";
    for (const h of $$("th[aria-sort]", table)) h.removeAttribute("aria-sort");
    th.setAttribute("aria-sort", up ? "ascending" : "descending");
    const rows = [...body.rows], keys = rows.map(r => key(r.cells[col]));
    const numeric = keys.every(k => blank(k) || !isNaN(k));
    const order = rows.map((_, i) => i).sort((a, b) => {
      const x = keys[a], y = keys[b];
      if (blank(x) || blank(y)) return blank(x) - blank(y) || a - b;
      const c = numeric ? x - y : x.localeCompare(y);
      return (up ? c : -c) || a - b;
    });
    const frag = document.createDocumentFragment();
    for (const i of order) frag.append(rows[i]);
    body.append(frag);
    follow(table);
    if (table.classList.contains("paged")) paginate(table, 0);
  }
  for (const cell of $$("table.standings tbody td:nth-child(2), table.matrix tbody th")) {
    cell.classList.add("e");
    cell.title = "its matches";
  }
  for (const th of $$("table.sortable thead th:not(.n)")) {
    th.tabIndex = 0;
    th.title ||= "sort by this column (again: the other way)";
  }

  // a standings chart follows its table: its rows in the table's order, hidden with them
  function follow(table) {
    const svg = table.dataset.chart && document.getElementById(table.dataset.chart);
    if (!svg) return;
    const rows = new Map($$("g.row", svg).map(g => [g.dataset.e, g]));
    let y = +svg.dataset.top;
    for (const g of rows.values()) g.style.display = "none";
    for (const tr of table.tBodies[0].rows) {
      const g = rows.get(tr.dataset.e);
      if (g && !tr.hidden) {
        g.style.display = "";
        g.setAttribute("transform", `translate(0,${y})`);
        y += +svg.dataset.step;
      }
    }
    svg.setAttribute("height", y + +svg.dataset.pad);
    fit(svg);
  }
  // a chart's names cut short ("…") to the room their column has (narrow on a phone); whole again
  // when there is room (the row's tooltip has it whole)
  function fit(svg) {
    for (const t of $$("text.name", svg)) {
      t._whole ??= t.textContent;
      if (t.textContent !== t._whole) t.textContent = t._whole;
      const room = t.x.baseVal[0].value - 4;  // anchored at its end: it starts at x minus its length
      if (!t.getBBox().width || t.getComputedTextLength() <= room) continue;
      let n = t._whole.length - 1;
      do t.textContent = t._whole.slice(0, n) + "\u2026"; while (--n > 0 && t.getComputedTextLength() > room);
    }
  }
  let fitting = 0;
  addEventListener("resize", () => {
    cancelAnimationFrame(fitting);
    fitting = requestAnimationFrame(() => $$("svg.chart").forEach(fit));
  });
  $$("svg.chart").forEach(fit);

  // paging: a game's matches PAGE rows at a time, of those the filter keeps (row._ok), with
  // links to the pages (the first, the last, and the two either side of the one shown)
  const PAGE = 50;
  function paginate(table, page) {
    const rows = table.tBodies[0].rows;
    let kept = 0;
    for (const row of rows) kept += row._ok !== false;
    const pages = Math.max(1, Math.ceil(kept / PAGE));
    page = Math.min(Math.max(0, page), pages - 1);
    table._page = page;
    let i = 0;
    for (const row of rows) {
      const ok = row._ok !== false, show = ok && i >= page * PAGE && i < (page + 1) * PAGE;
      i += ok;
      if (row.hidden === show) row.hidden = !show;
    }
    const navs = $$("nav.pages", table.closest(".group"));
    for (const nav of navs) nav.hidden = pages < 2;
    if (pages < 2) return navs.forEach(nav => nav.replaceChildren());
    const button = (p, text, label) => {
      const b = document.createElement("button");
      b.type = "button";
      b.dataset.p = p;
      b.textContent = text;
      b.title = label;
      if (p === page) b.setAttribute("aria-current", "page");
      b.disabled = p < 0 || p >= pages || p === page;
      return b;
    };
    const items = [button(page - 1, "\u2039", "the page before")];
    let gap = false;
    for (let p = 0; p < pages; p++) {
      if (p === 0 || p === pages - 1 || Math.abs(p - page) <= 2) {
        items.push(button(p, String(p + 1), `matches ${p * PAGE + 1} to ${Math.min(kept, (p + 1) * PAGE)}`));
        gap = false;
      } else if (!gap) {
        const dots = document.createElement("span");
        dots.textContent = "\u2026";
        items.push(dots);
        gap = true;
      }
    }
    items.push(button(page + 1, "\u203a", "the page after"));
    const said = document.createElement("span");
    said.className = "muted";
    said.textContent = ` page ${page + 1} of ${pages}`;
    navs.forEach((nav, n) => nav.replaceChildren(...(n ? items.map(e => e.cloneNode(true)) : items),
                                                 n ? said.cloneNode(true) : said));
  }
  function turn(b) {
    const group = b.closest(".group"), table = group.querySelector("table.paged");
    paginate(table, +b.dataset.p);
    if (group.getBoundingClientRect().top < bar.offsetHeight) group.scrollIntoView();  // from the pages below
  }

  // the filter: every word of the box in a row's text; an entrant picked: its matches only
  let who = "";  // the entrant picked: #entrant=NAME; a section's anchor (#matches) keeps it
  function read() {
    const m = /^#entrant=(.*)$/.exec(location.hash);
    if (m) {
      try { who = decodeURIComponent(m[1]); } catch (e) { who = ""; }
    } else if (!location.hash) {
      who = "";
    }
  }
  const names = row => row._names ??= $$(".e", row).map(e => e.textContent);
  let last = ["", ""];  // what the rows are filtered by: nothing at first (10,000 rows: touch none)
  function apply() {
    const text = box.value.trim().toLowerCase(), marked = who || last[1];
    pick.value = [...pick.options].some(o => o.value === who) ? who : "";
    if (text === last[0] && who === last[1]) return;
    last = [text, who];
    const words = text.split(/\s+/).filter(Boolean);
    let shownMatches = 0, allMatches = 0;
    for (const table of $$("table.filter")) {
      const matches = table.classList.contains("matches"), paged = table.classList.contains("paged");
      let shown = 0;
      for (const row of table.tBodies[0].rows) {
        if (words.length) row._text ??= (row.textContent + " " + (table.dataset.game || "")).toLowerCase();
        const ok = words.every(w => row._text.includes(w)) && (!matches || !who || names(row).includes(who));
        row._ok = ok;
        if (!paged && row.hidden === ok) row.hidden = !ok;
        shown += ok;
        if (matches && marked) {
          for (const p of row.querySelectorAll(".p")) {
            p.classList.toggle("me", ok && p.querySelector(".e").textContent === who);
          }
        }
      }
      if (table.dataset.count) document.getElementById(table.dataset.count).textContent =
        `${shown} of ${table.tBodies[0].rows.length} shown`;
      if (matches) { shownMatches += shown; allMatches += table.tBodies[0].rows.length; }
      if (paged) paginate(table, 0);
      follow(table);
    }
    const count = document.getElementById("count-matches");
    if (count) count.textContent = `${shownMatches} of ${allMatches} shown`;
    for (const el of $$("[data-e]")) el.classList.toggle("me", el.dataset.e === who);
    tell();
  }
  // an entrant's finishes over the matches shown
  function tell() {
    sum.replaceChildren();
    if (!who) return;
    const places = new Map();
    let n = 0, faulted = 0;
    for (const p of $$("table.matches .p.me")) {
      n += 1;
      const rank = p.firstChild.data.trim();
      places.set(rank, (places.get(rank) || 0) + 1);
      faulted += p.querySelector(".bad") !== null;
    }
    const ranks = [...places].sort((a, b) => a[0] - b[0]).map(([r, c]) => `rank ${r}: ${c}`).join(", ");
    const go = document.createElement("button");
    go.textContent = "its matches";
    go.onclick = () => document.getElementById("matches").scrollIntoView();
    sum.append(`${who}: ${n} matches shown${ranks ? ` (${ranks})` : ""}` +
               `${faulted ? `, faults in ${faulted}` : ""} `, go);
  }
  const choose = name => {
    history.pushState(null, "", name ? `#entrant=${encodeURIComponent(name)}` : location.pathname + location.search);
    who = name;
    apply();
  };
  const moved = () => { read(); apply(); };

  let timer = 0;
  box.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(apply, 120); });
  pick.addEventListener("change", () => choose(pick.value));
  addEventListener("hashchange", moved);
  addEventListener("popstate", moved);
  document.addEventListener("click", ev => {
    const th = ev.target.closest("table.sortable thead th:not(.n)");
    if (th) return sortBy(th);
    const page = ev.target.closest("nav.pages button");
    if (page) return turn(page);
    const name = ev.target.closest(".e");
    if (name) choose(name.closest("[data-e]")?.dataset.e ?? name.textContent);
  });
  document.addEventListener("keydown", ev => {
    const th = ev.target.closest && ev.target.closest("table.sortable thead th:not(.n)");
    if (th && (ev.key === "Enter" || ev.key === " ")) { ev.preventDefault(); sortBy(th); }
  });
  for (const table of $$("table.paged")) paginate(table, 0);
  moved();
  document.body.dataset.ready = "1";
})();
