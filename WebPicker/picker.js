// The MediaIndex web picker: PhotosPicker for a browser. Plain JavaScript, no dependencies.
// URL parameters: limit=N (selection limit; 1 is single selection), filter=EXPR (a preset
// filter in the CLI's grammar), preselected=ID,ID, origin=ORIGIN (postMessage target),
// selection=default|ordered.
"use strict";

const params = new URLSearchParams(location.search);
const config = {
  limit: Math.max(0, parseInt(params.get("limit") || "0", 10) || 0),
  // selection=default (PHPickerConfiguration's .default) marks picked items without their numbers; ordered numbers them.
  numbered: params.get("selection") !== "default",
  filter: params.get("filter") || "",
  preselected: (params.get("preselected") || "").split(",").map(s => s.trim()).filter(Boolean),
  // The server names the one origin the selection may go to (--picker-origin), else this page's own; never any origin.
  // What Done may hand over beyond PhotosPicker's fields: include=path,location.
  // The Hidden album is offered only to a page opened with includeHidden=1.
  includeHidden: params.get("includeHidden") === "1",
  // pick=SECRET: opened by `mediaindex pick`; Done and Cancel go to POST /v1/pick/SECRET.
  pick: params.get("pick") || "",
  include: new Set((params.get("include") || "").split(",").map(s => s.trim()).filter(Boolean)),
  targetOrigin: (o => !o || o === "self" ? location.origin : o)(document.querySelector('meta[name="mediaindex-target-origin"]')?.content),
};
const PAGE = 200;
const HEADER_HEIGHT = 36;
const GAP = 2;
// PHPickerFilter's names, with the MediaIndex filter each stands for.
const CHIPS = [
  ["Images", "images"], ["Videos", "videos"], ["Live Photos", "livePhotos"], ["Screenshots", "screenshots"],
  ["Panoramas", "panoramas"], ["Bursts", "bursts"], ["Slo-mo", "slomoVideos"], ["Time-lapse", "timelapseVideos"],
  ["Depth Effect", "depthEffectPhotos"], ["Screen Recordings", "screenRecordings"], ["Cinematic", "cinematicVideos"],
  ["Spatial", "spatialMedia"], ["Selfies", "selfies"], ["RAW", "raw"], ["Animated", "animated"], ["HDR", "hdr"],
];

const $ = id => document.getElementById(id);
const state = {
  // assets: one slot per asset of the result, filled as its chunk loads; days, chunks and
  // sections come from the timeline.
  assets: [], known: new Map(), total: 0, days: [], chunks: [], sections: [], height: 0, failed: null,
  exhausted: true, chips: new Set(), album: null, columns: 4, tile: 100, width: 0, focus: 0, anchor: null,
  selection: [], selected: new Map(), generation: 0, viewerIndex: -1,
  layoutMode: localStorage.getItem("mediaindex.layout") === "justified" ? "justified" : "square",
  groupMode: ["day", "month", "year"].includes(localStorage.getItem("mediaindex.group")) ? localStorage.getItem("mediaindex.group") : "day",
  zoom: 1,
};

// MARK: API

async function api(path, options = {}) {
  // The grid's pages before the thumbnails queued beside them (six connections per host).
  const response = await fetch(path, { credentials: "same-origin", priority: "high", ...options,
    headers: { "X-MediaIndex": "1", ...(options.headers || {}) } });
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    try { message = (await response.json()).error.message; } catch (_) { /* not our JSON */ }
    throw new Error(message);
  }
  return response.json();
}

function query() {
  const q = new URLSearchParams();
  const parts = [];
  if (config.filter) parts.push(`(${config.filter})`);
  if (state.chips.size === 1) parts.push([...state.chips][0]);
  else if (state.chips.size > 1) parts.push(`any(${[...state.chips].join(", ")})`);
  if (parts.length) q.set("filter", parts.join(" & "));
  if (state.album) q.set("album", state.album.id);
  if (searchBox.query) q.set("q", searchBox.query);
  // Hidden assets only for a page opened with includeHidden=1 (the server asks for the token).
  if (config.includeHidden) q.set("includeHidden", "true");
  q.set("sort", "captureDate");
  return q;
}

function thumbnailURL(asset, size, mode = "fill") {
  return `/v1/assets/${encodeURIComponent(asset.id)}/thumbnail?size=${size}&mode=${mode}&rev=${asset.revision}`;
}

function resourceURL(asset, role) {
  return `/v1/assets/${encodeURIComponent(asset.id)}/resources/${role}`;
}

function movieURL(asset) {
  if (asset.resources.some(r => r.role === "pairedVideo")) return resourceURL(asset, "pairedVideo") + "?representation=compatible";
  if (asset.embeddedVideo) return resourceURL(asset, "embeddedVideo") + "?representation=compatible";
  return null;
}

const isLive = a => a.mediaSubtypes.includes("livePhoto") || a.mediaSubtypes.includes("motionPhoto");

// MARK: Loading (the timeline first, then the assets of the chunks on screen)

// The grid is laid out from /v1/timeline's per-day counts before any asset is loaded:
// state.assets has one slot per asset of the result (sparse until its chunk arrives), so
// the scrubber can jump anywhere and only the chunks on screen are fetched. A chunk is a
// month (or the undated), or the days of a month above CHUNK_MAX, fetched by period=.
const CHUNK_MAX = 600;

function dayKey(asset) {
  return asset.creationDate ? asset.creationDate.slice(0, 10) : null;
}

async function loadTimeline() {
  const generation = state.generation;
  if (!state.total) showGridState("Loading…");
  // The newest page is asked for beside the timeline, not after it: a grid at its top
  // paints from it without another round trip.
  const firstQuery = query();
  firstQuery.set("limit", String(PAGE));
  const first = $("grid").scrollTop <= 0 ? api(`/v1/assets?${firstQuery}`).catch(() => null) : null;
  try {
    const timeline = await api(`/v1/timeline?${query()}`);
    if (generation !== state.generation) return;
    buildIndex(timeline.buckets);
    const page = first && await first;
    if (generation !== state.generation) return;
    if (page) fillChunks(page.assets, page.nextCursor, 0, false);
    state.failed = null;
    showGridState(state.total ? "" : "No photos or videos match.");
    layout();
  } catch (error) {
    if (generation !== state.generation) return;
    state.failed = error.message;
    showGridState(`Could not load the library: ${error.message}`, true);
  }
}

function buildIndex(buckets) {
  const days = [];
  let start = 0;
  for (const bucket of buckets) { days.push({ day: bucket.period, start, count: bucket.count }); start += bucket.count; }
  state.days = days;
  state.total = start;
  state.assets = new Array(start);
  state.known = new Map();
  const chunks = [];
  const monthOf = day => day ? day.slice(0, 7) : null;
  const chunk = (period, list) => ({ period, start: list[0].start, count: list.reduce((n, d) => n + d.count, 0),
    days: new Map(list.map(d => [d.day, { start: d.start, count: d.count, filled: 0 }])),
    cursor: null, done: false, loading: null });
  for (let i = 0; i < days.length;) {
    let j = i;
    while (j < days.length && monthOf(days[j].day) === monthOf(days[i].day)) j++;
    const list = days.slice(i, j);
    const count = list.reduce((n, d) => n + d.count, 0);
    if (days[i].day === null) chunks.push(chunk("none", list));
    else if (count <= CHUNK_MAX) chunks.push(chunk(monthOf(days[i].day), list));
    else for (const d of list) chunks.push(chunk(d.day, [d]));
    i = j;
  }
  state.chunks = chunks;
}

function chunkAt(index) {
  const chunks = state.chunks;
  let low = 0, high = chunks.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (chunks[mid].start <= index) low = mid; else high = mid - 1;
  }
  return chunks[low];
}

// One more page of a chunk; each asset goes to the next free slot of its day.
function loadChunk(chunk, priority = "high") {
  if (chunk.loading || chunk.done) return chunk.loading || Promise.resolve();
  const generation = state.generation;
  chunk.loading = (async () => {
    try {
      const q = query();
      q.set("period", chunk.period);
      q.set("limit", String(PAGE));
      if (chunk.cursor) q.set("after", chunk.cursor);
      const page = await api(`/v1/assets?${q}`, { priority });
      if (generation !== state.generation) return;
      let misplaced = false;
      for (const asset of page.assets) {
        const day = chunk.days.get(dayKey(asset));
        if (!day || day.filled >= day.count) { misplaced = true; continue; }
        state.assets[day.start + day.filled] = asset;
        day.filled += 1;
        state.known.set(asset.id, asset);
      }
      chunk.cursor = page.nextCursor;
      chunk.done = !page.nextCursor;
      // The library changed between the timeline and this page: read the timeline again.
      if (misplaced || (chunk.done && [...chunk.days.values()].some(d => d.filled !== d.count))) scheduleRefresh(true);
      if (state.layoutMode === "justified") layout(); else render();
    } catch (error) {
      if (generation === state.generation) { state.failed = error.message; showGridState(`Could not load the library: ${error.message}`, true); }
    } finally {
      chunk.loading = null;
    }
  })();
  return chunk.loading;
}

