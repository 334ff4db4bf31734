"""The SVG charts: drawn from the numbers alone, byte-stable, corpus text escaped."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from thresher.evaluation.charts import Bar, bars_svg, count_ticks, pr_curve_svg, reliability_svg
from thresher.scoring.metrics import CalibrationRow, pr_curve

SVG = "{http://www.w3.org/2000/svg}"

POINTS = [(0.95, True, 1.0), (0.9, True, 1.0), (0.7, False, 1.0), (0.4, True, 1.0)] + [
    (0.01 * i, i % 7 == 0, 1.0) for i in range(40)
]
ROWS = [
    CalibrationRow(low=0.0, high=0.02, lines=3301, predicted=0.005, observed=0.013),
    CalibrationRow(low=0.5, high=0.7, lines=306, predicted=0.606, observed=0.641),
    CalibrationRow(low=0.98, high=1.0, lines=335, predicted=0.991, observed=0.976),
]


def classes(svg: str, tag: str) -> list[str]:
    root = ET.fromstring(svg)
    return [el.get("class", "") for el in root.iter(f"{SVG}{tag}")]


def test_the_precision_recall_chart_has_axes_a_curve_and_the_operating_point() -> None:
    svg = pr_curve_svg(pr_curve(POINTS), (0.5, 0.9), title="PR")
    root = ET.fromstring(svg)  # well-formed XML: it also works as a file beside the card
    groups = [g.get("class", "") for g in root.iter(f"{SVG}g")]
    assert "axis axis-x" in groups and "axis axis-y" in groups
    (curve,) = [p for p in root.iter(f"{SVG}polyline") if p.get("class") == "curve"]
    assert len(curve.get("points", "").split()) >= 2
    assert "point operating" in classes(svg, "circle")
    assert "recall 0.500, precision 0.900" in svg


def test_the_reliability_diagram_has_one_point_bar_and_count_per_bin() -> None:
    svg = reliability_svg(ROWS, title="Reliability")
    assert classes(svg, "circle").count("point") == len(ROWS)
    assert classes(svg, "rect").count("bar") == len(ROWS)
    counts = [t.text for t in ET.fromstring(svg).iter(f"{SVG}text") if t.get("class") == "count"]
    assert counts == ["3301", "306", "335"]


def test_charts_are_byte_stable_and_written_only_from_the_numbers() -> None:
    first = pr_curve_svg(pr_curve(POINTS), (0.5, 0.9), title="PR") + reliability_svg(
        ROWS, title="R"
    )
    again = pr_curve_svg(pr_curve(list(POINTS)), (0.5, 0.9), title="PR") + reliability_svg(
        list(ROWS), title="R"
    )
    assert first == again


def test_empty_data_draws_axes_and_says_so() -> None:
    for svg in (
        pr_curve_svg([], None, title="PR"),
        reliability_svg([], title="R"),
        bars_svg([], title="B", axis="x"),
    ):
        root = ET.fromstring(svg)
        assert any(t.get("class") == "empty" for t in root.iter(f"{SVG}text"))
        assert any("axis" in g.get("class", "") for g in root.iter(f"{SVG}g"))


def test_repository_names_are_escaped_in_bars() -> None:
    hostile = 'acme__<script>alert("x")</script>&'
    svg = bars_svg([Bar(hostile, 2.0, "2"), Bar("beta__lib", 0.0, "0")], title="B", axis="n")
    assert "<script>" not in svg
    root = ET.fromstring(svg)  # still well-formed: nothing broke out of its element
    assert classes(svg, "rect").count("bar") == 2
    titles = [t.text or "" for t in root.iter(f"{SVG}title")]
    assert any(hostile in t for t in titles)  # the full name, as text


def test_count_axes_tick_whole_numbers_that_cover_the_largest_bar() -> None:
    assert count_ticks(0) == [0.0, 1.0]
    assert count_ticks(18) == [0.0, 5.0, 10.0, 15.0, 20.0]
    for maximum in (1, 7, 23, 83, 739):
        ticks = count_ticks(maximum)
        assert ticks[-1] >= maximum and len(ticks) <= 7
        assert all(t == int(t) for t in ticks)
    svg = bars_svg([Bar("acme__app", 0.25, "25.0% of 4")], title="B", axis="share", share=True)
    assert ">100%</text>" in svg
