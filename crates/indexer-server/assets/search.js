// The search box of the indexer page and widget. `base` is the server's origin ("" on its
// own page). Results come as you type (debounced), grouped by document with the best notes
// of each under it; up/down move through the notes, enter opens one. With `opts.address`
// (the page, not the widget) the query lives in the address: `/?q=mosaic+plot` opens with its
// results, a settled query becomes a history entry, and back returns to the previous one.
// The search parameters besides q: written in by the server (`PAGE_SEARCH_PARAMS`).
const INDEXER_PARAMS = "/*PARAMS*/";
function indexerMount(root, base, opts) {
  opts = opts || {};
  const esc = (s) => String(s == null ? "" : s).replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
  root.innerHTML = '<input class="ix-box" type="search" placeholder="Search the documents" aria-label="Search" autocomplete="off">' +
    '<div class="ix-status" aria-live="polite"></div><ul class="ix-results" role="listbox"></ul>';
  const box = root.querySelector(".ix-box");
  const status = root.querySelector(".ix-status");
  const list = root.querySelector(".ix-results");
  let timer = null, seq = 0, active = -1, hits = [];
  // The query of the current history entry and when it was made: a query typed on within a
  // second replaces it rather than adding an entry per pause.
  let pushed = null, pushedAt = 0;
  const target = (h) => /^[a-z]+:/i.test(h.url) ? h.url : base + h.url;
  function setActive(i) {
    const items = list.querySelectorAll(".ix-hit");
    if (!items.length) return;
    active = Math.max(0, Math.min(items.length - 1, i));
    items.forEach((el, j) => el.classList.toggle("ix-active", j === active));
    items[active].scrollIntoView({block: "nearest"});
  }
  function hitHtml(h, i) {
    const img = h.crop_url ? '<img alt="" loading="lazy" src="' + esc(base + h.crop_url) + '">' : "";
    const cap = h.caption ? '<div class="ix-caption">' + esc(h.caption) + "</div>" : "";
    const where = (h.section && h.section.length ? esc(h.section.join(" › ")) : "") +
      (h.page ? (h.section && h.section.length ? " · " : "") + "page " + h.page : "");
    return '<li class="ix-hit" role="option" data-i="' + i + '">' + img + "<div>" +
      '<div class="ix-meta"><span class="ix-kind">' + esc(h.kind) + '</span><a class="ix-link" href="' + esc(target(h)) + '">' + (where || "open") + "</a></div>" +
      cap + '<div class="ix-snippet">' + h.snippet_html + "</div></div></li>";
  }
  function render(data) {
    const groups = data.groups || [];
    hits = [];
    active = -1;
    const n = groups.reduce((a, g) => a + g.hits.length, 0);
    status.textContent = groups.length ? groups.length + (groups.length === 1 ? " document, " : " documents, ") + n + " results (" + Math.round(data.timings.total_ms) + " ms)" : "No results";
    list.innerHTML = groups.map((g) => {
      const items = g.hits.map((h) => { hits.push(h); return hitHtml(h, hits.length - 1); }).join("");
      return '<li class="ix-group"><a class="ix-doc" href="' + esc(target(g)) + '">' + esc(g.doc) + "</a>" +
        '<ul class="ix-subs" role="group">' + items + "</ul></li>";
    }).join("");
  }
  function remember(q) {
    if (!opts.address) return;
    const url = new URL(window.location.href);
    if (q) url.searchParams.set("q", q); else url.searchParams.delete("q");
    if (url.href === window.location.href) return;
    const now = Date.now();
    if (pushed !== null && now - pushedAt < 1000) history.replaceState({q: q}, "", url);
    else history.pushState({q: q}, "", url);
    pushed = q;
    pushedAt = now;
  }
  async function run(fromHistory) {
    const q = box.value.trim();
    const mine = ++seq;
    if (!fromHistory) remember(q);
    if (!q) { list.innerHTML = ""; status.textContent = ""; hits = []; return; }
    status.textContent = "Searching…";
    try {
      const r = await fetch(base + "/search?q=" + encodeURIComponent(q) + "&" + INDEXER_PARAMS);
      const data = await r.json();
      if (mine !== seq) return;
      if (!r.ok) { status.textContent = data.message || ("Error " + r.status); list.innerHTML = ""; return; }
      render(data);
    } catch (e) {
      if (mine === seq) status.textContent = "The search server cannot be reached";
    }
  }
  box.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(() => run(false), 200); });
  box.addEventListener("keydown", (e) => {
    if (e.key === "ArrowDown") { e.preventDefault(); setActive(active + 1); }
    else if (e.key === "ArrowUp") { e.preventDefault(); setActive(active - 1); }
    else if (e.key === "Enter" && active >= 0 && hits[active]) { e.preventDefault(); window.location.href = target(hits[active]); }
  });
  list.addEventListener("click", (e) => {
    const li = e.target.closest(".ix-hit");
    if (li && !e.target.closest("a")) window.location.href = target(hits[+li.dataset.i]);
  });
  if (opts.address) {
    window.addEventListener("popstate", () => {
      box.value = new URL(window.location.href).searchParams.get("q") || "";
      pushed = null;
      clearTimeout(timer);
      run(true);
    });
    const q = new URL(window.location.href).searchParams.get("q");
    if (q) { box.value = q; run(true); }
  }
  return box;
}

// For /widget.js: mounts into the element named by the script tag's data-target, talking to
// the server the script was loaded from.
function indexerWidget(css) {
  const script = document.currentScript;
  const base = new URL(script.src).origin;
  const start = () => {
    const el = document.querySelector(script.dataset.target || "#search");
    if (!el) return;
    const style = document.createElement("style");
    style.textContent = css;
    document.head.appendChild(style);
    indexerMount(el, base);
  };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
}