// Every slot from `low` to `high` loaded (a range selection, a key press far away).
async function ensureLoaded(low, high) {
  const generation = state.generation;
  for (let guard = 0; guard < 10000 && generation === state.generation; guard++) {
    let missing = -1;
    for (let i = low; i <= high; i++) if (!state.assets[i]) { missing = i; break; }
    if (missing < 0) return true;
    const chunk = chunkAt(missing);
    if (chunk.done) return false;
    await loadChunk(chunk);
    if (state.failed) return false;
  }
  return false;
}

// Loads what is on screen, once scrolling pauses (a scrubber drag loads only where it stops).
let loadTimer = null;
function loadVisibleSoon(delay = 40) {
  clearTimeout(loadTimer);
  loadTimer = setTimeout(loadVisible, delay);
}

function loadVisible() {
  if (!state.total || state.failed) return;
  const grid = $("grid");
  // What is on screen first; half a screen around it once that is loaded.
  let [first, last] = indexRange(grid.scrollTop, grid.scrollTop + grid.clientHeight);
  let complete = first <= last;
  for (let i = first; complete && i <= last; i++) if (!state.assets[i]) complete = false;
  if (complete) [first, last] = indexRange(grid.scrollTop - grid.clientHeight / 2, grid.scrollTop + grid.clientHeight * 1.5);
  if (first > last) return;
  const wanted = [];
  for (let i = first; i <= last;) {
    const chunk = chunkAt(i);
    if (!chunk.done) {
      // A chunk is read page by page from its start: ask only while slots on screen are empty.
      for (let k = Math.max(i, chunk.start); k <= Math.min(last, chunk.start + chunk.count - 1); k++) {
        if (!state.assets[k]) { wanted.push(chunk); break; }
      }
    }
    i = chunk.start + chunk.count;
  }
  for (const chunk of wanted.slice(0, 6)) loadChunk(chunk).then(() => { if (!state.failed) loadVisibleSoon(0); });
}

// The screens the scrubber's years jump to are read once the first screen is painted:
// one low-priority request per year (its newest assets, as many as its landing screen
// shows, to the end of the last chunk on it), so a jump to a year lands on loaded tiles
// and only their thumbnails are left to come. Other places load when scrolled to.
function preloadYears() {
  const generation = state.generation, height = $("grid").clientHeight;
  for (const mark of document.querySelectorAll(".scrub-year")) {
    const start = Number(mark.dataset.index), top = itemRect(start).y - HEADER_HEIGHT;
    const [, last] = indexRange(top, top + height);
    if (last < start) continue;
    const end = Math.min(state.total, chunkAt(last).start + chunkAt(last).count);
    // The newest assets taken before the year's end, by the capture-time index (a period
    // of a year would sort the whole year): the end is late enough for every time zone,
    // so New Year's Day's first hours come too, and a few more than the screen are asked
    // for, as capture order and local days differ at the edges.
    const next = String(Number(mark.dataset.year) + 1);
    const newYear = state.days.find(d => d.start + d.count === start && d.day === `${next}-01-01`);
    const q = query();
    q.set("to", `${next}-01-01T14:00:00Z`);
    q.set("limit", String(Math.min(1000, Math.ceil((end - start) * 1.25) + 10 + (newYear ? newYear.count : 0))));
    api(`/v1/assets?${q}`, { priority: "low" }).then(page => {
      if (generation === state.generation) fillChunks(page.assets, page.nextCursor, start);
    }).catch(() => { /* the jump loads it */ });
  }
}

// A page of the result in capture order that is not a chunk's (the newest page, read
// beside the timeline; a year's landing screen): its assets go to their days' next free
// slots as loadChunk would put them. The page holds, of every chunk it meets, that chunk's
// first assets in the same order, so the chunk goes on from the page's cursor (or is done).
// Chunks already read or being read are left alone, and those above `from` (New Year's
// Day, of which a year's page holds only the first hours: not the day's first assets).
function fillChunks(assets, nextCursor, from = 0, redraw = true) {
  const dayStarts = new Map(state.days.map(d => [d.day, d.start]));
  const touched = new Set(), skipped = new Set();
  let misplaced = false;
  for (const asset of assets) {
    const start = dayStarts.get(dayKey(asset));
    if (start === undefined) { misplaced = true; continue; }
    const chunk = chunkAt(start);
    if (skipped.has(chunk)) continue;
    if (!touched.has(chunk) && (chunk.start < from || chunk.loading || chunk.done || [...chunk.days.values()].some(d => d.filled))) { skipped.add(chunk); continue; }
    touched.add(chunk);
    const day = chunk.days.get(dayKey(asset));
    if (day.filled >= day.count) { misplaced = true; continue; }
    state.assets[day.start + day.filled] = asset;
    day.filled += 1;
    state.known.set(asset.id, asset);
  }
  for (const chunk of touched) {
    chunk.done = !nextCursor || [...chunk.days.values()].every(d => d.filled === d.count);
    chunk.cursor = chunk.done ? null : nextCursor;
  }
  if (misplaced) scheduleRefresh(true);
  if (touched.size && redraw) { if (state.layoutMode === "justified") layout(); else render(); }
}

// Live changes: the timeline again, keeping the first asset on screen where it was
// (or the top at the top, where new photos appear).
let refreshTimer = null;
function scheduleRefresh(soon = false) {
  clearTimeout(refreshTimer);
  refreshTimer = setTimeout(refresh, soon ? 500 : 150);
}

async function refresh() {
  const grid = $("grid");
  const atTop = grid.scrollTop <= 0;
  const anchor = anchorAsset();
  state.generation += 1;
  const before = state.total;
  await loadTimeline();
  if (atTop || !anchor) { grid.scrollTop = 0; }
  else { const y = anchorY(anchor); if (y != null) grid.scrollTop = y; }
  render();
  if (state.total > before) announce(`${state.total - before} new item${state.total - before === 1 ? "" : "s"}`);
}

function anchorAsset() {
  const grid = $("grid");
  const [first, last] = indexRange(grid.scrollTop, grid.scrollTop + grid.clientHeight);
  for (let i = first; i <= last; i++) if (state.assets[i]) return { asset: state.assets[i], offset: itemRect(i).y - grid.scrollTop };
  return null;
}

function anchorY(anchor) {
  // The anchor's day is known: look for it in its chunk once loaded; else its day's top.
  const day = state.days.find(d => d.day === dayKey(anchor.asset));
  if (!day) return null;
  return itemRect(day.start).y - anchor.offset;
}

function reset() {
  state.generation += 1;
  state.total = 0; state.days = []; state.chunks = []; state.assets = []; state.known = new Map();
  state.focus = 0; state.anchor = null; state.failed = null; state.preloadYears = true;
  for (const el of rendered.values()) el.remove();
  rendered.clear();
  $("grid").scrollTop = 0;
  layout();
  loadTimeline();
}

// Kept for the viewer: loads the chunk around the asset shown.
function loadPage() {
  const index = state.viewerIndex >= 0 ? state.viewerIndex : state.focus;
  ensureLoaded(Math.max(0, index - 1), Math.min(state.total - 1, index + 10)).then(() => render());
}

function listenForChanges() {
  if (window.EventSource) {
    const events = new EventSource("/v1/events");
    events.addEventListener("changes", () => scheduleRefresh());
    return;
  }
  (async function poll() {
    let token = (await api("/v1/changes").catch(() => ({ currentToken: 0 }))).currentToken;
    for (;;) {
      try {
        const result = await api(`/v1/changes?since=${token}&wait=55`);
        if (result.changes.length) scheduleRefresh();
        token = result.currentToken;
      } catch (_) {
        await new Promise(r => setTimeout(r, 5000));
        token = (await api("/v1/changes").catch(() => ({ currentToken: token }))).currentToken;
      }
    }
  })();
}

// MARK: Layout (virtualised: only what is on screen is in the page)

function dayOf(asset) {
  return asset.creationDate ? asset.creationDate.slice(0, 10) : "";
}

// Titles are formatted once per period and style (toLocaleDateString costs about a
// millisecond a call on a loaded machine; a screen asks for a hundred tiles' labels).
const titles = new Map();
function memoTitle(key, make) {
  let title = titles.get(key);
  if (title === undefined) { title = make(); titles.set(key, title); }
  return title;
}

