"""The ``eval --html`` page in a real browser: headless Chromium opens it from disk,
reports no console message (a script error, or a fetch the page's Content-Security-
Policy blocked), and lays out every chart with its axes and its points inside it.

Skipped where Chromium is not installed (Debian: ``apt-get install chromium``)."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

import pytest
from typer.testing import Result

from tests.evaluation.test_clean import clean_trees
from tests.evaluation.test_evaluation import corpus_of
from tests.evaluation.test_page import HOSTILE

Cli = Callable[..., Result]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="headless Chromium not found (Debian: apt-get install chromium): the page "
        "is checked in a real browser only where one is installed",
    ),
]

# Measured by the browser on a copy of the page (the page itself runs no script): how
# many axes and how many drawn marks (curve, points, bars) of each chart have a box on
# screen inside the chart's own box.
PROBE = """<script>
for (const svg of document.querySelectorAll('svg.chart')) {
  const box = svg.getBoundingClientRect();
  const inside = (el) => {
    const r = el.getBoundingClientRect();
    return r.width + r.height > 0 && r.left >= box.left - 1 && r.right <= box.right + 1
      && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
  };
  svg.dataset.axes = [...svg.querySelectorAll('g.axis')].filter(inside).length;
  svg.dataset.marks = [...svg.querySelectorAll('.curve, .point, .bar')].filter(inside).length;
}
</script>"""


def browse(page: Path, profile: Path, *extra: str) -> tuple[str, list[str]]:
    """Open ``page`` in headless Chromium; the serialized DOM and every console line."""
    assert CHROMIUM is not None
    proc = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--host-resolver-rules=MAP * ~NOTFOUND",  # nothing resolves: no network
            f"--user-data-dir={profile}",
            "--enable-logging=stderr",
            "--v=0",
            *extra,
            page.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    console = [
        line for line in proc.stderr.splitlines() if ":CONSOLE" in line or "Uncaught" in line
    ]
    return proc.stdout, console


class Charts(HTMLParser):
    """Each ``svg.chart`` of a DOM: its attributes and the (tag, class) of its parts."""

    def __init__(self) -> None:
        super().__init__()
        self.charts: list[tuple[dict[str, str], list[tuple[str, str]]]] = []
        self._inside = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {k: v or "" for k, v in attrs}
        if tag == "svg" and "chart" in attributes.get("class", ""):
            self.charts.append((attributes, []))
            self._inside = True
        elif self._inside:
            self.charts[-1][1].append((tag, attributes.get("class", "")))

    def handle_endtag(self, tag: str) -> None:
        if tag == "svg":
            self._inside = False


def charts_of(dom: str) -> list[tuple[dict[str, str], list[tuple[str, str]]]]:
    parser = Charts()
    parser.feed(dom)
    return parser.charts


def probed(page: Path, tmp_path: Path) -> list[dict[str, str]]:
    """The page's charts as laid out by the browser (``PROBE`` on a copy without the
    policy, which would rightly refuse the probe's script)."""
    text = page.read_text()
    start = text.index('<meta http-equiv="Content-Security-Policy"')
    copy = text[:start] + text[text.index(">", start) + 1 :]
    copy = copy.replace("</body>", PROBE + "</body>")
    probe = tmp_path / ("probe-" + page.name)
    probe.write_text(copy)
    dom, console = browse(probe, tmp_path / "profile-probe", "--dump-dom")
    assert console == []
    return [attributes for attributes, _ in charts_of(dom)]


def test_the_console_check_sees_script_errors_and_blocked_fetches(tmp_path: Path) -> None:
    """The check below would pass on a browser that logs nothing: show it logs."""
    bad = tmp_path / "bad.html"
    bad.write_text(
        '<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" '
        "content=\"default-src 'none'\"></head><body>"
        '<img src="http://example.invalid/x.png"></body></html>'
    )
    broken = tmp_path / "broken.html"
    broken.write_text("<!DOCTYPE html><html><body><script>missing();</script></body></html>")
    assert any("violates" in line for line in browse(bad, tmp_path / "p1", "--dump-dom")[1])
    assert any("Uncaught" in line for line in browse(broken, tmp_path / "p2", "--dump-dom")[1])


def test_the_eval_page_renders_without_errors_with_axes_and_points(
    cli: Cli, tmp_path: Path
) -> None:
    root = corpus_of(tmp_path / "corpus", ["acme__api", "acme__web", "beta__cli", HOSTILE])
    result = cli("eval", str(root), "--folds", "2", "--html", "eval.html")
    assert result.exit_code == 0, result.stderr
    page = tmp_path / "eval.html"
    shot = tmp_path / "eval.png"
    dom, console = browse(
        page, tmp_path / "profile", "--dump-dom", "--window-size=1280,2400", f"--screenshot={shot}"
    )
    assert console == []
    charts = charts_of(dom)
    assert [c[0]["aria-label"] for c in charts] == [
        "Precision-recall of P(real)",
        "Reliability of P(real)",
    ]
    for _, parts in charts:
        assert ("g", "axis axis-x") in parts and ("g", "axis axis-y") in parts
    (_, pr), (_, reliability) = charts
    assert ("polyline", "curve") in pr and ("circle", "point operating") in pr
    assert ("circle", "point") in reliability and ("rect", "bar") in reliability
    # the hostile repository name stayed text: no element came out of it
    assert "<img" not in dom.split("<body>", 1)[1]
    for attributes in probed(page, tmp_path):
        assert attributes["data-axes"] == "2", attributes["aria-label"]
        assert int(attributes["data-marks"]) >= 2, attributes["aria-label"]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


def test_the_clean_page_renders_bars_per_repository(cli: Cli, tmp_path: Path) -> None:
    trees = clean_trees(tmp_path / "wild")
    assert cli("eval", str(trees), "--clean", "--html", "clean.html").exit_code == 0
    page = tmp_path / "clean.html"
    dom, console = browse(page, tmp_path / "profile", "--dump-dom")
    assert console == []
    charts = charts_of(dom)
    assert len(charts) == 2
    for _, parts in charts:
        assert parts.count(("rect", "bar")) == 2  # one bar per repository
    for attributes in probed(page, tmp_path):
        assert attributes["data-axes"] == "2" and attributes["data-marks"] == "2"
