// The MediaIndex web picker: PhotosPicker for a browser. Plain JavaScript, no dependencies.
// URL parameters: limit=N (selection limit; 1 is single selection), filter=EXPR (a preset
// filter in the CLI's grammar), preselected=ID,ID, origin=ORIGIN (postMessage target).
"use strict";

const params = new URLSearchParams(location.search);
const config = {
  limit: Math.max(0, parseInt(params.get("limit") || "0", 10) || 0),
  filter: params.get("filter") || "",
  preselected: (params.get("preselected") || "").split(",").map(s => s.trim()).filter(Boolean),
  // The server names the one origin the selection may go to (--picker-origin), else this page's own; never any origin.
  // What Done may hand over beyond PhotosPicker's fields: include=path,location.
  // The Hidden album is offered only to a page opened with includeHidden=1.
  includeHidden: params.get("includeHidden") === "1",
  include: new Set((params.get("include") || "").split(",").map(s => s.trim()).filter(Boolean)),
  targetOrigin: (o => !o || o === "self" ? location.origin : o)(document.querySelector('meta[name="mediaindex-target-origin"]')?.content),
};
const PAGE = 200;
const HEADER_HEIGHT = 36;
// PHPickerFilter's names, with the MediaIndex filter each stands for.
const CHIPS = [
  ["Images", "images"], ["Videos", "videos"], ["Live Photos", "livePhotos"], ["Screenshots", "screenshots"],
  ["Panoramas", "panoramas"], ["Bursts", "bursts"], ["Slo-mo", "slomoVideos"], ["Time-lapse", "timelapseVideos"],
  ["Depth Effect", "depthEffectPhotos"], ["Screen Recordings", "screenRecordings"], ["Cinematic", "cinematicVideos"],
  ["Spatial", "spatialMedia"], ["Selfies", "selfies"], ["RAW", "raw"], ["Animated", "animated"], ["HDR", "hdr"],
];

const $ = id => document.getElementById(id);
const state = {
  assets: [], known: new Map(), nextCursor: null, loading: false, failed: null, exhausted: false,
  chips: new Set(), album: null, rows: [], rowTops: [], columns: 4, tile: 100, focus: 0,
  selection: [], selected: new Map(), generation: 0, viewerIndex: -1,
};

// MARK: API