function dayTitle(day) {
  if (!day) return "No date";
  return memoTitle(day, () => {
    const date = new Date(`${day}T12:00:00`);
    return isNaN(date) ? day : date.toLocaleDateString(undefined, { weekday: "short", year: "numeric", month: "long", day: "numeric" });
  });
}

function periodTitle(period, short = false) {
  if (!period) return "No date";
  return memoTitle(`${period}|${short}`, () => formatPeriod(period, short));
}

function formatPeriod(period, short) {
  if (period.length === 10 && short) {
    const date = new Date(`${period}T12:00:00`);
    return isNaN(date) ? period : date.toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });
  }
  if (period.length === 10) return dayTitle(period);
  const date = new Date(`${period.length === 4 ? `${period}-01` : period}-01T12:00:00`);
  if (isNaN(date)) return period;
  return period.length === 4 ? period : date.toLocaleDateString(undefined, { year: "numeric", month: "long" });
}

// Sections (a header and its tiles) per day, month or year, from the day counts; their
// rows are computed from the counts (square) or the loaded sizes (justified: an asset
// not yet loaded counts as square, and the rows settle as the chunk arrives).
function layout() {
  const grid = $("grid");
  const anchor = state.total && grid.scrollTop > 0 ? anchorAsset() : null;
  // The scrubber's column is kept beside a grid long enough to need it.
  $("photos").classList.toggle("scrubbed", state.total > 60);
  const width = grid.clientWidth || window.innerWidth;
  const target = (width < 600 ? 88 : 120) * state.zoom;
  state.columns = Math.max(3, Math.floor(width / target));
  state.tile = Math.floor((width - (state.columns - 1) * GAP) / state.columns);
  state.width = width;
  const length = { day: 10, month: 7, year: 4 }[state.groupMode];
  const sections = [];
  for (const d of state.days) {
    const key = d.day ? d.day.slice(0, length) : null;
    const last = sections[sections.length - 1];
    if (last && last.key === key) last.count += d.count;
    else sections.push({ key, start: d.start, count: d.count, top: 0, height: 0, rows: null });
  }
  // Sections flow: one that fits beside the previous (a day of a few photos) shares
  // its line, so sparse days still fill the screen; a larger one starts a line.
  let y = 0, x = 0, lineHeight = 0;
  const step = state.tile + GAP;
  for (const section of sections) {
    let natural = Infinity, rows = null;
    if (state.layoutMode === "justified") {
      rows = justifiedRows(section, width, target);
      if (rows.length === 1 && !rows[0].full) natural = rows[0].items.reduce((w, it) => w + it.w + GAP, 0);
    } else if (section.count <= state.columns) {
      natural = section.count * step;
    }
    if (natural === Infinity || x + natural > width + GAP) { y += lineHeight; x = 0; lineHeight = 0; }
    section.top = y;
    section.x = x;
    section.rows = rows;
    section.width = natural === Infinity ? width : natural - GAP;
    if (rows) {
      const last = rows[rows.length - 1];
      section.height = HEADER_HEIGHT + (last ? last.y + last.height + GAP : 0);
    } else {
      section.height = HEADER_HEIGHT + Math.ceil(section.count / state.columns) * step;
    }
    lineHeight = Math.max(lineHeight, section.height);
    if (natural === Infinity) { y += lineHeight; lineHeight = 0; } else x += natural;
  }
  y += lineHeight;
  state.sections = sections;
  state.height = y;
  $("grid-space").style.height = `${y}px`;
  if (anchor) { const top = anchorY(anchor); if (top != null) grid.scrollTop = top; }
  buildScrubber();
  render();
}

function justifiedRows(section, width, target) {
  const rows = [];
  let row = [], ratios = 0, y = 0;
  const flush = (full) => {
    const height = full ? (width - GAP * (row.length - 1)) / ratios : target;
    let x = 0;
    const items = row.map(({ index, ratio }) => { const w = ratio * height; const item = { index, x, w }; x += w + GAP; return item; });
    rows.push({ y, height, items, full, start: row[0].index, end: row[row.length - 1].index + 1 });
    y += height + GAP;
    row = []; ratios = 0;
  };
  for (let i = section.start; i < section.start + section.count; i++) {
    const asset = state.assets[i];
    const ratio = asset && asset.pixelWidth && asset.pixelHeight ? Math.min(3, Math.max(0.4, asset.pixelWidth / asset.pixelHeight)) : 1;
    row.push({ index: i, ratio });
    ratios += ratio;
    if (ratios * target + GAP * (row.length - 1) >= width) flush(true);
  }
  if (row.length) flush(false);
  return rows;
}

function sectionAt(y) {
  // The first section of the line at y (sections of a line share their top).
  const sections = state.sections;
  let low = 0, high = sections.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (sections[mid].top <= y) low = mid; else high = mid - 1;
  }
  while (low > 0 && sections[low - 1].top === sections[low].top) low -= 1;
  return low;
}

function sectionOf(index) {
  const sections = state.sections;
  let low = 0, high = sections.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (sections[mid].start <= index) low = mid; else high = mid - 1;
  }
  return sections[low];
}

// The rows of `section` between y0 and y1 (page coordinates), as {y, height, items: [{index, x, w}]}.
function rowsBetween(section, y0, y1) {
  const base = section.top + HEADER_HEIGHT;
  if (section.rows) return section.rows.filter(r => base + r.y + r.height >= y0 && base + r.y <= y1)
    .map(r => ({ ...r, y: base + r.y, items: r.items.map(it => ({ ...it, x: it.x + section.x })) }));
  const step = state.tile + GAP, columns = state.columns;
  const count = Math.ceil(section.count / columns);
  const out = [];
  for (let r = Math.max(0, Math.floor((y0 - base) / step)); r < count && base + r * step <= y1; r++) {
    const items = [];
    for (let c = 0; c < columns && r * columns + c < section.count; c++) {
      items.push({ index: section.start + r * columns + c, x: section.x + c * step, w: state.tile });
    }
    out.push({ y: base + r * step, height: state.tile, items, start: items[0].index, end: items[items.length - 1].index + 1 });
  }
  return out;
}

function itemRect(index) {
  const section = sectionOf(index);
  const base = section.top + HEADER_HEIGHT;
  if (section.rows) {
    const row = section.rows.find(r => index >= r.start && index < r.end) || section.rows[0];
    const item = row.items.find(it => it.index === index) || row.items[0];
    return { x: section.x + item.x, y: base + row.y, w: item.w, h: row.height };
  }
  const offset = index - section.start;
  const step = state.tile + GAP;
  return { x: section.x + (offset % state.columns) * step, y: base + Math.floor(offset / state.columns) * step, w: state.tile, h: state.tile };
}

// The first and last asset index whose rows meet [y0, y1].
function indexRange(y0, y1) {
  if (!state.sections.length) return [0, -1];
  let first = null, last = -1;
  for (let s = sectionAt(Math.max(0, y0)); s < state.sections.length && state.sections[s].top <= y1; s++) {
    for (const row of rowsBetween(state.sections[s], y0, y1)) {
      if (first === null) first = row.start;
      last = row.end - 1;
    }
  }
  return first === null ? [0, -1] : [first, last];
}

const rendered = new Map(); // key -> element

function render() {
  const grid = $("grid");
  const top = grid.scrollTop, bottom = top + grid.clientHeight;
  const overscan = grid.clientHeight / 2;
  const wanted = new Set();
  for (let s = state.sections.length ? sectionAt(Math.max(0, top - overscan)) : 0;
       s < state.sections.length && state.sections[s].top < bottom + overscan; s++) {
    const section = state.sections[s];
    if (section.top + HEADER_HEIGHT > top - overscan) renderHeader(section, wanted);
    for (const row of rowsBetween(section, top - overscan, bottom + overscan)) {
      for (const item of row.items) renderTile(item, row, wanted);
    }
  }
  for (const [key, el] of rendered) {
    if (!wanted.has(key) && el !== document.activeElement) { el.remove(); rendered.delete(key); cancelThumbnail(el); }
  }
  updateScrubberPosition();
  // The first screen is asked for at once; later ones once scrolling pauses.
  loadVisibleSoon(state.painted ? 40 : 0);
  // The first screen with assets in it: a mark scripts/bench reads (first paint).
  if ((!state.painted || state.preloadYears) && [...rendered.keys()].some(key => key[0] === "a")) {
    if (!state.painted) requestAnimationFrame(() => performance.mark("mediaindex-grid-painted"));
    state.painted = true;
    state.preloadYears = false;
    setTimeout(preloadYears, 0);
  }
}

