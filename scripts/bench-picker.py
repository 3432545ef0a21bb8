"""The web picker's first paint and scrubber jumps in headless Chromium (run by mediaindex-bench --only-picker).

Usage: bench-picker.py PORT RUNS
Prints one JSON object: first_paint_ms (navigation start to the first screen of tiles with
their assets, the picker's `mediaindex-grid-painted` mark) per run, and jump_ms (a year
chosen on the scrubber to every tile on screen holding its asset) per year.
"""
import json
import shutil
import sys

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

port, runs = int(sys.argv[1]), int(sys.argv[2])
options = Options()
for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,900",
                 "--no-first-run", "--disable-extensions", "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"]:
    options.add_argument(argument)
options.binary_location = shutil.which("chromium")
driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
driver.set_script_timeout(30)
result = {"first_paint_ms": [], "jump_ms": [], "assets": 0, "dom_nodes": 0}
try:
    for _ in range(runs):
        driver.get(f"http://127.0.0.1:{port}/?run={_}")
        WebDriverWait(driver, 30).until(
            lambda d: d.execute_script("return performance.getEntriesByName('mediaindex-grid-painted').length > 0"))
        result["first_paint_ms"].append(driver.execute_script(
            "return performance.getEntriesByName('mediaindex-grid-painted')[0].startTime"))
    result["assets"] = driver.execute_script("return state.total")
    years = driver.execute_script("return [...document.querySelectorAll('.scrub-year')].map(b => b.dataset.index)")
    # Every year on the scrubber, in an order that jumps far each time.
    order = years[::2] + years[1::2]
    for index in order:
        elapsed = driver.execute_async_script("""
            const done = arguments[arguments.length - 1];
            const start = performance.now();
            jumpTo(Number(arguments[0]));
            (function poll() {
              const g = document.getElementById('grid'), [first, last] = indexRange(g.scrollTop, g.scrollTop + g.clientHeight);
              let filled = first <= last;
              for (let i = first; i <= last; i++) if (!state.assets[i]) { filled = false; break; }
              if (filled) requestAnimationFrame(() => done(performance.now() - start)); else setTimeout(poll, 2);
            })();""", index)
        result["jump_ms"].append(elapsed)
    result["dom_nodes"] = driver.execute_script("return document.getElementById('grid-space').querySelectorAll('*').length")
finally:
    driver.quit()
print(json.dumps(result))