async function api(path, options = {}) {
  const response = await fetch(path, { credentials: "same-origin", ...options,
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
  if (asset.embeddedVideo) return resourceURL(asset, "embeddedVideo");
  return null;
}

const isLive = a => a.mediaSubtypes.includes("livePhoto") || a.mediaSubtypes.includes("motionPhoto");

// MARK: Loading

async function loadPage() {
  if (state.loading || state.exhausted) return;
  state.loading = true;
  const generation = state.generation;
  showGridState(state.assets.length ? "" : "Loading…");
  try {
    const q = query();
    q.set("limit", String(PAGE));
    if (state.nextCursor) q.set("after", state.nextCursor);
    const page = await api(`/v1/assets?${q}`);
    if (generation !== state.generation) return;
    for (const asset of page.assets) addAsset(asset, false);
    state.nextCursor = page.nextCursor;
    state.exhausted = !page.nextCursor;
    state.failed = null;
    showGridState(state.assets.length ? "" : "No photos or videos match.");
    layout();
  } catch (error) {
    if (generation !== state.generation) return;
    state.failed = error.message;
    showGridState(`Could not load the library: ${error.message}`, true);
  } finally {
    if (generation === state.generation) state.loading = false;
  }
}

function addAsset(asset, atTop) {
  if (state.known.has(asset.id)) { Object.assign(state.known.get(asset.id), asset); return false; }
  state.known.set(asset.id, asset);
  if (atTop) state.assets.unshift(asset); else state.assets.push(asset);
  return true;
}

function reset() {
  state.generation += 1;
  state.assets = []; state.known = new Map(); state.nextCursor = null; state.exhausted = false;
  state.loading = false; state.focus = 0; state.failed = null;
  for (const el of rendered.values()) el.remove();
  rendered.clear();
  $("grid").scrollTop = 0;
  layout();
  loadPage();
}

// New assets at the top without a reload: refetch the newest page and put the unknown ones first.
async function refreshNewest() {
  try {
    const q = query();
    q.set("limit", String(PAGE));
    const page = await api(`/v1/assets?${q}`);
    let added = 0;
    for (const asset of page.assets.slice().reverse()) if (addAsset(asset, true)) added += 1;
    if (added) {
      // Newest first: keep the order the server gives for everything loaded.
      const order = new Map(page.assets.map((a, i) => [a.id, i]));
      const top = state.assets.filter(a => order.has(a.id)).sort((a, b) => order.get(a.id) - order.get(b.id));
      const rest = state.assets.filter(a => !order.has(a.id));
      state.assets = top.concat(rest);
      layout();
      announce(`${added} new item${added === 1 ? "" : "s"}`);
    }
  } catch (_) { /* the next event tries again */ }
}

// Deletions, edits and moves: read again as many assets as are loaded, keeping the selection.
async function reloadLoaded() {
  const generation = state.generation;
  const wanted = Math.max(PAGE, state.assets.length);
  const assets = [];
  let cursor = null;
  try {
    while (assets.length < wanted) {
      const q = query();
      q.set("limit", String(Math.min(1000, wanted - assets.length)));
      if (cursor) q.set("after", cursor);
      const page = await api(`/v1/assets?${q}`);
      assets.push(...page.assets);
      cursor = page.nextCursor;
      if (!cursor) break;
    }
  } catch (_) { return; }
  if (generation !== state.generation) return;
  state.assets = assets;
  state.known = new Map(assets.map(a => [a.id, a]));
  state.nextCursor = cursor;
  state.exhausted = !cursor;
  for (const el of rendered.values()) el.remove();
  rendered.clear();
  layout();
}

function listenForChanges() {
  let timer = null;
  let reload = false;
  const refresh = counts => {
    // Only insertions: put the new ones on top. Anything else: read the loaded range again.
    if (counts && Object.keys(counts).some(kind => kind !== "inserted")) reload = true;
    clearTimeout(timer);
    timer = setTimeout(() => { const whole = reload; reload = false; (whole ? reloadLoaded : refreshNewest)(); }, 150);
  };
  if (window.EventSource) {
    const events = new EventSource("/v1/events");
    events.addEventListener("changes", event => {
      let counts = null;
      try { counts = JSON.parse(event.data).counts; } catch (_) { /* treat as a reload */ }
      refresh(counts || { unknown: 1 });
    });
    return;
  }
  (async function poll() {
    let token = (await api("/v1/changes").catch(() => ({ currentToken: 0 }))).currentToken;
    for (;;) {
      try {
        const result = await api(`/v1/changes?since=${token}&wait=55`);
        if (result.changes.length) refresh(Object.fromEntries(result.changes.map(c => [c.kind, 1])));
        token = result.currentToken;
      } catch (_) {
        await new Promise(r => setTimeout(r, 5000));
        token = (await api("/v1/changes").catch(() => ({ currentToken: token }))).currentToken;
      }
    }
  })();
}

// MARK: Layout (virtualised: only the rows on screen are in the page)

function dayOf(asset) {
  return asset.creationDate ? asset.creationDate.slice(0, 10) : "";
}

function dayTitle(day) {
  if (!day) return "No date";
  const date = new Date(`${day}T12:00:00`);
  return isNaN(date) ? day : date.toLocaleDateString(undefined, { weekday: "short", year: "numeric", month: "long", day: "numeric" });
}

function layout() {
  const grid = $("grid");
  const width = grid.clientWidth || window.innerWidth;
  const minimum = width < 600 ? 88 : 120;
  state.columns = Math.max(3, Math.floor(width / minimum));
  state.tile = Math.floor((width - (state.columns - 1) * 2) / state.columns);
  const rows = [], tops = [];
  let y = 0, index = 0;
  while (index < state.assets.length) {
    const day = dayOf(state.assets[index]);
    rows.push({ kind: "header", day }); tops.push(y); y += HEADER_HEIGHT;
    while (index < state.assets.length && dayOf(state.assets[index]) === day) {
      const start = index;
      while (index < state.assets.length && index - start < state.columns && dayOf(state.assets[index]) === day) index += 1;
      rows.push({ kind: "tiles", start, end: index }); tops.push(y); y += state.tile + 2;
    }
  }
  state.rows = rows; state.rowTops = tops;
  $("grid-space").style.height = `${y}px`;
  render();
}

function firstRowAt(y) {
  let low = 0, high = state.rowTops.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (state.rowTops[mid] <= y) low = mid; else high = mid - 1;
  }
  return low;
}

const rendered = new Map(); // key -> element

function render() {
  const grid = $("grid");
  const top = grid.scrollTop, bottom = top + grid.clientHeight;
  const overscan = grid.clientHeight;
  const wanted = new Set();
  if (state.rows.length) {
    for (let r = firstRowAt(Math.max(0, top - overscan)); r < state.rows.length && state.rowTops[r] < bottom + overscan; r++) {
      const row = state.rows[r];
      if (row.kind === "header") {
        const key = `h${row.day}|${r}`;
        wanted.add(key);
        let el = rendered.get(key);
        if (!el) {
          el = document.createElement("div");
          el.className = "date-header";
          el.setAttribute("role", "rowheader");
          el.textContent = dayTitle(row.day);
          $("grid-space").appendChild(el);
          rendered.set(key, el);
        }
        el.style.top = `${state.rowTops[r]}px`;
      } else {
        for (let i = row.start; i < row.end; i++) {
          const asset = state.assets[i];
          const key = `a${asset.id}`;
          wanted.add(key);
          let el = rendered.get(key);
          if (!el) { el = makeTile(asset); $("grid-space").appendChild(el); rendered.set(key, el); }
          el.dataset.index = String(i);
          const column = i - row.start;
          Object.assign(el.style, { top: `${state.rowTops[r]}px`, left: `${column * (state.tile + 2)}px`,
            width: `${state.tile}px`, height: `${state.tile}px` });
          el.tabIndex = i === state.focus ? 0 : -1;
          updateTileSelection(el, asset);
        }
      }
    }
  }
  for (const [key, el] of rendered) {
    if (!wanted.has(key) && el !== document.activeElement) { el.remove(); rendered.delete(key); }
  }
  const last = state.rows.length ? state.rowTops[state.rowTops.length - 1] : 0;
  if (!state.exhausted && !state.loading && !state.failed && last < bottom + 2 * overscan) loadPage();
}

function makeTile(asset) {
  const el = document.createElement("button");
  el.className = "tile";
  el.dataset.id = asset.id;
  el.setAttribute("role", "gridcell");
  const img = document.createElement("img");
  img.alt = "";
  img.decoding = "async";
  const size = (window.devicePixelRatio || 1) * state.tile > 300 ? 512 : 256;
  img.addEventListener("load", () => img.classList.add("loaded"));
  img.addEventListener("error", () => showTileFailure(el, asset, img.src));
  img.src = thumbnailURL(asset, size);
  el.appendChild(img);
  if (isLive(asset)) el.appendChild(badge("live", "LIVE"));
  if (asset.mediaType === "video" && asset.durationSeconds != null) el.appendChild(badge("duration", formatDuration(asset.durationSeconds)));
  const kind = asset.mediaType === "video" ? "Video" : isLive(asset) ? "Live Photo" : "Photo";
  el.setAttribute("aria-label", `${kind}, ${asset.creationDate ? dayTitle(dayOf(asset)) : "no date"}`);
  el.addEventListener("click", () => toggle(asset, el));
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

async function showTileFailure(el, asset, url) {
  if (el.querySelector(".failed")) return;
  const note = document.createElement("div");
  note.className = "failed";
  note.textContent = "No thumbnail";
  el.appendChild(note);
  try {
    const response = await fetch(url, { credentials: "same-origin" });
    const body = await response.json();
    note.textContent = body.error.message.replace(/^no thumbnail for asset \S+: /, "");
  } catch (_) { /* keep the short text */ }
  el.title = note.textContent;
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
  el.setAttribute("aria-selected", position >= 0 ? "true" : "false");
  let order = el.querySelector(".order");
  if (position >= 0 && config.limit !== 1) {
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

function done() {
  const assets = state.selection.map(id => state.selected.get(id)).filter(Boolean).map(handOff);
  const message = { type: "mediaindex.selection", assets };
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

function moveFocus(delta) {
  if (!state.assets.length) return;
  state.focus = Math.max(0, Math.min(state.assets.length - 1, state.focus + delta));
  focusTile(state.focus);
}

function focusTile(index) {
  const asset = state.assets[index];
  const r = state.rows.findIndex(row => row.kind === "tiles" && index >= row.start && index < row.end);
  if (r < 0) return;
  const grid = $("grid");
  const y = state.rowTops[r];
  if (y < grid.scrollTop + HEADER_HEIGHT) grid.scrollTop = Math.max(0, y - HEADER_HEIGHT);
  else if (y + state.tile > grid.scrollTop + grid.clientHeight) grid.scrollTop = y + state.tile - grid.clientHeight;
  render();
  const el = rendered.get(`a${asset.id}`);
  if (el) el.focus({ preventScroll: true });
}

function rowDelta(index, direction) {
  // Up and down move by a row of the same column where the row has one.
  const r = state.rows.findIndex(row => row.kind === "tiles" && index >= row.start && index < row.end);
  if (r < 0) return 0;
  const column = index - state.rows[r].start;
  for (let n = r + direction; n >= 0 && n < state.rows.length; n += direction) {
    const row = state.rows[n];
    if (row.kind !== "tiles") continue;
    return Math.min(row.start + column, row.end - 1) - index;
  }
  return 0;
}

function onGridKey(event) {
  const el = event.target.closest(".tile");
  if (!el) return;
  const index = Number(el.dataset.index);
  const asset = state.assets[index];
  switch (event.key) {
    case "ArrowRight": moveFocus(1); break;
    case "ArrowLeft": moveFocus(-1); break;
    case "ArrowDown": moveFocus(rowDelta(index, 1)); break;
    case "ArrowUp": moveFocus(rowDelta(index, -1)); break;
    case "Home": state.focus = 0; focusTile(0); break;
    case "End": state.focus = state.assets.length - 1; focusTile(state.focus); break;
    case " ": toggle(asset, el); break;
    case "Enter": openViewer(index); break;
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
      const row = document.createElement("button");
      row.className = "folder-row";
      row.dataset.albumId = folder.id;
      const thumb = folder.keyAssetId ? albumCover(folder) : document.createElement("span");
      thumb.classList.add("thumb");
      const title = document.createElement("span");
      title.textContent = depth === 0 && folder.path ? folder.path : folder.title;
      const count = document.createElement("span");
      count.className = "count";
      count.textContent = String(folder.count);
      row.append(thumb, title, count);
      row.addEventListener("click", () => openAlbum(folder));
      li.appendChild(row);
      if (children.has(folder.id) && depth < 64) li.appendChild(build(folder.id, depth + 1));
      ul.appendChild(li);
    }
    return ul;
  };
  return build("", 0);
}

function openAlbum(album) {
  if (album.id === "smart.hidden" && !config.includeHidden) return;
  state.album = album;
  $("album-title").textContent = album.title;
  $("album-header").hidden = false;
  selectTab("photos", false);
  reset();
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
    button.addEventListener("click", () => { state.failed = null; loadPage(); });
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

// MARK: Start

function start() {
  buildChips();
  buildSearchBox();
  $("tab-photos").addEventListener("click", () => selectTab("photos"));
  $("tab-albums").addEventListener("click", () => selectTab("albums"));
  $("album-back").addEventListener("click", closeAlbum);
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
  loadPage();
  listenForChanges();
}

start();