function renderHeader(section, wanted) {
  const key = `h${section.key}|${section.start}`;
  wanted.add(key);
  let el = rendered.get(key);
  if (!el) {
    el = document.createElement("div");
    el.className = "date-header";
    el.setAttribute("aria-hidden", "true");
    $("grid-space").appendChild(el);
    rendered.set(key, el);
  }
  // Only what changed is written: every write is style and layout work for the next frame.
  const title = periodTitle(section.key, section.width < 260);
  if (el.textContent !== title) el.textContent = title;
  const place = `${section.top}|${section.x}|${section.width}`;
  if (el.dataset.place !== place) {
    el.dataset.place = place;
    Object.assign(el.style, { top: `${section.top}px`, left: `${section.x}px`, width: `${section.width}px` });
  }
}

function renderTile(item, row, wanted) {
  const asset = state.assets[item.index];
  const key = asset ? `a${asset.id}` : `p${item.index}`;
  wanted.add(key);
  let el = rendered.get(key);
  if (!el) {
    el = asset ? makeTile(asset) : makePlaceholder();
    $("grid-space").appendChild(el);
    rendered.set(key, el);
  }
  const place = `${item.index}|${state.total}|${row.y}|${item.x}|${item.w}|${row.height}`;
  if (el.dataset.place !== place) {
    el.dataset.place = place;
    el.dataset.index = String(item.index);
    el.setAttribute("aria-posinset", String(item.index + 1));
    el.setAttribute("aria-setsize", String(state.total));
    Object.assign(el.style, { top: `${row.y}px`, left: `${item.x}px`, width: `${item.w}px`, height: `${row.height}px` });
  }
  const tabIndex = item.index === state.focus ? 0 : -1;
  if (el.tabIndex !== tabIndex) el.tabIndex = tabIndex;
  if (asset) updateTileSelection(el, asset);
}

function makePlaceholder() {
  const el = document.createElement("div");
  el.className = "tile placeholder";
  el.setAttribute("role", "option");
  el.setAttribute("aria-label", "Loading");
  el.addEventListener("focus", () => { state.focus = Number(el.dataset.index); });
  return el;
}

// MARK: Scrubber (years and months on the right; a jump loads only where it lands)

function buildScrubber() {
  const scrubber = $("scrubber");
  scrubber.replaceChildren();
  scrubber.hidden = !$("photos").classList.contains("scrubbed");
  if (scrubber.hidden) return;
  const height = scrubber.clientHeight || $("grid").clientHeight;
  state.scrubberHeight = height;
  const years = new Map(), months = [];
  for (const d of state.days) {
    if (!d.day) continue;
    const year = d.day.slice(0, 4), month = d.day.slice(0, 7);
    if (!years.has(year)) years.set(year, d.start);
    if (!months.length || months[months.length - 1].month !== month) months.push({ month, start: d.start });
  }
  let lastLabel = -Infinity;
  for (const { month, start } of months) {
    const y = itemRect(start).y / state.height * height;
    const isYear = years.get(month.slice(0, 4)) === start;
    const mark = document.createElement(isYear && y - lastLabel >= 16 ? "button" : "span");
    mark.className = isYear ? "scrub-year" : "scrub-month";
    mark.style.top = `${y}px`;
    mark.dataset.index = String(start);
    if (isYear) mark.dataset.year = month.slice(0, 4);
    if (mark.tagName === "BUTTON") {
      mark.textContent = month.slice(0, 4);
      mark.setAttribute("aria-label", `Jump to ${month.slice(0, 4)}`);
      mark.tabIndex = -1;
      lastLabel = y;
    }
    scrubber.appendChild(mark);
  }
  const thumb = document.createElement("div");
  thumb.className = "scrub-thumb";
  thumb.id = "scrub-thumb";
  scrubber.appendChild(thumb);
  updateScrubberPosition();
}

function updateScrubberPosition() {
  const thumb = $("scrub-thumb");
  if (!thumb || !state.height) return;
  const grid = $("grid");
  // The height buildScrubber read (a layout runs it again on resize): reading clientHeight
  // here would force a layout on every render.
  const height = state.scrubberHeight || $("scrubber").clientHeight;
  thumb.style.top = `${grid.scrollTop / Math.max(1, state.height) * height}px`;
}

// Jump so the asset at `index` starts the screen (its section's header above it).
function jumpTo(index) {
  const grid = $("grid");
  const section = sectionOf(index);
  const y = index === section.start ? section.top : itemRect(index).y;
  grid.scrollTop = y;
  // The pages are asked for before the placeholders are built, so the two overlap.
  loadVisible();
  render();
}

function scrubTo(event) {
  const scrubber = $("scrubber");
  const box = scrubber.getBoundingClientRect();
  const fraction = Math.min(1, Math.max(0, (event.clientY - box.top) / box.height));
  const grid = $("grid");
  grid.scrollTop = fraction * state.height;
  const [first] = indexRange(grid.scrollTop, grid.scrollTop + 1);
  const asset = state.assets[first];
  const day = asset ? dayKey(asset) : (state.days.find((d, k) => d.start <= first && (k + 1 === state.days.length || state.days[k + 1].start > first)) || {}).day;
  $("scrub-label").textContent = day ? periodTitle(day.slice(0, 7)) : "";
  $("scrub-label").style.top = `${event.clientY - box.top}px`;
  $("scrub-label").hidden = false;
}

function setUpScrubber() {
  const scrubber = $("scrubber");
  let dragging = false;
  scrubber.addEventListener("pointerdown", event => {
    const mark = event.target.closest("[data-index]");
    if (mark && mark.tagName === "BUTTON") { jumpTo(Number(mark.dataset.index)); event.preventDefault(); return; }
    dragging = true;
    scrubber.setPointerCapture(event.pointerId);
    scrubTo(event);
    event.preventDefault();
  });
  scrubber.addEventListener("pointermove", event => { if (dragging) scrubTo(event); });
  const end = () => { dragging = false; $("scrub-label").hidden = true; };
  scrubber.addEventListener("pointerup", end);
  scrubber.addEventListener("pointercancel", end);
}

function makeTile(asset) {
  const el = document.createElement("button");
  el.className = "tile";
  el.dataset.id = asset.id;
  el.setAttribute("role", "option");
  const img = document.createElement("img");
  img.alt = "";
  img.decoding = "async";
  img.fetchPriority = "low";
  const size = (window.devicePixelRatio || 1) * state.tile > 300 ? 512 : 256;
  img.addEventListener("load", () => img.classList.add("loaded"));
  img.addEventListener("error", () => showTileFailure(el, asset, img.src));
  img.src = thumbnailURL(asset, size);
  el.appendChild(img);
  if (isLive(asset)) el.appendChild(badge("live", "LIVE"));
  if (asset.mediaType === "video" && asset.durationSeconds != null) el.appendChild(badge("duration", formatDuration(asset.durationSeconds)));
  const kind = asset.mediaType === "video" ? "Video" : isLive(asset) ? "Live Photo" : "Photo";
  el.setAttribute("aria-label", `${kind}, ${asset.creationDate ? dayTitle(dayOf(asset)) : "no date"}`);
  el.addEventListener("click", event => clickTile(event, el));
  el.addEventListener("pointerdown", event => dragStart(event, el));
  // The image's own drag (to another app) would swallow a drag-select's moves.
  el.addEventListener("dragstart", event => event.preventDefault());
  el.addEventListener("dblclick", () => openViewer(Number(el.dataset.index)));
  el.addEventListener("focus", () => { state.focus = Number(el.dataset.index); });
  const movie = isLive(asset) ? movieURL(asset) : null;
  if (movie) {
    const play = () => playMovie(el, movie);
    const stop = () => stopMovie(el);
    el.addEventListener("pointerenter", play);
    el.addEventListener("pointerleave", stop);
    el.addEventListener("pointerdown", play);
    el.addEventListener("pointerup", stop);
    el.addEventListener("pointercancel", stop);
  }
  return el;
}

function badge(kind, text) {
  const span = document.createElement("span");
  span.className = `badge ${kind}`;
  span.textContent = text;
  return span;
}

function formatDuration(seconds) {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  return h ? `${h}:${String(m).padStart(2, "0")}:${String(r).padStart(2, "0")}` : `${m}:${String(r).padStart(2, "0")}`;
}

// A tile scrolled out of the page stops loading its thumbnail, so the requests of the
// screen a jump lands on are not queued behind those of the screens it passed.
function cancelThumbnail(el) {
  const img = el.querySelector("img");
  if (img && !img.complete) img.removeAttribute("src");
}

