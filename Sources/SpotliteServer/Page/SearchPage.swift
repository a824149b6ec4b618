import SpotliteJSON
import SpotliteSearch

/// The search page at `/`: one self-contained HTML document (no file from another host) that searches as the user
/// types, through the server's own `/search`.
enum SearchPage {
    /// Inline script and style only, requests to this server only.
    static let contentSecurityPolicy = "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    /// What the page needs of the configuration: its facet fields, the field shown beside each hit's key, by entity,
    /// and the search modes the server offers (the switch shows when there is more than one).
    static func settings(configuration: SpotliteConfiguration, modes: [String]) -> String {
        var facets: [String] = []
        var headlines: [String: String] = [:]
        for entity in configuration.entities {
            for field in entity.fields where field.type == .keyword && field.facet && !facets.contains(field.name) {
                facets.append(field.name)
            }
            headlines[entity.name] = entity.fields.first { $0.type == .text && $0.store && $0.name != entity.key }?.name
        }
        var json = String(decoding: JSONDocument.line(["facets": facets, "headlines": headlines, "modes": modes] as [String: Any]), as: UTF8.self)
        json.removeLast()
        // Inside a <script> element, "</" would end it.
        return json.replacingOccurrences(of: "</", with: "<\\/")
    }

    static func html(settings: String) -> String {
        template.replacingOccurrences(of: "/*SETTINGS*/{}", with: settings)
    }

