"""The web picker checked in headless Chromium (run by scripts/test-browser).

Usage: test-browser.py MEDIAINDEX_BINARY CORPUS_MEDIA_FOLDER
Every connection goes to 127.0.0.1. Exits 0 when every check passes, 1 otherwise.
"""
import http.server
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait
from selenium.common.exceptions import StaleElementReferenceException

binary, media = sys.argv[1], sys.argv[2]
work = tempfile.mkdtemp(prefix="mediaindex-browser-")
library, cache, extra = f"{work}/library", f"{work}/cache", f"{work}/new-photos"
os.makedirs(extra)
failures = []


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def check(name, condition, detail=""):
    print(("ok   " if condition else "FAIL ") + name + (f": {detail}" if detail and not condition else ""))
    if not condition:
        failures.append(name)


def get_json(path):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as response:
        return json.load(response)


# A photo dated after everything in the corpus, so it lands at the top of the grid: a corpus
# JPEG whose EXIF dates are rewritten in place (same length), made in the temporary folder.
def newest_photo(destination):
    with open(os.path.join(media, "ianare-exif-samples/jpg/Canon_40D.jpg"), "rb") as f:
        data = f.read()
    data = re.sub(rb"\d{4}:\d\d:\d\d \d\d:\d\d:\d\d", b"2099:01:01 12:00:00", data)
    with open(destination + ".part", "wb") as f:
        f.write(data)
    os.rename(destination + ".part", destination)


subprocess.run([binary, "index", "--library", library, "--quiet", media, extra], check=True)
# Hashes and groups, so the Duplicates album has its members (and later runs keep them).
subprocess.run([binary, "duplicates", "--library", library, "--json"], check=True, stdout=subprocess.DEVNULL)
port = free_port()
# The embedding page, from another origin (another port), as a web app would embed the picker:
# the server lets that origin frame the picker and receive its selection.
embed_port = free_port()
server = subprocess.Popen([binary, "serve", "--library", library, "--cache", cache, "--listen", f"127.0.0.1:{port}",
                           "--picker-origin", f"http://127.0.0.1:{embed_port}"],
                          stdout=subprocess.PIPE, stderr=open(f"{work}/serve.log", "w"), text=True)

with open(f"{work}/embed.html", "w") as f:
    f.write(f"""<!doctype html><title>embed</title>
<iframe id="picker" src="http://127.0.0.1:{port}/?limit=2" style="width:1000px;height:700px"></iframe>
<script>
window.received = null;
window.addEventListener("message", e => {{
  if (e.origin === "http://127.0.0.1:{port}" && e.data && e.data.type === "mediaindex.selection") window.received = e.data;
}});
</script>""")


class Quiet(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=work, **kwargs)

    def log_message(self, *args):
        pass


embed_server = http.server.ThreadingHTTPServer(("127.0.0.1", embed_port), Quiet)
threading.Thread(target=embed_server.serve_forever, daemon=True).start()

options = Options()
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,900",
                 "--no-first-run", "--disable-extensions", "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"]:
    options.add_argument(argument)