// "No thumbnail" at once; the reason (the error's message, a second request) only when
// the tile is hovered or focused, so a screen of broken files does not ask twice each.
function showTileFailure(el, asset, url) {
  if (!el.isConnected || el.querySelector(".failed")) return;
  const note = document.createElement("div");
  note.className = "failed";
  note.textContent = "No thumbnail";
  el.appendChild(note);
  el.title = note.textContent;
  const explain = async () => {
    el.removeEventListener("pointerenter", explain);
    el.removeEventListener("focus", explain);
    try {
      const response = await fetch(url, { credentials: "same-origin" });
      const body = await response.json();
      note.textContent = body.error.message.replace(/^no thumbnail for asset \S+: /, "");
    } catch (_) { /* keep the short text */ }
    el.title = note.textContent;
  };
  el.addEventListener("pointerenter", explain);
  el.addEventListener("focus", explain);
}

function playMovie(el, url) {
  if (el.querySelector("video")) return;
  const video = document.createElement("video");
  video.muted = true; video.playsInline = true; video.autoplay = true; video.loop = true;
  video.src = url;
  el.appendChild(video);
  video.play().catch(() => {});
}

function stopMovie(el) {
  const video = el.querySelector("video");
  if (video) { video.pause(); video.remove(); }
}

// MARK: Selection

// Click or Ctrl/Cmd-click toggles one item; Shift-click adds the range from the last
// item clicked (the anchor); dragging across tiles adds (or, from a selected tile,
// removes) the items between.
function clickTile(event, el) {
  if (drag.suppressClick) { drag.suppressClick = false; return; }
  const index = Number(el.dataset.index);
  const asset = state.assets[index];
  if (!asset) return;
  state.focus = index;
  if (event.shiftKey && state.anchor != null && config.limit !== 1) selectRange(state.anchor, index);
  else { toggle(asset, el); state.anchor = index; }
}

// Adds every item from `from` to `to` (in that direction, so the order follows it),
// loading what is not yet loaded; past the limit, the rest are refused with a message.
async function selectRange(from, to) {
  const low = Math.min(from, to), high = Math.max(from, to);
  if (high - low >= RANGE_MAX) { announce(`A range selects at most ${RANGE_MAX} items at once.`, true); return; }
  if (!(await ensureLoaded(low, high))) return;
  const step = from <= to ? 1 : -1;
  let refused = 0;
  for (let i = from; i !== to + step; i += step) {
    const asset = state.assets[i];
    if (!asset || state.selected.has(asset.id)) continue;
    if (config.limit && state.selection.length >= config.limit) { refused += 1; continue; }
    state.selection.push(asset.id);
    state.selected.set(asset.id, asset);
  }
  selectionChanged();
  if (refused) announce(`You can select up to ${config.limit} item${config.limit === 1 ? "" : "s"}; ${refused} more were not selected.`, true);
}

const RANGE_MAX = 10000;
const drag = { start: -1, base: null, removing: false, active: false, suppressClick: false, pointer: null, timer: null };

function dragStart(event, el) {
  if (event.pointerType !== "mouse" || event.button !== 0 || event.shiftKey || config.limit === 1) return;
  const index = Number(el.dataset.index);
  const asset = state.assets[index];
  if (!asset) return;
  Object.assign(drag, { start: index, base: state.selection.slice(), removing: state.selected.has(asset.id),
    active: false, pointer: event });
}

function dragMove(event) {
  if (drag.start < 0) return;
  if (!(event.buttons & 1)) { dragEnd(); return; }
  drag.pointer = event;
  const index = tileIndexAt(event.clientX, event.clientY);
  if (index == null || (!drag.active && index === drag.start)) return;
  drag.active = true;
  applyDrag(index);
  const box = $("grid").getBoundingClientRect();
  const edge = event.clientY < box.top + 40 ? -1 : event.clientY > box.bottom - 40 ? 1 : 0;
  clearInterval(drag.timer);
  if (edge) drag.timer = setInterval(() => {
    $("grid").scrollTop += edge * 24;
    render();
    const i = tileIndexAt(drag.pointer.clientX, Math.min(box.bottom - 2, Math.max(box.top + 2, drag.pointer.clientY)));
    if (i != null) applyDrag(i);
  }, 30);
}

function dragEnd() {
  clearInterval(drag.timer);
  if (drag.active) drag.suppressClick = true;
  drag.start = -1; drag.active = false;
  setTimeout(() => { drag.suppressClick = false; }, 0);
}

function tileIndexAt(x, y) {
  const el = document.elementFromPoint(x, y);
  const tile = el && el.closest(".tile");
  return tile && tile.dataset.index ? Number(tile.dataset.index) : null;
}

function applyDrag(index) {
  const low = Math.min(drag.start, index), high = Math.max(drag.start, index);
  const step = drag.start <= index ? 1 : -1;
  const range = [];
  for (let i = drag.start; i !== index + step; i += step) if (state.assets[i]) range.push(state.assets[i]);
  let selection = drag.base.slice();
  if (drag.removing) {
    const out = new Set(range.map(a => a.id));
    selection = selection.filter(id => !out.has(id));
  } else {
    for (const asset of range) {
      if (selection.includes(asset.id)) continue;
      if (config.limit && selection.length >= config.limit) { announce(`You can select up to ${config.limit} items.`, true); break; }
      selection.push(asset.id);
    }
  }
  for (const asset of range) if (selection.includes(asset.id)) state.selected.set(asset.id, asset);
  state.selection = selection;
  for (const id of [...state.selected.keys()]) if (!selection.includes(id)) state.selected.delete(id);
  state.focus = index;
  void low; void high;
  selectionChanged();
}

function toggle(asset, el) {
  if (state.selected.has(asset.id)) {
    state.selected.delete(asset.id);
    state.selection = state.selection.filter(id => id !== asset.id);
  } else if (config.limit === 1) {
    state.selected.clear();
    state.selection = [asset.id];
    state.selected.set(asset.id, asset);
  } else if (config.limit && state.selection.length >= config.limit) {
    refuse(el);
    return;
  } else {
    state.selection.push(asset.id);
    state.selected.set(asset.id, asset);
  }
  selectionChanged();
}

function refuse(el) {
  if (el) { el.classList.remove("refused"); void el.offsetWidth; el.classList.add("refused"); }
  announce(`You can select up to ${config.limit} item${config.limit === 1 ? "" : "s"}.`, true);
}

function selectionChanged() {
  for (const el of rendered.values()) {
    if (el.dataset.id) updateTileSelection(el, state.known.get(el.dataset.id));
  }
  const n = state.selection.length;
  $("selection-count").textContent = n ? `${n}${config.limit > 1 ? ` of ${config.limit}` : ""} selected` : "";
  $("done").disabled = n === 0;
  if (state.viewerIndex >= 0) updateViewerButton();
}

function updateTileSelection(el, asset) {
  if (!asset) return;
  const position = state.selection.indexOf(asset.id);
  const selected = position >= 0 ? "true" : "false";
  if (el.getAttribute("aria-selected") !== selected) el.setAttribute("aria-selected", selected);
  let order = el.querySelector(".order");
  if (position >= 0 && config.limit !== 1 && config.numbered) {
    if (!order) { order = badge("order", ""); el.appendChild(order); }
    order.textContent = String(position + 1);
  } else if (order) {
    order.remove();
  }
}

// Uniform type identifiers of the content types the index records (what PhotosPicker's
// Transferable reports); others fall back to the kind's general type.
const uniformTypes = {
  "image/jpeg": "public.jpeg", "image/heic": "public.heic", "image/heif": "public.heif", "image/png": "public.png",
  "image/gif": "com.compuserve.gif", "image/webp": "org.webmproject.webp", "image/avif": "public.avif",
  "image/tiff": "public.tiff", "image/bmp": "com.microsoft.bmp", "image/jxl": "public.jpeg-xl",
  "image/jp2": "public.jpeg-2000", "image/x-icon": "com.microsoft.ico", "image/x-adobe-dng": "com.adobe.raw-image",
  "video/quicktime": "com.apple.quicktime-movie", "video/mp4": "public.mpeg-4", "video/x-m4v": "com.apple.m4v-video",
  "video/webm": "org.webmproject.webm", "video/x-msvideo": "public.avi", "video/mpeg": "public.mpeg",
};