    private static let template = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Spotlite search</title>
<style>
  :root { --fg: #1d1d1f; --muted: #6e6e73; --line: #e3e3e8; --accent: #0a66d8; --mark: #fff0a8; --bg: #fff; --sel: #eef4ff; }
  * { box-sizing: border-box; }
  body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: var(--fg); background: var(--bg); }
  header { position: sticky; top: 0; background: var(--bg); border-bottom: 1px solid var(--line); padding: 16px 24px 12px; z-index: 1; }
  .bar { display: flex; gap: 10px; align-items: center; max-width: 1100px; margin: 0 auto; }
  h1 { font-size: 17px; margin: 0 8px 0 0; letter-spacing: -0.01em; }
  #q { flex: 1; font-size: 18px; padding: 10px 14px; border: 1px solid #c7c7cc; border-radius: 10px; outline: none; }
  #q:focus { border-color: var(--accent); box-shadow: 0 0 0 3px rgba(10,102,216,.15); }
  #mode { font-size: 14px; padding: 8px; border-radius: 8px; border: 1px solid #c7c7cc; }
  #summary { max-width: 1100px; margin: 8px auto 0; color: var(--muted); font-size: 13px; min-height: 18px; }
  #filters { display: inline; }
  .chip { display: inline-block; margin-left: 6px; padding: 1px 8px; border-radius: 999px; background: var(--sel); color: var(--accent); border: 0; font-size: 12px; cursor: pointer; }
  main { display: grid; grid-template-columns: 220px 1fr; gap: 28px; max-width: 1100px; margin: 0 auto; padding: 16px 24px 48px; }
  aside h2 { font-size: 12px; text-transform: uppercase; letter-spacing: .06em; color: var(--muted); margin: 14px 0 6px; }
  aside button { display: flex; justify-content: space-between; width: 100%; border: 0; background: none; padding: 3px 6px; border-radius: 6px; font: inherit; font-size: 14px; cursor: pointer; text-align: left; color: var(--fg); }
  aside button:hover { background: #f2f2f7; }
  aside button.on { background: var(--sel); color: var(--accent); font-weight: 600; }
  aside .count { color: var(--muted); font-variant-numeric: tabular-nums; margin-left: 8px; }
  ol { list-style: none; margin: 0; padding: 0; }
  li.hit { padding: 10px 12px; border-radius: 10px; cursor: pointer; border: 1px solid transparent; }
  li.hit.selected { background: var(--sel); border-color: #cfe0ff; }
  .title { font-weight: 600; color: var(--accent); }
  .headline { color: var(--fg); margin-left: 6px; }
  .meta { color: var(--muted); font-size: 12px; margin-left: 6px; }
  .snippet { color: #3a3a3c; font-size: 14px; margin-top: 2px; }
  mark { background: var(--mark); color: inherit; padding: 0 1px; border-radius: 2px; }
  #detail { white-space: pre-wrap; font: 12px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; background: #f6f6f8; border-radius: 10px; padding: 12px; margin-top: 16px; display: none; }
  .empty { color: var(--muted); padding: 24px 12px; }
  .error { color: #b3261e; padding: 12px; }
</style>
</head>
<body>
<header>
  <div class="bar">
    <h1>Spotlite</h1>
    <input id="q" type="search" placeholder="Search…" autocomplete="off" autofocus aria-label="Search" aria-controls="hits">
    <select id="mode" aria-label="Search mode" hidden></select>
  </div>
  <div id="summary" aria-live="polite"><span id="stats"></span><span id="filters"></span></div>
</header>
<main>
  <aside id="facets" aria-label="Filters"></aside>
  <section>
    <ol id="hits" role="listbox" aria-label="Results"></ol>
    <pre id="detail"></pre>
  </section>
</main>
<script>
"use strict";
const settings = /*SETTINGS*/{};
const input = document.getElementById("q");
const hitsList = document.getElementById("hits");
const facetsPanel = document.getElementById("facets");
const stats = document.getElementById("stats");
const filtersView = document.getElementById("filters");
const detail = document.getElementById("detail");
const modeSwitch = document.getElementById("mode");
const filters = new Set();
let hits = [];
let selected = -1;
let timer = null;
let sent = 0;       // number of the latest request sent
let shown = 0;      // number of the latest answer shown: older answers arriving late are dropped
let apiKey = localStorage.getItem("spotlite.apiKey") || "";

if (settings.modes.length > 1) {
  for (const mode of settings.modes) modeSwitch.add(new Option(mode, mode));
  modeSwitch.hidden = false;
  modeSwitch.addEventListener("change", search);
}

function headers() { return apiKey ? { "Authorization": "Bearer " + apiKey } : {}; }

async function fetchJSON(url) {
  let response = await fetch(url, { headers: headers() });
  if (response.status === 401) {
    const key = prompt("This server needs an API key:");
    if (key) { apiKey = key; localStorage.setItem("spotlite.apiKey", key); response = await fetch(url, { headers: headers() }); }
  }
  return response;
}

function scheduleSearch() {
  clearTimeout(timer);
  timer = setTimeout(search, 100);
}

async function search() {
  const text = input.value;
  const number = ++sent;
  if (!text.trim() && filters.size === 0) { render(number, null); return; }
  const params = new URLSearchParams({ q: text, prefix: "true", highlight: "true", limit: "20" });
  for (const facet of settings.facets) params.append("facet", facet);
  for (const filter of filters) params.append("filter", filter);
  if (!modeSwitch.hidden) params.set("mode", modeSwitch.value);
  const started = performance.now();
  try {
    const response = await fetchJSON("/search?" + params);
    const body = await response.json();
    if (!response.ok) { renderError(number, body.detail || response.statusText); return; }
    const timing = /dur=([0-9.]+)/.exec(response.headers.get("Server-Timing") || "");
    render(number, body, timing ? parseFloat(timing[1]) : performance.now() - started);
  } catch (error) {
    renderError(number, String(error));
  }
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function renderError(number, message) {
  if (number < shown) return;
  shown = number;
  hitsList.replaceChildren(element("li", "error", message));
  stats.textContent = "";
}

function render(number, body, milliseconds) {
  if (number < shown) return;
  shown = number;
  detail.style.display = "none";
  if (!body) { hits = []; hitsList.replaceChildren(); facetsPanel.replaceChildren(); stats.textContent = ""; renderFilters(); return; }
  hits = body.hits;
  selected = hits.length ? 0 : -1;
  const items = hits.map((hit, index) => {
    const item = element("li", "hit");
    item.setAttribute("role", "option");
    item.dataset.key = String(hit.key);
    const line = element("div");
    line.append(element("span", "title", String(hit.key)));
    const field = settings.headlines[hit.entity];
    if (field && hit.fields[field] !== undefined && String(hit.fields[field]) !== String(hit.key)) {
      line.append(element("span", "headline", String(hit.fields[field])));
    }
    line.append(element("span", "meta", hit.entity + " · " + hit.percent + "%"));
    item.append(line);
    if (hit.snippet) {
      const snippet = element("div", "snippet");
      snippet.innerHTML = hit.snippet;   // HTML-escaped by the server, with <mark> around matched words
      item.append(snippet);
    }
    item.addEventListener("mouseenter", () => select(index));
    item.addEventListener("click", () => { select(index); open(); });
    return item;
  });
  hitsList.replaceChildren(...items);
  if (!hits.length) hitsList.append(element("li", "empty", "No results."));
  select(selected);
  let summary = "About " + body.total.toLocaleString("en") + " result" + (body.total === 1 ? "" : "s") +
    " in " + (milliseconds < 10 ? milliseconds.toFixed(1) : Math.round(milliseconds)) + " ms";
  if (body.corrected) summary += " · showing results for “" + body.corrected + "”";
  stats.textContent = summary;
  renderFacets(body.facets);
  renderFilters();
}

function renderFacets(facets) {
  const groups = [];
  for (const field of settings.facets) {
    const counts = facets[field] || {};
    const values = Object.keys(counts).sort((a, b) => counts[b] - counts[a] || a.localeCompare(b)).slice(0, 12);
    const active = [...filters].filter(f => f.startsWith(field + ":")).map(f => f.slice(field.length + 1));
    for (const value of active) if (!values.includes(value)) values.unshift(value);
    if (!values.length) continue;
    const group = element("div");
    group.append(element("h2", null, field));
    for (const value of values) {
      const filter = field + ":" + value;
      const button = element("button", filters.has(filter) ? "on" : "");
      button.dataset.filter = filter;
      button.append(element("span", null, value), element("span", "count", String(counts[value] || 0)));
      button.addEventListener("click", () => { toggle(filter); });
      group.append(button);
    }
    groups.push(group);
  }
  facetsPanel.replaceChildren(...groups);
}

function renderFilters() {
  const chips = [...filters].map(filter => {
    const chip = element("button", "chip", filter + " ×");
    chip.addEventListener("click", () => toggle(filter));
    return chip;
  });
  filtersView.replaceChildren(...chips);
}

function toggle(filter) {
  if (filters.has(filter)) filters.delete(filter); else filters.add(filter);
  search();
  input.focus();
}

function select(index) {
  const items = hitsList.querySelectorAll("li.hit");
  items.forEach((item, position) => {
    item.classList.toggle("selected", position === index);
    item.setAttribute("aria-selected", position === index ? "true" : "false");
  });
  selected = index;
  if (items[index]) items[index].scrollIntoView({ block: "nearest" });
}

async function open() {
  const hit = hits[selected];
  if (!hit) return;
  const response = await fetchJSON("/records/" + encodeURIComponent(hit.entity) + "/" + encodeURIComponent(String(hit.key)));
  const body = await response.json();
  detail.textContent = JSON.stringify(response.ok ? body : body.detail, null, 2);
  detail.style.display = "block";
}

input.addEventListener("input", scheduleSearch);
input.addEventListener("keydown", event => {
  if (event.key === "ArrowDown") { event.preventDefault(); if (selected < hits.length - 1) select(selected + 1); }
  else if (event.key === "ArrowUp") { event.preventDefault(); if (selected > 0) select(selected - 1); }
  else if (event.key === "Enter") { event.preventDefault(); open(); }
  else if (event.key === "Escape") { input.value = ""; filters.clear(); search(); }
});
if (input.value) search();
</script>
</body>
</html>
"""#
}