options.binary_location = shutil.which("chromium")
driver = None
try:
    for _ in range(100):
        try:
            status = get_json("/v1/status")
            break
        except OSError:
            time.sleep(0.1)
    else:
        raise SystemExit("test-browser: the server did not start; see " + work + "/serve.log")
    total = status["counts"]["assets"]
    print(f"serving {total} assets on 127.0.0.1:{port}")
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    wait = WebDriverWait(driver, 30)
    driver.get(f"http://127.0.0.1:{port}/?limit=2")

    # The grid shows thumbnails that really loaded.
    def loaded_thumbnails(d):
        return d.execute_script("return [...document.querySelectorAll('.tile img')].filter(i => i.complete && i.naturalWidth > 0).length")
    wait.until(lambda d: loaded_thumbnails(d) >= 6)
    check("the grid shows thumbnails that loaded (naturalWidth > 0)", loaded_thumbnails(driver) >= 6)
    check("the grid is virtualised (fewer tiles in the page than assets)",
          len(driver.find_elements(By.CSS_SELECTOR, ".tile")) < total,
          f"{len(driver.find_elements(By.CSS_SELECTOR, '.tile'))} tiles for {total} assets")
    check("date headers are shown", len(driver.find_elements(By.CSS_SELECTOR, ".date-header")) > 0)

    # Dense: at 1200x900 a few dozen thumbnails are on screen at once.
    on_screen = """return [...document.querySelectorAll('.tile[data-id]')].filter(t => {
        const r = t.getBoundingClientRect(), g = document.getElementById('grid').getBoundingClientRect();
        return r.top >= g.top && r.bottom <= g.bottom && r.width > 0; }).length"""
    try:
        wait.until(lambda d: d.execute_script(on_screen) >= 24)
    except Exception:
        pass
    visible = driver.execute_script(on_screen)
    check("at least 24 thumbnails are fully on screen at 1200x900", visible >= 24, f"{visible}")

    # Scrolling: the bottom of the whole result loads without the page holding every tile.
    timeline = get_json("/v1/timeline?group=year")
    driver.execute_script("const g = document.getElementById('grid'); g.scrollTop = g.scrollHeight")
    oldest = [b["period"] for b in timeline["buckets"]][-1]
    wait.until(lambda d: d.execute_script(on_screen) > 0)
    last_index = driver.execute_script(
        "return Math.max(...[...document.querySelectorAll('.tile[data-id]')].map(t => Number(t.dataset.index)))")
    check("scrolled to the end, the last asset of the result is loaded", last_index == timeline["total"] - 1,
          f"{last_index} of {timeline['total']}")
    nodes = driver.execute_script("return document.getElementById('grid-space').querySelectorAll('*').length")
    check("the page holds at most a few hundred nodes in the grid", nodes <= 800, f"{nodes}")

    # The scrubber: a year's label jumps to that year.
    years = [b["period"] for b in timeline["buckets"] if b["period"]]
    target = years[len(years) // 2]
    button = driver.find_elements(By.CSS_SELECTOR, f".scrub-year")
    labels = {b.text: b for b in button}
    if target not in labels and labels:
        target = sorted(labels)[len(labels) // 2]
    if labels:
        labels[target].click()
        wait.until(lambda d: d.execute_script(on_screen) > 0)
        # Days of a few photos share a line: the year's first day is on the screen's first line.
        first_line = driver.execute_script("""const g = document.getElementById('grid').getBoundingClientRect();
            return [...document.querySelectorAll('.tile[data-id]')].filter(t => {
                const r = t.getBoundingClientRect(); return r.top >= g.top - 1 && r.top < g.top + 200; })
            .map(t => t.getAttribute('aria-label'))""")
        check("clicking a year on the scrubber shows that year", any(target in label for label in first_line),
              f"{target}: {first_line}")
    else:
        check("the scrubber shows years", False, json.dumps(years))
    driver.execute_script("document.getElementById('grid').scrollTop = 0")
    wait.until(lambda d: d.execute_script(on_screen) >= 24)

    # ?limit=2: a third selection is refused visibly.
    tiles = driver.find_elements(By.CSS_SELECTOR, ".tile[data-id]")
    for tile in tiles[:3]:
        tile.click()
    selected = driver.find_elements(By.CSS_SELECTOR, ".tile[aria-selected='true']")
    check("with ?limit=2, selecting three leaves two selected", len(selected) == 2, f"{len(selected)} selected")
    check("the refusal is shown", driver.find_element(By.ID, "toast").is_displayed())
    orders = [e.text for e in driver.find_elements(By.CSS_SELECTOR, ".tile .order")]
    check("the selection order shows as numbers", sorted(orders) == ["1", "2"], str(orders))

    # Range selection: Shift-click selects every item between (no limit here).
    driver.get(f"http://127.0.0.1:{port}/")
    wait.until(lambda d: d.execute_script(on_screen) >= 24)
    ordered = driver.execute_script("""return [...document.querySelectorAll('.tile[data-id]')]
        .sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index)).slice(0, 12).map(t => t.dataset.id)""")
    driver.find_element(By.CSS_SELECTOR, f".tile[data-id='{ordered[2]}']").click()
    webdriver.ActionChains(driver).key_down("\ue008").click(
        driver.find_element(By.CSS_SELECTOR, f".tile[data-id='{ordered[8]}']")).key_up("\ue008").perform()
    time.sleep(0.3)
    chosen = driver.execute_script("""return [...document.querySelectorAll('.tile[aria-selected=true]')]
        .sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index)).map(t => t.dataset.id)""")
    check("Shift-click selects the range, both ends included", chosen == ordered[2:9], json.dumps(chosen))
    count_text = driver.find_element(By.ID, "selection-count").text
    check("the count is shown", count_text.startswith("7"), count_text)

    # Keyboard: Escape clears, arrows move, Space toggles, Shift+arrow extends.
    first = driver.find_element(By.CSS_SELECTOR, f".tile[data-id='{ordered[0]}']")
    first.send_keys("\ue00c")  # escape
    check("Escape clears the selection", not driver.find_elements(By.CSS_SELECTOR, ".tile[aria-selected=true]"))
    driver.execute_script("arguments[0].focus()", first)
    webdriver.ActionChains(driver).send_keys(" ").send_keys("\ue014").send_keys(" ").key_down("\ue008") \
        .send_keys("\ue014").send_keys("\ue014").key_up("\ue008").perform()
    time.sleep(0.3)
    chosen = driver.execute_script("""return [...document.querySelectorAll('.tile[aria-selected=true]')]
        .sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index)).map(t => t.dataset.id)""")
    check("Space, arrows and Shift+arrows select from the keyboard", chosen == ordered[0:4], json.dumps(chosen))
    focused_role = driver.execute_script("return document.activeElement.getAttribute('role') + ' ' + document.activeElement.getAttribute('aria-selected')")
    check("the focused tile is an option that says it is selected", focused_role == "option true", focused_role)

    # Drag-select: pressing on one tile and moving over others selects them all.
    first.send_keys("\ue00c")
    webdriver.ActionChains(driver).move_to_element(driver.find_element(By.CSS_SELECTOR, f".tile[data-id='{ordered[1]}']")) \
        .click_and_hold().move_to_element(driver.find_element(By.CSS_SELECTOR, f".tile[data-id='{ordered[3]}']")) \
        .move_to_element(driver.find_element(By.CSS_SELECTOR, f".tile[data-id='{ordered[5]}']")).release().perform()
    time.sleep(0.3)
    chosen = driver.execute_script("""return [...document.querySelectorAll('.tile[aria-selected=true]')]
        .sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index)).map(t => t.dataset.id)""")
    check("dragging across tiles selects them", chosen == ordered[1:6], json.dumps(chosen))

    driver.get(f"http://127.0.0.1:{port}/?limit=2")
    wait.until(lambda d: loaded_thumbnails(d) >= 6)
    tiles = driver.find_elements(By.CSS_SELECTOR, ".tile[data-id]")

    # Full screen opens (Enter on a focused tile), arrows move, Escape closes.
    tiles[0].send_keys("\ue007")
    wait.until(lambda d: d.find_element(By.ID, "viewer").is_displayed())
    check("full screen opens", driver.find_element(By.ID, "viewer").is_displayed())
    first_caption = driver.find_element(By.ID, "viewer-caption").text
    driver.find_element(By.TAG_NAME, "body").send_keys("\ue014")  # arrow right
    check("the right arrow moves to the next asset", driver.find_element(By.ID, "viewer-caption").text != first_caption)
    driver.find_element(By.TAG_NAME, "body").send_keys("\ue00c")  # escape
    wait.until(lambda d: not d.find_element(By.ID, "viewer").is_displayed())

    # Albums, and opening one.
    driver.find_element(By.ID, "tab-albums").click()
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#album-list .album, #album-list .folder-row"))
    albums = [a for a in driver.find_elements(By.CSS_SELECTOR, "#album-list .album")
              if a.find_element(By.CSS_SELECTOR, ".count").text not in ("0", "")]
    check("the Albums tab lists albums", len(albums) > 0)
    titles = [a.find_element(By.CSS_SELECTOR, ".title").text if a.find_elements(By.CSS_SELECTOR, ".title") else a.text
              for a in driver.find_elements(By.CSS_SELECTOR, "#album-list .album")]
    check("the Hidden album is not offered without includeHidden=1",
          not any(t.split("\n")[0] == "Hidden" for t in titles), json.dumps(titles)[:200])
    check("folder albums are listed", len(driver.find_elements(By.CSS_SELECTOR, "#album-list .folder-row")) > 0)
    if albums:
        title = albums[0].find_element(By.CSS_SELECTOR, ".title").text
        albums[0].click()
        wait.until(lambda d: d.find_element(By.ID, "photos").is_displayed() and loaded_thumbnails(d) > 0)
        check("opening an album shows its assets", driver.find_element(By.ID, "album-title").text == title
              and loaded_thumbnails(driver) > 0)

    # The Places family drills down: Places → its countries (listed) → a country's regions (fetched).
    driver.find_element(By.ID, "tab-albums").click()
    # The list is drawn again once /v1/albums answers ("Loading albums…" until then).
    wait.until(lambda d: d.find_element(By.ID, "albums-state").text == ""
               and d.find_elements(By.CSS_SELECTOR, "#album-list .folder-row"))
    places = [a for a in get_json("/v1/albums") if a["kind"] == "place"]
    check("a Places entry is listed when assets have places",
          bool(places) == bool(driver.find_elements(By.CSS_SELECTOR, '.place-row[data-album-id="place"]')))
    country = next((a for a in places if a["parentId"] == "place"), None)
    if country:
        driver.find_element(By.CSS_SELECTOR, '.place-expand[data-album-id="place"]').click()
        driver.find_element(By.CSS_SELECTOR, f'.place-expand[data-album-id="{country["id"]}"]').click()
        regions = get_json(f"/v1/albums?in={country['id']}")
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, f'.place-row[data-album-id="{regions[0]["id"]}"]'))
        row = driver.find_element(By.CSS_SELECTOR, f'.place-row[data-album-id="{regions[0]["id"]}"]')
        check("a country opens to its regions, with the counts /v1/albums?in= gives",
              row.find_element(By.CSS_SELECTOR, ".count").text == str(regions[0]["count"])
              and sum(r["count"] for r in regions) == country["count"])
        row.click()
        wait.until(lambda d: d.find_element(By.ID, "photos").is_displayed() and loaded_thumbnails(d) > 0)
        check("opening a region shows its assets", driver.find_element(By.ID, "album-title").text == regions[0]["title"])
    # The Duplicates album's groups side by side, as GET /v1/duplicates lists them: the
    # keeper first and marked with its rule, each other member with what it has that the
    # keeper lacks (or that it has nothing), every picture loaded.
    expected_groups = get_json("/v1/duplicates?kind=duplicate")["groups"]
    driver.get(f"http://127.0.0.1:{port}/")
    wait.until(lambda d: loaded_thumbnails(d) >= 3)
    driver.find_element(By.ID, "tab-albums").click()
    duplicates_album = '#album-list .album[data-album-id="smart.duplicates"]'
    # Clicked from the page: the list is drawn again when the albums arrive.
    wait.until(lambda d: d.execute_script(f"const a = document.querySelector('{duplicates_album}'); a && a.click(); return !!a"))
    wait.until(lambda d: d.find_element(By.ID, "album-groups").is_displayed())
    driver.find_element(By.ID, "album-groups").click()
    on_screen = """return [...document.querySelectorAll('#group-list img')].filter(i => {
        const r = i.getBoundingClientRect();
        return r.bottom > 0 && r.top < innerHeight && r.right > 0 && r.left < innerWidth; })"""
    wait.until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#group-list .dup-group")) == len(expected_groups)
               and d.execute_script(on_screen + ".every(i => i.complete && i.naturalWidth > 0)"))
    shown = driver.find_elements(By.CSS_SELECTOR, "#group-list .dup-group")
    problems = []
    for row, group in zip(shown, expected_groups):
        members = row.find_elements(By.CSS_SELECTOR, ".dup-member")
        ids = [m.get_attribute("data-asset-id") for m in members]
        captions = [m.find_element(By.TAG_NAME, "figcaption").get_attribute("textContent") for m in members]
        if ids != group["assets"] or "keeper" not in members[0].get_attribute("class"):
            problems.append(f"{group['group']}: members {ids}")
        elif captions[0] != f"Keep: {group['reasons']['keep']}":
            problems.append(f"{group['group']}: keeper caption {captions[0]!r}")
        for member, caption in zip(ids[1:], captions[1:]):
            extras = group["reasons"]["extras"].get(member, [])
            if caption != ("Has: " + ", ".join(extras) if extras else "Nothing the keeper lacks"):
                problems.append(f"{member}: caption {caption!r}, extras {extras}")
    visible = driver.execute_script(on_screen + ".length")
    check("the Duplicates album shows each group side by side: keeper first and marked with its rule, the others' extras",
          len(expected_groups) > 0 and len(shown) == len(expected_groups) and not problems and visible >= 2,
          f"{len(shown)} of {len(expected_groups)} groups, {visible} pictures on screen; " + "; ".join(problems[:3]))
    driver.find_element(By.ID, "album-groups").click()

    # The search field: suggestions while typing, results narrow the grid, the selection stays.
    driver.get(f"http://127.0.0.1:{port}/?limit=2")
    wait.until(lambda d: loaded_thumbnails(d) >= 3)

    # The grid may draw its tiles again as the timeline arrives: click one that is in the page.
    def click_first_tile(d):
        try:
            d.find_elements(By.CSS_SELECTOR, ".tile")[0].click()
            return True
        except StaleElementReferenceException:
            return False
    wait.until(click_first_tile)
    count_before = driver.find_element(By.ID, "selection-count").text
    newest = get_json("/v1/assets?limit=1")["assets"][0]
    stem = os.path.splitext(os.path.basename(newest["resources"][0]["path"]))[0]
    box = driver.find_element(By.ID, "search")
    box.send_keys("cam")
    wait.until(lambda d: d.execute_script(
        "return [...document.querySelectorAll('#search-suggestions option')].some(o => o.value === 'camera:')"))
    check("typing offers suggestions (camera: for 'cam')", True)
    box.clear()
    box.send_keys(f'name:"{stem}"')
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, f".tile[data-id='{newest['id']}']")
               and len(d.find_elements(By.CSS_SELECTOR, ".tile")) < total)
    expected = get_json("/v1/search?" + urllib.parse.urlencode({"q": f'name:"{stem}"', "count": "true"}))
    shown = len(driver.find_elements(By.CSS_SELECTOR, ".tile"))
    check("a search narrows the grid to its results", shown == expected["total"], f"{shown} tiles, {expected}")
    check("the selection stays through a search", driver.find_element(By.ID, "selection-count").text == count_before,
          driver.find_element(By.ID, "selection-count").text)

    # Done posts the two assets to the embedding page (cross-origin iframe).
    driver.get(f"http://127.0.0.1:{embed_port}/embed.html")
    driver.switch_to.frame(driver.find_element(By.ID, "picker"))
    wait.until(lambda d: loaded_thumbnails(d) >= 3)
    tiles = driver.find_elements(By.CSS_SELECTOR, ".tile[data-id]")
    chosen = [tiles[0].get_attribute("data-id"), tiles[1].get_attribute("data-id")]
    for tile in tiles[:3]:
        tile.click()
    driver.find_element(By.ID, "done").click()
    driver.switch_to.default_content()
    wait.until(lambda d: d.execute_script("return window.received !== null"))
    received = driver.execute_script("return window.received")
    ids = [a["id"] for a in received["assets"]]
    check("Done posts {type: mediaindex.selection, assets} with the two assets, in order",
          received["type"] == "mediaindex.selection" and ids == chosen, json.dumps(ids))
    fields = {"id", "uniformType", "pixelWidth", "pixelHeight", "duration", "isOriginalFile", "urls"}
    check("the posted assets carry PhotosPicker's fields and URLs, no paths and no GPS",
          all(set(a) == fields and set(a["urls"]) == {"original", "compatible", "thumbnail"} for a in received["assets"]),
          json.dumps(received["assets"])[:300])
    check("their sizes and types are the API's",
          all(a["pixelWidth"] == get_json(f"/v1/assets/{a['id']}")["pixelWidth"]
              and "." in a["uniformType"] for a in received["assets"]))
    original = received["assets"][0]["urls"]["original"]
    with urllib.request.urlopen(original, timeout=30) as response:
        check("the original URL is absolute and serves the file", original.startswith(f"http://127.0.0.1:{port}/")
              and response.status == 200 and len(response.read()) > 0)

    # mediaindex pick: the page at its one-shot address posts Done to the command, which prints it.
    pick = subprocess.Popen([binary, "pick", "--library", library, "--cache", cache, "--no-open", "--json", "--limit", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = pick.stderr.readline()
    address = line[line.index("http://"):].split()[0] if "http://" in line else ""
    check("pick --no-open prints its one-shot address", "/?pick=" in address, line)
    driver.get(address)
    wait.until(lambda d: loaded_thumbnails(d) >= 3)
    tiles = driver.find_elements(By.CSS_SELECTOR, ".tile[data-id]")
    chosen = [tiles[1].get_attribute("data-id"), tiles[0].get_attribute("data-id")]
    tiles[1].click()
    tiles[0].click()
    driver.find_element(By.ID, "done").click()
    try:
        out, err = pick.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        pick.kill()
        out, err = pick.communicate()
    picked = json.loads(out) if pick.returncode == 0 else {"assets": []}
    check("pick exits 0 after Done and prints the two assets in selection order",
          pick.returncode == 0 and [a["id"] for a in picked["assets"]] == chosen, f"{pick.returncode} {out[:200]} {err[:200]}")
    check("pick prints PhotosPicker's fields and URLs, no paths and no GPS",
          all(set(a) == fields for a in picked["assets"]), out[:300])

    # A file copied into a root appears at the top of the grid without a reload.
    driver.get(f"http://127.0.0.1:{port}/")
    wait.until(lambda d: loaded_thumbnails(d) >= 3)
    driver.execute_script("window.notReloaded = true")
    newest_photo(f"{extra}/from-the-camera.jpg")
    deadline = time.time() + 30
    new_id = None
    while time.time() < deadline and new_id is None:
        page = get_json("/v1/assets?limit=1")["assets"]
        if page and page[0]["creationDate"].startswith("2099"):
            new_id = page[0]["id"]
        else:
            time.sleep(0.2)
    check("the watcher indexed the copied file", new_id is not None)
    if new_id:
        WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, f".tile[data-id='{new_id}']"))
        shown = driver.find_elements(By.CSS_SELECTOR, f".tile[data-id='{new_id}']")
        check("the copied file appears in the grid without a reload",
              bool(shown) and driver.execute_script("return window.notReloaded === true"))
        first = driver.execute_script("""return [...document.querySelectorAll('.tile')].sort((a, b) =>
            parseFloat(a.style.top) - parseFloat(b.style.top) || parseFloat(a.style.left) - parseFloat(b.style.left))[0].dataset.id""")
        check("it appears at the top", first == new_id, first)

    # Every corpus video plays in Chromium through the compatible route (docs/renditions.md),
    # as the viewer asks for it: polled while 202, then played; HEVC among them.
    videos, after = [], None
    while True:
        page = get_json("/v1/assets?filter=videos&limit=1000" + (f"&after={after}" if after else ""))
        videos += page["assets"]
        after = page.get("nextCursor")
        if not after:
            break
    driver.get(f"http://127.0.0.1:{port}/")
    driver.set_script_timeout(900)
    play_script = """const [url, done] = [arguments[0], arguments[arguments.length - 1]];
        (async () => {
          let response;
          for (let i = 0; i < 1800; i++) {
            response = await fetch(url, {headers: {Range: "bytes=0-0"}});
            if (response.status !== 202) break;
            await new Promise(r => setTimeout(r, 500));
          }
          if (response.status !== 200 && response.status !== 206) return done({status: response.status, text: await response.text()});
          const video = document.createElement("video");
          video.muted = true; video.src = url; document.body.appendChild(video);
          const outcome = await new Promise(resolve => {
            video.onloadeddata = () => resolve("loaded"); video.onerror = () => resolve("error " + (video.error && video.error.code));
            setTimeout(() => resolve("timeout"), 30000);
          });
          const played = await video.play().then(() => true, () => false);
          done({status: response.status, outcome, played, width: video.videoWidth, height: video.videoHeight});
          video.remove();
        })();"""
    failed_videos, refused_videos, hevc_played = [], [], False
    for asset in videos:
        url = f"/v1/assets/{asset['id']}/resources/primary?representation=compatible"
        result = driver.execute_async_script(play_script, url)
        ok = result.get("outcome") == "loaded" and result.get("width", 0) > 0
        if not ok and result.get("status") == 422:  # a damaged file (fuzzed, cut off): refused with a sentence
            refused_videos.append((asset["id"], result.get("text", "")[:160]))
        elif not ok:
            failed_videos.append((asset["resources"][0]["path"].split("/")[-1] if asset["resources"] else asset["id"], result))
        if ok and (asset.get("videoCodec") or "").lower() in ("hevc", "h265"):
            hevc_played = True
    check("a corpus HEVC video plays in Chromium through the compatible route", hevc_played)
    check(f"every corpus video ({len(videos)}) plays through the compatible route, or is refused as damaged (422)",
          not failed_videos, json.dumps(failed_videos)[:600])
    print(f"{len(videos) - len(refused_videos)} videos played, {len(refused_videos)} refused as damaged: {json.dumps(refused_videos)[:800]}")

    # Phone width: the grid still fits the window.
    driver.set_window_size(390, 844)
    time.sleep(0.5)
    overflow = driver.execute_script("return document.documentElement.scrollWidth - window.innerWidth")
    check("at phone width nothing overflows sideways", overflow <= 0, f"{overflow} px")
    driver.save_screenshot(os.environ.get("MEDIAINDEX_BROWSER_SCREENSHOT", f"{work}/phone.png"))
except Exception as error:  # a failed wait, a crash: reported, never a hang
    import traceback
    traceback.print_exc(limit=3)
    check("the browser test ran to the end", False, f"{type(error).__name__}: {error}")
finally:
    if driver:
        driver.quit()
    embed_server.shutdown()
    server.send_signal(signal.SIGTERM)
    try:
        server.wait(timeout=30)
    except subprocess.TimeoutExpired:
        server.kill()
    check("serve exits 0 on SIGTERM", server.returncode == 0, str(server.returncode))

if failures:
    print(f"test-browser: {len(failures)} check(s) failed; the server's log is {work}/serve.log", file=sys.stderr)
    sys.exit(1)
shutil.rmtree(work, ignore_errors=True)
print("test-browser: every check passed")