// One selected asset as Done hands it over: PhotosPicker's fields and absolute URLs, never
// file paths or a GPS position unless the embedding page asked (include=path,location).
function handOff(asset) {
  const primaryRole = asset.mediaType === "video" ? "video" : "photo";
  const primary = asset.resources.find(r => r.role === primaryRole) || asset.resources[0];
  const contentType = primary ? primary.contentType : null;
  const base = `${location.origin}/v1/assets/${encodeURIComponent(asset.id)}`;
  const item = {
    id: asset.id,
    uniformType: uniformTypes[contentType] || (asset.mediaType === "video" ? "public.movie" : "public.image"),
    pixelWidth: asset.pixelWidth, pixelHeight: asset.pixelHeight, duration: asset.durationSeconds,
    isOriginalFile: !asset.hasAdjustments,
    urls: {
      original: `${base}/resources/primary`,
      compatible: `${base}/resources/primary?representation=compatible`,
      thumbnail: `${base}/thumbnail?size=512&rev=${asset.revision}`,
    },
  };
  if (config.include.has("path")) item.resources = asset.resources.map(r => ({ role: r.role, path: r.path }));
  if (config.include.has("location")) item.location = asset.location;
  return item;
}

// Hands a message to `mediaindex pick`, which takes one; says so on the page.
async function sendToPick(message) {
  try {
    const response = await fetch(`/v1/pick/${encodeURIComponent(config.pick)}`, {
      method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(message),
    });
    announce(response.ok ? "Sent to the application; you can close this tab." : `Not sent (HTTP ${response.status}).`);
  } catch (error) {
    announce(`Not sent: ${error.message}`);
  }
}

function done() {
  const assets = state.selection.map(id => state.selected.get(id)).filter(Boolean).map(handOff);
  const message = { type: "mediaindex.selection", assets };
  if (config.pick) { sendToPick(message); return; }
  const target = window.opener && !window.opener.closed ? window.opener : window.parent !== window ? window.parent : null;
  if (target) {
    target.postMessage(message, config.targetOrigin);
    announce(`Sent ${assets.length} item${assets.length === 1 ? "" : "s"}.`);
    if (window.opener) window.close();
    return;
  }
  $("result-json").textContent = JSON.stringify(message, null, 2);
  $("result").hidden = false;
  $("result-close").focus();
}

function cancel() {
  if (config.pick) { sendToPick({ type: "mediaindex.cancel" }); return; }
  const target = window.opener && !window.opener.closed ? window.opener : window.parent !== window ? window.parent : null;
  if (target) {
    target.postMessage({ type: "mediaindex.cancel" }, config.targetOrigin);
    if (window.opener) window.close();
    return;
  }
  state.selection = []; state.selected.clear();
  selectionChanged();
}

async function loadPreselected() {
  for (const id of config.preselected) {
    if (config.limit && state.selection.length >= config.limit) break;
    try {
      const asset = await api(`/v1/assets/${encodeURIComponent(id)}`);
      if (!state.selected.has(asset.id)) { state.selection.push(asset.id); state.selected.set(asset.id, asset); }
    } catch (error) {
      announce(`A preselected item is not in the library: ${id}`, true);
    }
  }
  selectionChanged();
}

// MARK: Keyboard

// Arrows move, Shift+arrows extend the selection, Space toggles, Enter opens full
// screen, Home/End and Page Up/Down jump, Escape clears the selection (a second
// Escape cancels, as the Cancel button).
function moveFocus(delta, extend = false) {
  if (!state.total) return;
  const from = state.focus;
  state.focus = Math.max(0, Math.min(state.total - 1, state.focus + delta));
  if (extend && config.limit !== 1) {
    if (state.anchor == null) state.anchor = from;
    selectRange(from, state.focus);
  }
  focusTile(state.focus);
}

function focusTile(index) {
  const grid = $("grid");
  const rect = itemRect(index);
  if (rect.y < grid.scrollTop + HEADER_HEIGHT) grid.scrollTop = Math.max(0, rect.y - HEADER_HEIGHT);
  else if (rect.y + rect.h > grid.scrollTop + grid.clientHeight) grid.scrollTop = rect.y + rect.h - grid.clientHeight;
  render();
  const el = [...rendered.values()].find(e => e.dataset.index === String(index));
  if (el) el.focus({ preventScroll: true });
  if (!state.assets[index]) ensureLoaded(index, index).then(() => { render(); if (state.focus === index) focusTile(index); });
}

function rowDelta(index, direction) {
  // Up and down move to the item nearest below or above (sections may share a line).
  const rect = itemRect(index);
  const centre = rect.x + rect.w / 2;
  for (let y = direction > 0 ? rect.y + rect.h + GAP + 1 : rect.y - GAP - 1, n = 0;
       n < 200 && y >= 0 && y <= state.height; y += direction * 4, n++) {
    let best = null;
    for (let s = sectionAt(y); s < state.sections.length && state.sections[s].top <= y; s++) {
      for (const row of rowsBetween(state.sections[s], y, y)) {
        for (const item of row.items) {
          const distance = Math.abs(item.x + item.w / 2 - centre);
          if (!best || distance < best.distance) best = { index: item.index, distance };
        }
      }
    }
    if (best) return best.index - index;
  }
  return 0;
}

function onGridKey(event) {
  const el = event.target.closest(".tile");
  if (!el) return;
  const index = Number(el.dataset.index);
  const asset = state.assets[index];
  const page = Math.max(1, Math.floor($("grid").clientHeight / (state.tile + GAP))) * state.columns;
  switch (event.key) {
    case "ArrowRight": moveFocus(1, event.shiftKey); break;
    case "ArrowLeft": moveFocus(-1, event.shiftKey); break;
    case "ArrowDown": moveFocus(rowDelta(index, 1), event.shiftKey); break;
    case "ArrowUp": moveFocus(rowDelta(index, -1), event.shiftKey); break;
    case "PageDown": moveFocus(page, event.shiftKey); break;
    case "PageUp": moveFocus(-page, event.shiftKey); break;
    case "Home": state.focus = 0; focusTile(0); break;
    case "End": state.focus = state.total - 1; focusTile(state.focus); break;
    case " ":
      if (!asset) break;
      if (event.shiftKey && state.anchor != null && config.limit !== 1) selectRange(state.anchor, index);
      else { toggle(asset, el); state.anchor = index; }
      break;
    case "Enter": if (asset) openViewer(index); break;
    case "Escape":
      if (state.selection.length) { state.selection = []; state.selected.clear(); state.anchor = null; selectionChanged(); announce("Selection cleared."); }
      else cancel();
      break;
    default: return;
  }
  event.preventDefault();
}

// MARK: Full screen

function openViewer(index) {
  if (index < 0 || index >= state.assets.length) return;
  state.viewerIndex = index;
  $("viewer").hidden = false;
  showViewerAsset();
  $("viewer-close").focus();
}

function closeViewer() {
  const index = state.viewerIndex;
  state.viewerIndex = -1;
  $("viewer").hidden = true;
  $("viewer-stage").replaceChildren();
  if (index >= 0) { state.focus = index; focusTile(index); }
}

function stepViewer(delta) {
  const next = state.viewerIndex + delta;
  if (next < 0 || next >= state.assets.length) return;
  if (!state.assets[next]) { ensureLoaded(next, next).then(ok => { if (ok && state.viewerIndex >= 0) stepViewer(delta); }); return; }
  state.viewerIndex = next;
  showViewerAsset();
  if (next > state.assets.length - 10) loadPage();
}

function showViewerAsset() {
  const asset = state.assets[state.viewerIndex];
  const stage = $("viewer-stage");
  stage.replaceChildren();
  if (asset.mediaType === "video") {
    const video = document.createElement("video");
    video.controls = true; video.playsInline = true; video.preload = "metadata";
    video.poster = thumbnailURL(asset, 1024, "fit");
    stage.appendChild(video);
    playCompatible(video, resourceURL(asset, "primary") + "?representation=compatible", stage, true);
  } else {
    const img = document.createElement("img");
    img.alt = asset.resources.length ? asset.resources[0].path.split("/").pop() : asset.id;
    img.src = thumbnailURL(asset, 2048, "fit");
    stage.appendChild(img);
    const movie = isLive(asset) ? movieURL(asset) : null;
    if (movie) {
      const video = document.createElement("video");
      video.muted = true; video.playsInline = true; video.hidden = true;
      stage.appendChild(video);
      playCompatible(video, movie, stage, false);
      const play = () => { img.hidden = true; video.hidden = false; video.currentTime = 0; video.play().catch(() => {}); };
      const stop = () => { video.pause(); video.hidden = true; img.hidden = false; };
      stage.onpointerdown = play; stage.onpointerup = stop; stage.onpointercancel = stop;
      video.onended = stop;
    } else {
      stage.onpointerdown = null; stage.onpointerup = null; stage.onpointercancel = null;
    }
  }
  const date = asset.creationDate ? dayTitle(dayOf(asset)) : "No date";
  $("viewer-caption").textContent = `${date} · ${state.viewerIndex + 1} of ${state.assets.length}${state.exhausted ? "" : "+"}`;
  $("viewer-prev").disabled = state.viewerIndex === 0;
  $("viewer-next").disabled = state.viewerIndex >= state.assets.length - 1;
  updateViewerButton();
}

