"""Render the examples' HTML report in headless Chromium and check it as a reviewer would see it.

    python scripts/render_report.py [--out DIR] [--chromium PATH] [--width 1280] [--height 800]

It copies ``examples/`` and ``fixtures/`` to ``DIR/work`` and runs the examples there with this
checkout's package (``PYTHONPATH``) three times, each session appending to one history file:

1. the examples as they are, re-baselining ``test_merge_gate.py`` with
   ``tempoeval_baseline_rankings = true`` (so its baseline stores each query's top k);
2. the examples again (every check passes: a second point of each trend);
3. the examples with a failing gate: the merge-gate test's retriever is swapped for plain BM25,
   so its checks drop against the baseline. This session writes ``DIR/report.html`` (and
   ``report.json``, ``report.md``).

Then Chromium (``chromium``, ``chromium-browser`` or ``google-chrome`` on the PATH, or
``--chromium``) renders the page at ``--width`` px: ``DIR/screen-1.png`` (the first screen,
width x height), ``DIR/screens-1-2.png`` (the first two screens) and ``DIR/full.png`` (the first
6,000 px); it measures the page from a copy with a one-line probe script (``--dump-dom``), and
fails when ``document.documentElement.scrollWidth`` exceeds the width (a horizontal scrollbar), when
a failed check's chart ends below the first two screens, or when the report has a script (it must
read the same with JavaScript off). Look at the PNGs as a reviewer would.

Chromium on Debian or Ubuntu: ``apt-get install chromium``. Nothing here needs the network.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
# The swap that makes the merge gate fail: the reranked run replaced by plain BM25's.
RERANKED = "TemporalReranker(bm25, tempoeval_gold.documents).search"
PLAIN = "bm25.search"
# The probe: the page's widths and height, and where the failed checks' charts end (px from the
# top): the overview, the failed checks and their drop charts should be in the first two screens.
PROBE = (
    '<pre id="tempoeval-probe"></pre><script>var charts=Array.from(document.querySelectorAll('
    '"details.st-FAIL figure.chart")).map(function(f){return Math.round('
    "f.getBoundingClientRect().bottom+window.scrollY)});"
    'document.getElementById("tempoeval-probe")'
    ".textContent=JSON.stringify({scrollWidth:document.documentElement.scrollWidth,"
    "clientWidth:document.documentElement.clientWidth,"
    "scrollHeight:document.documentElement.scrollHeight,failedCharts:charts})</script>"
)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument(
        "--out", type=Path, default=Path(tempfile.gettempdir()) / "tempoeval-report"
    )
    parser.add_argument("--chromium", help="the browser to run (default: found on the PATH)")
    parser.add_argument("--width", type=int, default=1280)
    parser.add_argument("--height", type=int, default=800)
    options = parser.parse_args(argv)
    browser = options.chromium or next(filter(None, map(shutil.which, BROWSERS)), None)
    if browser is None:
        print("no Chromium found: apt-get install chromium, or pass --chromium", file=sys.stderr)
        return 2
    out = options.out.resolve()
    page = make_report(out)
    width, height = options.width, options.height
    screenshot(browser, page, out / "screen-1.png", width, height)
    screenshot(browser, page, out / "screens-1-2.png", width, 2 * height)
    screenshot(browser, page, out / "full.png", width, 6000)
    measured = measure(browser, page, width, height)
    if "<script" in page.read_text(encoding="utf-8"):  # it must read the same with JavaScript off
        print("FAIL: the report has a script", file=sys.stderr)
        return 1
    print(f"report: {page}")
    print(
        f"at {width} px: scrollWidth {measured['scrollWidth']}, clientWidth "
        f"{measured['clientWidth']}, page height {measured['scrollHeight']} px"
    )
    print(f"screenshots: {', '.join(sorted(p.name for p in out.glob('*.png')))} in {out}")
    charts = measured["failedCharts"]
    print(f"the failed checks' charts end at {charts} px (two screens: {2 * height} px)")
    if measured["scrollWidth"] > width:
        print(f"FAIL: the page is {measured['scrollWidth']} px wide at {width} px", file=sys.stderr)
        return 1
    if not charts or max(charts) > 2 * height:
        print(
            "FAIL: the failed checks' charts are not all in the first two screens", file=sys.stderr
        )
        return 1
    return 0


def make_report(out: Path) -> Path:
    """Run the examples three times (see the module's doc); the last session's HTML report."""
    work = out / "work"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    for name in ("examples", "fixtures"):
        shutil.copytree(REPO / name, work / name, ignore=shutil.ignore_patterns("__pycache__"))
    (work / "pytest.ini").write_text(
        "[pytest]\naddopts = -p no:cacheprovider -p no:langsmith_plugin\n"
    )
    history = out / "history.jsonl"
    history.unlink(missing_ok=True)
    rankings = ["-o", "tempoeval_baseline_rankings=true"]
    gate = "examples/test_merge_gate.py"
    run(work, [gate, "--tempoeval-update-baseline", *rankings], expect=0)
    run(work, ["examples", f"--tempoeval-history={history}"], expect=0)
    run(work, ["examples", f"--tempoeval-history={history}"], expect=0)
    test = work / gate
    source = test.read_text(encoding="utf-8")
    if RERANKED not in source:
        raise SystemExit(f"{test}: {RERANKED!r} not found: update scripts/render_report.py")
    test.write_text(source.replace(RERANKED, PLAIN), encoding="utf-8")
    page = out / "report.html"
    reports = [
        f"--tempoeval-history={history}",
        f"--tempoeval-html={page}",
        f"--tempoeval-report={out / 'report.json'}",
        f"--tempoeval-markdown={out / 'report.md'}",
    ]
    run(work, ["examples", *reports], expect=1)
    return page


def run(work: Path, arguments: list[str], expect: int) -> None:
    environment = {**os.environ, "PYTHONPATH": str(REPO)}
    environment.pop("GITHUB_STEP_SUMMARY", None)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", *arguments],
        cwd=work,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != expect:
        sys.stderr.write(done.stdout[-4000:] + done.stderr[-4000:])
        raise SystemExit(f"pytest {' '.join(arguments)} exited {done.returncode}, not {expect}")


def chromium(browser: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    with tempfile.TemporaryDirectory(prefix="tempoeval-chromium-") as profile:
        return subprocess.run(
            [
                browser,
                "--headless",
                "--no-sandbox",  # as root, in a container
                "--disable-gpu",
                "--hide-scrollbars",
                "--no-first-run",
                f"--user-data-dir={profile}",
                *arguments,
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )


def screenshot(browser: str, page: Path, png: Path, width: int, height: int) -> None:
    chromium(browser, f"--window-size={width},{height}", f"--screenshot={png}", page.as_uri())


def measure(browser: str, page: Path, width: int, height: int) -> dict[str, Any]:
    """The page's widths and height in Chromium, read by a probe script in a copy of the page."""
    probe = page.with_name("probe.html")
    probe.write_text(page.read_text(encoding="utf-8").replace("</main>", "</main>" + PROBE, 1))
    done = chromium(browser, f"--window-size={width},{height}", "--dump-dom", probe.as_uri())
    found = re.search(r'<pre id="tempoeval-probe">([^<]*)</pre>', done.stdout)
    if found is None:
        raise SystemExit("the probe found nothing: Chromium ran no script?")
    measured: dict[str, Any] = json.loads(found.group(1))
    return measured


if __name__ == "__main__":
    raise SystemExit(main())
