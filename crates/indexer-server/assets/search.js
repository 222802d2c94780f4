// The search box of the indexer page and widget. `base` is the server's origin ("" on its
// own page). Results come as you type (debounced), up/down move, enter opens.
function indexerMount(root, base) {
  const esc = (s) => String(s == null ? "" : s).replace(/[&<>"']/g, (c) => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
  root.innerHTML = '<input class="ix-box" type="search" placeholder="Search the documents" aria-label="Search" autocomplete="off">' +
    '<div class="ix-status" aria-live="polite"></div><ul class="ix-results" role="listbox"></ul>';
  const box = root.querySelector(".ix-box");
  const status = root.querySelector(".ix-status");
  const list = root.querySelector(".ix-results");
  let timer = null, seq = 0, active = -1, hits = [];
  const target = (h) => h.file_url ? base + h.file_url : base + h.note_url;
  function setActive(i) {
    const items = list.querySelectorAll(".ix-hit");
    if (!items.length) return;
    active = Math.max(0, Math.min(items.length - 1, i));
    items.forEach((el, j) => el.classList.toggle("ix-active", j === active));
    items[active].scrollIntoView({block: "nearest"});
  }
  function render(data) {
    hits = data.hits || [];
    active = -1;
    status.textContent = hits.length ? hits.length + " results (" + Math.round(data.timings.total_ms) + " ms)" : "No results";
    list.innerHTML = hits.map((h, i) => {
      const n = h.note;
      const where = esc(n.doc) + (n.page ? " · page " + n.page : "");
      const img = h.crop_url ? '<img alt="" loading="lazy" src="' + esc(base + h.crop_url) + '">' : "";
      const cap = n.caption ? '<div class="ix-caption">' + esc(n.caption) + "</div>" : "";
      return '<li class="ix-hit" role="option" data-i="' + i + '">' + img + "<div>" +
        '<div class="ix-meta"><span class="ix-kind">' + esc(n.kind) + '</span><a class="ix-link" href="' + esc(target(h)) + '">' + where + "</a></div>" +
        cap + '<div class="ix-snippet">' + h.snippet_html + "</div></div></li>";
    }).join("");
  }
  async function run() {
    const q = box.value.trim();
    const mine = ++seq;
    if (!q) { list.innerHTML = ""; status.textContent = ""; hits = []; return; }
    status.textContent = "Searching…";
    try {
      const r = await fetch(base + "/search?q=" + encodeURIComponent(q));
      const data = await r.json();
      if (mine !== seq) return;
      if (!r.ok) { status.textContent = data.message || ("Error " + r.status); list.innerHTML = ""; return; }
      render(data);
    } catch (e) {
      if (mine === seq) status.textContent = "The search server cannot be reached";
    }
  }
  box.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(run, 200); });
  box.addEventListener("keydown", (e) => {
    if (e.key === "ArrowDown") { e.preventDefault(); setActive(active + 1); }
    else if (e.key === "ArrowUp") { e.preventDefault(); setActive(active - 1); }
    else if (e.key === "Enter" && active >= 0 && hits[active]) { e.preventDefault(); window.location.href = target(hits[active]); }
  });
  list.addEventListener("click", (e) => {
    const li = e.target.closest(".ix-hit");
    if (li && !e.target.closest("a")) window.location.href = target(hits[+li.dataset.i]);
  });
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