// A movie plays through its compatible rendition (docs/renditions.md): a 206 to a
// one-byte probe means it is ready (as it is, or as H.264); 202 means ffmpeg is making it,
// shown as a notice with the progress and asked again after Retry-After; 415 (no ffmpeg)
// or 422 (a file that cannot be converted) keeps the poster with a notice saying so.
// `announce` false (a live photo's movie) waits silently.
async function playCompatible(video, url, stage, announce) {
  const notice = document.createElement("p");
  notice.className = "viewer-notice"; notice.setAttribute("role", "status");
  const say = text => { if (!announce) return; notice.textContent = text; if (!notice.isConnected) stage.appendChild(notice); };
  while (stage.contains(video)) {
    let response;
    try { response = await fetch(url, { headers: { Range: "bytes=0-0" } }); } catch { say("The video could not be loaded."); return; }
    if (!stage.contains(video)) return;  // the viewer moved on
    if (response.status === 200 || response.status === 206) {
      notice.remove();
      video.dataset.rendition = "ready";
      video.src = url;
      return;
    }
    const body = await response.json().catch(() => ({}));
    if (response.status === 202) {
      const percent = body.progress != null ? ` (${Math.round(body.progress * 100)} %)` : "";
      say(`Preparing this video for the browser${percent}…`);
      const wait = Math.min(5, Math.max(0.5, Number(response.headers.get("Retry-After")) || 1));
      await new Promise(resolve => setTimeout(resolve, wait * 1000));
      continue;
    }
    video.dataset.rendition = "unavailable";
    const message = body.error && body.error.message;
    say(response.status === 415 ? "This video needs ffmpeg to play in the browser; it is not installed. The poster frame is shown."
      : message ? `This video cannot be played: ${message}` : "This video cannot be played.");
    return;
  }
}

function updateViewerButton() {
  const asset = state.assets[state.viewerIndex];
  if (!asset) return;
  const selected = state.selected.has(asset.id);
  $("viewer-select").textContent = selected ? "Deselect" : "Select";
  $("viewer-select").setAttribute("aria-pressed", selected ? "true" : "false");
}

function swipeable(element) {
  let startX = null, startY = 0;
  element.addEventListener("touchstart", e => { startX = e.touches[0].clientX; startY = e.touches[0].clientY; }, { passive: true });
  element.addEventListener("touchend", e => {
    if (startX === null) return;
    const dx = e.changedTouches[0].clientX - startX, dy = e.changedTouches[0].clientY - startY;
    startX = null;
    if (Math.abs(dx) > 50 && Math.abs(dx) > Math.abs(dy)) stepViewer(dx < 0 ? 1 : -1);
  });
}

// MARK: Albums

async function showAlbums() {
  const list = $("album-list");
  $("albums-state").textContent = "Loading albums…";
  try {
    const albums = await api("/v1/albums");
    $("albums-state").textContent = albums.length ? "" : "No albums.";
    list.replaceChildren();
    const section = (title, items, build) => {
      if (!items.length) return;
      const s = document.createElement("div");
      s.className = "album-section";
      const h = document.createElement("h2");
      h.textContent = title;
      s.append(h, build(items));
      list.appendChild(s);
    };
    const cards = items => {
      const grid = document.createElement("div");
      grid.className = "album-grid";
      for (const album of items) grid.appendChild(albumCard(album));
      return grid;
    };
    section("Library", albums.filter(a => a.kind === "smart" && (a.id !== "smart.hidden" || config.includeHidden)), cards);
    section("Places", albums.filter(a => a.kind === "place"), placeTree);
    section("My Albums", albums.filter(a => a.kind === "user"), cards);
    section("Folders", albums.filter(a => a.kind === "folder"), folderTree);
  } catch (error) {
    $("albums-state").textContent = `Could not load albums: ${error.message}`;
  }
}

function albumCover(album) {
  const img = document.createElement("img");
  img.alt = "";
  if (album.keyAssetId) {
    img.src = `/v1/assets/${encodeURIComponent(album.keyAssetId)}/thumbnail?size=256&mode=fill`;
    img.addEventListener("error", () => img.remove());
  }
  return img;
}

function albumCard(album) {
  const button = document.createElement("button");
  button.className = "album";
  button.dataset.albumId = album.id;
  const cover = document.createElement("div");
  cover.className = "cover";
  if (album.keyAssetId) cover.appendChild(albumCover(album));
  const title = document.createElement("span");
  title.className = "title";
  title.textContent = album.title;
  const count = document.createElement("span");
  count.className = "count";
  count.textContent = String(album.count);
  button.append(cover, title, count);
  button.setAttribute("aria-label", `${album.title}, ${album.count} items`);
  button.addEventListener("click", () => openAlbum(album));
  return button;
}

// One line of a tree of albums (folders, places): cover, label and count; opens the album.
function albumRow(album, label) {
  const row = document.createElement("button");
  row.className = "folder-row";
  row.dataset.albumId = album.id;
  const thumb = album.keyAssetId ? albumCover(album) : document.createElement("span");
  thumb.classList.add("thumb");
  const title = document.createElement("span");
  title.textContent = label;
  const count = document.createElement("span");
  count.className = "count";
  count.textContent = String(album.count);
  row.append(thumb, title, count);
  row.addEventListener("click", () => openAlbum(album));
  return row;
}

function folderTree(folders) {
  const children = new Map();
  const ids = new Set(folders.map(f => f.id));
  for (const folder of folders) {
    const parent = folder.parentId && ids.has(folder.parentId) ? folder.parentId : "";
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(folder);
  }
  const build = (parent, depth) => {
    const ul = document.createElement("ul");
    ul.className = "folder-tree";
    for (const folder of children.get(parent) || []) {
      const li = document.createElement("li");
      const row = albumRow(folder, depth === 0 && folder.path ? folder.path : folder.title);
      li.appendChild(row);
      if (children.has(folder.id) && depth < 64) li.appendChild(build(folder.id, depth + 1));
      ul.appendChild(li);
    }
    return ul;
  };
  return build("", 0);
}

// The Places family: Places and its countries come with the album list; a country's
// regions and a region's cities are fetched when their row is opened (`/v1/albums?in=`).
function placeTree(places) {
  const byParent = new Map();
  for (const place of places) {
    const parent = place.parentId || "";
    if (!byParent.has(parent)) byParent.set(parent, []);
    byParent.get(parent).push(place);
  }
  const build = items => {
    const ul = document.createElement("ul");
    ul.className = "folder-tree place-tree";
    for (const place of items) ul.appendChild(placeRow(place, byParent.get(place.id), build));
    return ul;
  };
  return build(byParent.get("") || []);
}

function placeRow(place, known, build) {
  const li = document.createElement("li");
  const row = albumRow(place, place.title);
  row.classList.add("place-row");
  li.appendChild(row);
  // A city (place.CC.REGION.ID) holds nothing below it.
  if (place.id.split(".").length < 4) {
    const more = document.createElement("button");
    more.className = "place-expand";
    more.textContent = "▸";
    more.dataset.albumId = place.id;
    more.setAttribute("aria-expanded", "false");
    more.setAttribute("aria-label", `Places in ${place.title}`);
    let sub = null;
    more.addEventListener("click", async () => {
      if (!sub) {
        try { sub = build(known || await api(`/v1/albums?in=${encodeURIComponent(place.id)}`)); }
        catch (error) { announce(`Could not load places: ${error.message}`, true); return; }
        li.appendChild(sub);
      } else {
        sub.hidden = !sub.hidden;
      }
      more.setAttribute("aria-expanded", String(!sub.hidden));
      more.textContent = sub.hidden ? "▸" : "▾";
    });
    li.insertBefore(more, row);
  }
  return li;
}

function openAlbum(album) {
  if (album.id === "smart.hidden" && !config.includeHidden) return;
  state.album = album;
  $("album-title").textContent = album.title;
  $("album-header").hidden = false;
  $("album-groups").hidden = !groupKind(album);
  toggleGroups(false);
  selectTab("photos", false);
  reset();
}

// MARK: Duplicate and similar groups, side by side

/// The kind of group an album shows (`duplicate`, `similar`), or null.
function groupKind(album) {
  return album && { "smart.duplicates": "duplicate", "smart.similar": "similar" }[album.id] || null;
}

/// Shows the album's groups side by side instead of its grid, or the grid again.
function toggleGroups(show) {
  $("album-groups").setAttribute("aria-pressed", String(show));
  $("groups").hidden = !show;
  $("photos").hidden = show;
  if (show) showGroups(groupKind(state.album));
  else requestAnimationFrame(layout);
}

