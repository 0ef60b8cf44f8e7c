#!/usr/bin/env python3
"""hetbench report --format html in a real browser: Debian's headless Chromium.

Renders the page of tests/cli/report_sweep.json (two finished sweeps, batch size x GPU count on
A100 and H100, energy on the A100s, and two BenchmarkSeries, one with a regression and a series
point whose run name is a </script> injection), loads it in `chromium --headless` twice, and
checks:
  - the DOM after the page settled (--dump-dom): every figure drew, through Vega, exactly the
    marks the fixture implies (symbols, lines, bars, rules per figure, counted by the page from
    each view's scenegraph), the page recorded no console error or warning, no uncaught error or
    rejection, and the injection did not run;
  - Chromium's own log (--enable-logging=stderr) shows no console message either;
  - a screenshot is written, kept in the build tree, and its path printed.

usage: report_html_check.py HETBENCH FIXTURE OUTPUT_DIR
status: 0 passed, 1 failed, 77 skipped (no chromium, or hetbench built without the bundles).
"""

import html.parser
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

SKIP = 77
BROWSER_TIMEOUT_S = 30

# What the fixture implies, per figure: (hardware, count) and batch size lines.
EXPECTED = {
    # A100 x1 and H100 x1, three batch sizes each.
    "fig-batch": {"line": 6, "symbol": 6},
    # A100: 3 batch sizes x 3 counts, H100: 3 x 2; each measured and ideal.
    "fig-scaling": {"line": 30, "symbol": 15},
    # 15 configurations, compute and effective bars.
    "fig-io": {"rect": 30},
    # Only the A100 sweep measured energy.
    "fig-energy": {"rect": 9},
    # 8 points, a band, its baseline rule and one change point.
    "fig-history-0": {"rect": 1, "rule": 2, "line": 8, "symbol": 8},
    # 5 points, a band and its baseline rule.
    "fig-history-1": {"rect": 1, "rule": 1, "line": 5, "symbol": 5},
}


class PageReader(html.parser.HTMLParser):
    """The figures' mark counts, the recorded problems and the body's attributes."""

    def __init__(self):
        super().__init__()
        self.figures = {}
        self.problems = []
        self.root = {}
        self.body = {}
        self.no_data = 0
        self._in_problems_list = False
        self._in_problem = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "html":
            self.root = a
        if tag == "body":
            self.body = a
        if "figure" in (a.get("class") or "").split():
            self.figures[a.get("id")] = a
        if tag == "li" and self._in_problems_list:
            self._in_problem = True
            self.problems.append("")
        if tag == "ul" and a.get("id") == "hb-problems":
            self._in_problems_list = True
        if tag == "p" and a.get("class") == "no-data":
            self.no_data += 1

    def handle_endtag(self, tag):
        if tag == "ul":
            self._in_problems_list = False
        if tag == "li":
            self._in_problem = False

    def handle_data(self, data):
        if self._in_problem:
            self.problems[-1] += data


def chromium_binary():
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


def run_browser(browser, profile, args):
    """Runs Chromium to completion in a process group of its own, which is killed afterwards
    (its helpers included), whatever happens."""
    command = [browser, "--headless", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
               "--disable-extensions", "--disable-background-networking", "--disable-dev-shm-usage",
               f"--user-data-dir={profile}", "--enable-logging=stderr", "--v=0",
               "--virtual-time-budget=20000"]
    if os.geteuid() == 0:
        command.append("--no-sandbox")
    process = subprocess.Popen(command + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               start_new_session=True, text=True, errors="replace")
    try:
        out, err = process.communicate(timeout=BROWSER_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise SystemExit(f"FAIL: chromium {args[0]} did not finish in {BROWSER_TIMEOUT_S} s")
    finally:
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return process.returncode, out, err


def console_lines(stderr):
    return [line for line in stderr.splitlines() if ":CONSOLE" in line]


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    hetbench, fixture, out_dir = sys.argv[1:]
    browser = chromium_binary()
    if browser is None:
        print("chromium not found (scripts/setup installs Debian's chromium): skipped")
        return SKIP
    made = subprocess.run([hetbench, "report", "--file", fixture, "--format", "html"],
                          capture_output=True, text=True, timeout=60)
    if made.returncode != 0:
        if "built without the plotting library" in made.stderr:
            print(made.stderr.strip() + ": skipped")
            return SKIP
        print(f"FAIL: hetbench report exited {made.returncode}: {made.stderr}")
        return 1
    os.makedirs(out_dir, exist_ok=True)
    page = os.path.join(out_dir, "report.html")
    with open(page, "w", encoding="utf-8") as f:
        f.write(made.stdout)
    screenshot = os.path.join(out_dir, "report.png")
    if os.path.exists(screenshot):
        os.remove(screenshot)
    url = "file://" + os.path.abspath(page)

    failures = []
    with tempfile.TemporaryDirectory(prefix="hetbench-chromium-") as profile:
        code, dom, err = run_browser(browser, profile, ["--dump-dom", url])
        if code != 0 or not dom.strip():
            failures.append(f"chromium --dump-dom exited {code} with no DOM: {err[-2000:]}")
        failures += [f"console: {line}" for line in console_lines(err)]
        reader = PageReader()
        reader.feed(dom)
        if reader.body.get("data-drawn") != str(len(EXPECTED)):
            failures.append(f"the page drew {reader.body.get('data-drawn')} figures, want "
                            f"{len(EXPECTED)} (did it finish within the virtual time budget?)")
        failures += [f"recorded on the page: {p}" for p in reader.problems]
        if "data-pwned" in reader.root:
            failures.append("a run name's </script> ran as a script")
        if reader.no_data:
            failures.append(f"{reader.no_data} figures say they have no data")
        if sorted(reader.figures) != sorted(EXPECTED):
            failures.append(f"figures {sorted(reader.figures)}, want {sorted(EXPECTED)}")
        for figure, want in EXPECTED.items():
            attrs = reader.figures.get(figure, {})
            expected = json.loads(attrs.get("data-expected") or "null")
            rendered = json.loads(attrs.get("data-rendered") or "null")
            rendered = {k: v for k, v in (rendered or {}).items() if v}
            if expected != want:
                failures.append(f"{figure}: the page expects {expected}, the fixture implies {want}")
            if rendered != want:
                failures.append(f"{figure}: drew {rendered}, want {want}")

        profile2 = os.path.join(profile, "screenshot")
        code, _, err = run_browser(browser, profile2, [
            f"--screenshot={screenshot}", "--window-size=1280,4200", "--hide-scrollbars", url])
        failures += [f"console (screenshot): {line}" for line in console_lines(err)]
        try:
            with open(screenshot, "rb") as f:
                if f.read(8) != b"\x89PNG\r\n\x1a\n":
                    failures.append(f"{screenshot} is not a PNG")
        except OSError:
            failures.append(f"chromium --screenshot exited {code} and wrote no {screenshot}: "
                            f"{err[-2000:]}")

    print(f"page: {page}")
    print(f"screenshot: {screenshot}")
    if failures:
        for failure in failures:
            print("FAIL: " + failure)
        return 1
    print(f"ok: {len(EXPECTED)} figures drawn with the expected marks, no console message")
    return 0


if __name__ == "__main__":
    sys.exit(main())
