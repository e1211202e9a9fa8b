#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""browser_test.py: opens HTML reports in headless Chromium (Selenium + chromedriver) and checks them.

  browser_test.py --report REPORT.json --report-html R.html --compare-html C.html [--screenshot PNG]

For each page: no console message of level SEVERE (JavaScript errors, CSP violations), no network
request other than the page's own file and no failed load (from Chromium's performance log).
The report page: one table row per result; each per-problem time chart has one bar per timed case
and variant and one SOL/floor/target marker per shape; the roofline has one point per timed case
and variant; the sample charts hold every sample; clicking a column header sorts the rows (both
directions) and the problem filter keeps only that problem's rows. The compare page: one table row
per case, one bar per case timed in both reports, regressions first. The expected counts come from
the JSON read here, independently of the page's code.
Exit 0 when every check passes, 1 otherwise (each failure printed), 2 when the browser cannot run.
"""
import argparse
import json
import os
import shutil
import sys
import time

FAILURES = []


def check(cond, what):
    print(("PASS  " if cond else "FAIL  ") + what, flush=True)
    if not cond:
        FAILURES.append(what)


def start_browser():
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError as e:
        sys.exit(f"browser_test: cannot import selenium ({e}): scripts/setup.sh --browser installs python3-selenium")
    chrome = next((p for p in (os.environ.get("CHROMIUM"), shutil.which("chromium"), shutil.which("chromium-browser"))
                   if p), None)
    driver_bin = os.environ.get("CHROMEDRIVER") or shutil.which("chromedriver") or "/usr/bin/chromedriver"
    if not chrome or not os.path.exists(chrome) or not os.path.exists(driver_bin):
        sys.exit(f"browser_test: Chromium ({chrome}) or chromedriver ({driver_bin}) is missing: "
                 "scripts/setup.sh --browser installs the Debian packages chromium and chromium-driver")
    opts = webdriver.ChromeOptions()
    opts.binary_location = chrome
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars",
              "--window-size=1600,1000", "--force-device-scale-factor=1", "--no-first-run", "--lang=en-US"):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL", "performance": "ALL"})
    try:
        return webdriver.Chrome(service=Service(driver_bin), options=opts)
    except Exception as e:  # noqa: BLE001 - any start failure is fatal, with its message
        sys.exit(f"browser_test: headless Chromium did not start: {str(e).splitlines()[0] if str(e) else e!r}")


def open_page(driver, path):
    url = "file://" + os.path.abspath(path)
    driver.get_log("browser"), driver.get_log("performance")  # drop messages of the previous page
    driver.get(url)
    for _ in range(100):  # the page builds itself on load; wait until its script has run
        if driver.execute_script("return !!(window.nvfp4 && document.querySelector('footer'))"):
            break
        time.sleep(0.05)
    name = os.path.basename(path)
    severe = [e["message"] for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    check(not severe, f"{name}: no console errors" + (f" (got: {severe[:3]})" if severe else ""))
    requests, failed = [], []
    for entry in driver.get_log("performance"):
        msg = json.loads(entry["message"])["message"]
        if msg["method"] == "Network.requestWillBeSent":
            u = msg["params"]["request"]["url"]
            if u != url:
                requests.append(u[:120])
        elif msg["method"] == "Network.loadingFailed":
            failed.append(msg["params"].get("errorText", "?"))
    check(not requests, f"{name}: no network request besides the page itself" + (f" (got: {requests[:3]})" if requests else ""))
    check(not failed, f"{name}: no failed load" + (f" (got: {failed[:3]})" if failed else ""))
    check(driver.execute_script("return !!document.querySelector('footer')"), f"{name}: the page script ran to its end")
    return name


def timed(r):
    t = r.get("timing")
    return bool(t) and isinstance(t.get("median_us"), (int, float)) and t.get("samples", 0) > 0


def check_report(driver, path, report):
    name = open_page(driver, path)
    results = report["results"]
    problems = list(dict.fromkeys(r["problem"] for r in results))
    rows = driver.execute_script("return document.querySelectorAll('#results-table tbody tr').length")
    check(rows == len(results), f"{name}: table has one row per result ({rows} of {len(results)})")
    own = driver.execute_script("return document.getElementById('own-kernels') !== null")
    check(own == bool(report.get("plugins") or report.get("submissions")),
          f"{name}: a 'Your kernels' card only when the report has plugins or submissions")

    for p in problems:
        rs = [r for r in results if r["problem"] == p]
        want = sum(1 for r in rs if timed(r))
        if not want:
            continue
        got = driver.execute_script(
            "const c = nvfp4.charts['time-' + arguments[0]]; if (!c) return null;"
            "const n = (role) => c.data.datasets.filter(d => d.nvfp4Role === role).map(d => d.data.filter(v => v !== null).length);"
            "return {bars: n('variant').reduce((a, b) => a + b, 0), refs: n('reference'), labels: c.data.labels.length,"
            " drawn: c.getDatasetMeta(0).data.length}", p)
        check(got is not None, f"{name}: time chart for {p} exists")
        if got is None:
            continue
        shapes = list(dict.fromkeys(r["shape"] for r in rs))
        check(got["bars"] == want, f"{name}: {p} time chart has one bar per timed case and variant ({got['bars']} of {want})")
        check(got["labels"] == len(shapes) and got["drawn"] == len(shapes), f"{name}: {p} time chart has one group per shape")
        sol = sum(1 for s in shapes if any(r["shape"] == s and r["metrics"].get("sol_us") is not None for r in rs))
        check(got["refs"][0] == sol, f"{name}: {p} time chart has one SOL marker per shape ({got['refs'][0]} of {sol})")

    want = sum(1 for r in results if timed(r) and r["metrics"].get("tflops") is not None and r["metrics"]["bytes"] > 0)
    got = driver.execute_script(
        "const c = nvfp4.charts.roofline; if (!c) return null;"
        "return {points: c.data.datasets.filter(d => d.nvfp4Role === 'variant').reduce((a, d) => a + d.data.length, 0),"
        " ceilings: c.data.datasets.filter(d => d.nvfp4Role === 'ceiling').length, xlog: c.scales.x.type, ylog: c.scales.y.type}")
    check(got is not None and got["points"] == want, f"{name}: roofline has one point per timed case and variant ({got and got['points']} of {want})")
    if got:
        check(got["xlog"] == got["ylog"] == "logarithmic", f"{name}: roofline is log-log")
        ceilings = (report.get("sol_spec") is not None) + (report.get("sol_measured") is not None)
        check(got["ceilings"] == ceilings, f"{name}: roofline draws the spec/measured ceilings ({got['ceilings']} of {ceilings})")

    for p in problems:
        want = sum(len(r["timing"].get("samples_us") or []) for r in results if r["problem"] == p and timed(r))
        if not want:
            continue
        got = driver.execute_script("const c = nvfp4.charts['samples-' + arguments[0]];"
                                    "return c ? c.data.datasets.reduce((a, d) => a + d.data.length, 0) : null", p)
        check(got == want, f"{name}: {p} sample chart holds every sample ({got} of {want})")

    # Sorting by the median column, both directions; missing values stay last.
    def column(key):
        return driver.execute_script(
            "const th = [...document.querySelectorAll('#results-table th')];"
            "const i = th.findIndex(t => t.dataset.key === arguments[0]);"
            "return [...document.querySelectorAll('#results-table tbody tr')].map(tr => tr.children[i].textContent)", key)
    header = driver.find_element("css selector", "#results-table th[data-key=median]")
    for direction in ("ascending", "descending"):
        header.click()
        vals = [float(v) for v in column("median") if v != "–"]
        ok = vals == sorted(vals, reverse=direction == "descending") and len(vals) == sum(1 for r in results if timed(r))
        check(ok and header.get_attribute("aria-sort") == direction, f"{name}: clicking 'median µs' sorts {direction}")
    driver.find_element("css selector", "#results-table th[data-key=variant]").click()
    names = column("variant")
    check(names == sorted(names), f"{name}: clicking 'variant' sorts by name")

    # The problem filter.
    p = problems[-1]
    driver.execute_script("const s = document.querySelector('select[data-filter=problem]'); s.value = arguments[0];"
                          "s.dispatchEvent(new Event('change'))", p)
    shown = column("problem")
    check(shown == [p] * sum(1 for r in results if r["problem"] == p), f"{name}: the problem filter shows only {p}")
    driver.execute_script("const s = document.querySelector('select[data-filter=problem]'); s.value = '';"
                          "s.dispatchEvent(new Event('change'))")


def check_own_kernels(driver, path, report):
    """The page of a report with plugins and submissions names each of them in one card."""
    name = open_page(driver, path)
    text = driver.execute_script("const c = document.getElementById('own-kernels'); return c ? c.textContent : null")
    check(text is not None, f"{name}: has the 'Your kernels' card")
    for p in report.get("plugins", []):
        check(text is not None and p["name"] in text and p["path"] in text, f"{name}: names plugin {p['name']}")
    for x in report.get("submissions", []):
        check(text is not None and x["name"] in text and x["path"] in text, f"{name}: names submission {x['name']}")
    rows = driver.execute_script("return document.querySelectorAll('#results-table tbody tr').length")
    check(rows == len(report["results"]), f"{name}: table has one row per result ({rows} of {len(report['results'])})")


def check_compare(driver, path):
    name = open_page(driver, path)
    data = driver.execute_script("return nvfp4.data")
    rows = data["rows"]
    n = driver.execute_script("return document.querySelectorAll('#compare-table tbody tr').length")
    check(n == len(rows), f"{name}: table has one row per case ({n} of {len(rows)})")
    with_ratio = [r for r in rows if r["ratio"] is not None]
    got = driver.execute_script("const c = nvfp4.charts.ratios; return c ? c.data.datasets[0].nvfp4Rows.map(r => [r.verdict, r.ratio]) : null")
    check(got is not None and len(got) == len(with_ratio), f"{name}: ratio chart has one bar per case timed in both ({got and len(got)} of {len(with_ratio)})")
    if got:
        reg = [v in ("SLOWER", "FAILED") for v, _ in got]
        check(reg == sorted(reg, reverse=True), f"{name}: regressions come first")
        rest = [x for v, x in got if v not in ("SLOWER", "FAILED")]
        check(rest == sorted(rest, reverse=True), f"{name}: the other bars are sorted by change, largest first")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--report", required=True, help="the JSON report the HTML was rendered from")
    ap.add_argument("--report-html", required=True)
    ap.add_argument("--compare-html", required=True)
    ap.add_argument("--screenshot", help="also save a full-page PNG of the report page")
    ap.add_argument("--own-report", help="a JSON report with plugins and submissions")
    ap.add_argument("--own-html", help="the HTML rendered from --own-report")
    a = ap.parse_args()
    with open(a.report) as f:
        report = json.load(f)
    t0 = time.time()
    driver = start_browser()
    try:
        print(f"browser: {driver.capabilities.get('browserName')} {driver.capabilities.get('browserVersion')}")
        check_report(driver, a.report_html, report)
        if a.screenshot:
            driver.get("file://" + os.path.abspath(a.report_html))
            height = driver.execute_script("return document.documentElement.scrollHeight")
            driver.set_window_size(1600, height + 40)
            time.sleep(0.3)
            driver.save_screenshot(a.screenshot)
            driver.set_window_size(1600, 1000)
        check_compare(driver, a.compare_html)
        if a.own_report:
            with open(a.own_report) as f:
                check_own_kernels(driver, a.own_html, json.load(f))
    finally:
        driver.quit()
    print(f"browser_test: {len(FAILURES)} failure(s), {time.time() - t0:.1f} s")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