async function showGroups(kind) {
  const list = $("group-list");
  list.replaceChildren();
  $("groups-state").textContent = "Loading groups…";
  try {
    const answer = await api(`/v1/duplicates?kind=${encodeURIComponent(kind)}`);
    $("groups-state").textContent = answer.groups.length ? "" : "No groups.";
    for (const group of answer.groups) list.appendChild(groupRow(group));
  } catch (error) {
    $("groups-state").textContent = `Could not load groups: ${error.message}`;
  }
}

/// One group: its members side by side, the keeper first and marked with the rule that
/// chose it, each other member with what it has that the keeper lacks (what resolving
/// copies onto the keeper).
function groupRow(group) {
  const row = document.createElement("div");
  row.className = "dup-group";
  row.dataset.group = group.group;
  const title = document.createElement("h2");
  title.textContent = group.keep
    ? `${group.assets.length} copies · keep: ${group.reasons.keep}`
    : `${group.assets.length} similar shots · pick the best`;
  const members = document.createElement("div");
  members.className = "dup-members";
  const extras = (group.reasons && group.reasons.extras) || {};
  for (const id of group.assets) {
    const figure = document.createElement("figure");
    figure.className = "dup-member";
    figure.dataset.assetId = id;
    const img = document.createElement("img");
    img.alt = "";
    img.loading = "lazy";
    img.src = `/v1/assets/${encodeURIComponent(id)}/thumbnail?size=256`;
    const caption = document.createElement("figcaption");
    if (id === group.keep) {
      figure.classList.add("keeper");
      caption.textContent = `Keep: ${group.reasons.keep}`;
    } else if (group.keep) {
      caption.textContent = extras[id] && extras[id].length ? `Has: ${extras[id].join(", ")}` : "Nothing the keeper lacks";
    }
    figure.append(img, caption);
    members.appendChild(figure);
  }
  row.append(title, members);
  return row;
}

function closeAlbum() {
  state.album = null;
  $("album-header").hidden = true;
  selectTab("albums");
  reset();
}

function selectTab(name, loadAlbums = true) {
  const photos = name === "photos";
  $("tab-photos").setAttribute("aria-selected", String(photos));
  $("tab-albums").setAttribute("aria-selected", String(!photos));
  $("photos").hidden = !photos;
  $("albums").hidden = photos;
  $("groups").hidden = true;
  $("album-groups").setAttribute("aria-pressed", "false");
  $("chips").hidden = !photos;
  if (!photos) { $("album-header").hidden = true; if (loadAlbums) showAlbums(); }
  else if (state.album) $("album-header").hidden = false;
  if (photos) requestAnimationFrame(layout);
}

// MARK: Chips, messages

function buildChips() {
  for (const [title, name] of CHIPS) {
    const chip = document.createElement("button");
    chip.textContent = title;
    chip.dataset.filter = name;
    chip.setAttribute("aria-pressed", "false");
    chip.addEventListener("click", () => {
      if (state.chips.has(name)) state.chips.delete(name); else state.chips.add(name);
      chip.setAttribute("aria-pressed", String(state.chips.has(name)));
      reset();
    });
    $("chips").appendChild(chip);
  }
}

let toastTimer = null;
function announce(text, visible = false) {
  const toast = $("toast");
  toast.textContent = text;
  toast.hidden = false;
  toast.dataset.kind = visible ? "refusal" : "info";
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { toast.hidden = true; }, 2500);
}

function showGridState(text, retry = false) {
  const el = $("grid-state");
  el.replaceChildren(document.createTextNode(text));
  if (retry) {
    const button = document.createElement("button");
    button.textContent = "Try again";
    button.addEventListener("click", () => { state.failed = null; state.total ? loadVisible() : loadTimeline(); });
    el.append(document.createElement("br"), button);
  }
}

// MARK: Search box
// A search field with suggestions (GET /v1/search/suggestions, debounced). Its query narrows
// the grid through query() like the chips do; the selection and its limit stay as they are.

const searchBox = { query: "", suggestTimer: null, searchTimer: null, suggestGeneration: 0 };

function buildSearchBox() {
  const input = $("search"), list = $("search-suggestions");
  input.addEventListener("input", () => {
    clearTimeout(searchBox.suggestTimer);
    clearTimeout(searchBox.searchTimer);
    searchBox.suggestTimer = setTimeout(() => suggest(input.value, list), 150);
    searchBox.searchTimer = setTimeout(() => runSearch(input.value), 400);
  });
  input.addEventListener("keydown", event => {
    if (event.key === "Enter") { clearTimeout(searchBox.searchTimer); runSearch(input.value); }
    else if (event.key === "Escape" && input.value) { input.value = ""; runSearch(""); event.stopPropagation(); }
  });
  input.addEventListener("search", () => { clearTimeout(searchBox.searchTimer); runSearch(input.value); });
}

// The suggestions complete the last word: each option is the query with that word replaced.
async function suggest(text, list) {
  const generation = ++searchBox.suggestGeneration;
  if (!text.trim() || /\s$/.test(text)) { list.replaceChildren(); return; }
  try {
    const answer = await api(`/v1/search/suggestions?q=${encodeURIComponent(text)}&limit=8`);
    if (generation !== searchBox.suggestGeneration) return;
    const head = text.replace(/\S+$/, "");
    const negated = /(^|\s)-\S*$/.test(text) ? "-" : "";
    list.replaceChildren(...answer.suggestions.map(s => {
      const option = document.createElement("option");
      option.value = head + negated + s.term + (s.kind === "field" ? "" : " ");
      option.label = s.count == null ? s.text : `${s.text} (${s.count})`;
      option.dataset.kind = s.kind;
      return option;
    }));
  } catch (_) { list.replaceChildren(); }
}

function runSearch(text) {
  const query = text.trim();
  if (query === searchBox.query) return;
  searchBox.query = query;
  reset();
}

// Square or justified tiles, and headers by day, month or year: the user's choice, kept.
function setUpViewOptions() {
  for (const [id, key, value] of [["layout-mode", "layout", "layoutMode"], ["group-mode", "group", "groupMode"]]) {
    const select = $(id);
    select.value = state[value];
    select.addEventListener("change", () => {
      state[value] = select.value;
      localStorage.setItem(`mediaindex.${key}`, select.value);
      for (const el of rendered.values()) el.remove();
      rendered.clear();
      layout();
    });
  }
}

// MARK: Start

function start() {
  // The timeline is asked for first: the rest of the set-up runs while it is on its way.
  loadTimeline();
  buildChips();
  buildSearchBox();
  $("tab-photos").addEventListener("click", () => selectTab("photos"));
  $("tab-albums").addEventListener("click", () => selectTab("albums"));
  $("album-back").addEventListener("click", closeAlbum);
  $("album-groups").addEventListener("click", () => toggleGroups($("groups").hidden));
  $("done").addEventListener("click", done);
  $("cancel").addEventListener("click", cancel);
  $("result-close").addEventListener("click", () => { $("result").hidden = true; });
  $("viewer-close").addEventListener("click", closeViewer);
  $("viewer-prev").addEventListener("click", () => stepViewer(-1));
  $("viewer-next").addEventListener("click", () => stepViewer(1));
  $("viewer-select").addEventListener("click", () => {
    const asset = state.assets[state.viewerIndex];
    if (asset) toggle(asset, null);
  });
  swipeable($("viewer"));
  setUpScrubber();
  setUpViewOptions();
  document.addEventListener("pointermove", dragMove);
  document.addEventListener("pointerup", dragEnd);
  const grid = $("grid");
  grid.addEventListener("scroll", () => requestAnimationFrame(render), { passive: true });
  grid.addEventListener("keydown", onGridKey);
  window.addEventListener("resize", () => requestAnimationFrame(layout));
  document.addEventListener("keydown", event => {
    if (!$("viewer").hidden) {
      if (event.key === "ArrowRight") stepViewer(1);
      else if (event.key === "ArrowLeft") stepViewer(-1);
      else if (event.key === "Escape") closeViewer();
      else if (event.key === " " && event.target === document.body) $("viewer-select").click();
      else return;
      event.preventDefault();
    } else if (!$("result").hidden && event.key === "Escape") {
      $("result").hidden = true;
    }
  });
  if (config.limit === 1) $("grid").setAttribute("aria-multiselectable", "false");
  loadPreselected();
  layout();
  listenForChanges();
  // The browser's date formatting loads its locale data on first use (about 100 ms on a
  // cold page): done here, while the timeline is on its way, not when the headers need it.
  dayTitle(new Date().toISOString().slice(0, 10));
}

start();
