"""Charts as plain SVG written from the numbers: the precision-recall curve of P(real),
the reliability diagram of its calibration, and bars per repository.

Why plain SVG and no plotting library: the page ``thresher eval --html`` writes must be
one self-contained file (no script, font or image fetched from anywhere), and the model
card's charts must be reproduced byte for byte by ``train_scorer.py --check`` on any
machine. A plotting library would be a heavy dependency for a few lines and circles, and
its output moves with its releases. Every coordinate here is written with one decimal
and every figure with a fixed number of places, so the same numbers give the same bytes.

Text that comes from a corpus (repository names) is escaped: it is hostile input.
Each chart marks its parts with classes (``axis``, ``curve``, ``point``, ``bar``) so
that a test, or a reader's own stylesheet, can find them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

from thresher.scoring.metrics import CalibrationRow, CurvePoint

WIDTH = 560
HEIGHT = 400
LEFT, RIGHT, TOP, BOTTOM = 64, 24, 48, 72
TICKS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
FONT = "system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif"
BLUE, ORANGE, GREY, INK = "#1f6feb", "#d1480a", "#d0d7de", "#1f2328"
LABEL_CHARS = 30  # repository names longer than this are cut (the full name is the tooltip)


def _n(value: float) -> str:
    """A coordinate: one decimal, always (byte-stable output)."""
    return f"{value:.1f}"


def _clamp(value: float) -> float:
    return min(1.0, max(0.0, value))


@dataclass(frozen=True)
class _Area:
    """The drawing area: data in [0, 1] x [0, 1] mapped onto pixels."""

    left: float
    top: float
    width: float
    height: float

    def x(self, value: float) -> float:
        return self.left + _clamp(value) * self.width

    def y(self, value: float) -> float:
        return self.top + (1.0 - _clamp(value)) * self.height

    @property
    def bottom(self) -> float:
        return self.top + self.height


def _open(title: str, width: int, height: int) -> list[str]:
    label = escape(title)
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" role="img" '
        f'aria-label="{label}" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="{FONT}" font-size="12" fill="{INK}">',
        f"<title>{label}</title>",
        f'<rect class="background" width="{width}" height="{height}" fill="#ffffff"/>',
        f'<text class="heading" x="{LEFT}" y="24" font-size="15" font-weight="600">{label}</text>',
    ]


def _x_axis(area: _Area, label: str, ticks: Sequence[tuple[float, str]]) -> list[str]:
    parts = [
        '<g class="axis axis-x">',
        f'<line x1="{_n(area.left)}" y1="{_n(area.bottom)}" x2="{_n(area.x(1.0))}" '
        f'y2="{_n(area.bottom)}" stroke="{INK}"/>',
    ]
    for value, text in ticks:
        x = _n(area.x(value))
        parts += [
            f'<line class="tick" x1="{x}" y1="{_n(area.bottom)}" x2="{x}" '
            f'y2="{_n(area.bottom + 5)}" stroke="{INK}"/>',
            f'<text x="{x}" y="{_n(area.bottom + 19)}" text-anchor="middle">{text}</text>',
        ]
    parts += [
        f'<text class="label" x="{_n(area.x(0.5))}" y="{_n(area.bottom + 40)}" '
        f'text-anchor="middle">{escape(label)}</text>',
        "</g>",
    ]
    return parts


def _y_axis(area: _Area, label: str) -> list[str]:
    parts = [
        '<g class="axis axis-y">',
        f'<line x1="{_n(area.left)}" y1="{_n(area.top)}" x2="{_n(area.left)}" '
        f'y2="{_n(area.bottom)}" stroke="{INK}"/>',
    ]
    for value in TICKS:
        y = _n(area.y(value))
        parts += [
            f'<line class="grid" x1="{_n(area.left)}" y1="{y}" x2="{_n(area.x(1.0))}" '
            f'y2="{y}" stroke="{GREY}" stroke-width="0.5"/>',
            f'<line class="tick" x1="{_n(area.left - 5)}" y1="{y}" x2="{_n(area.left)}" '
            f'y2="{y}" stroke="{INK}"/>',
            f'<text x="{_n(area.left - 8)}" y="{_n(area.y(value) + 4)}" '
            f'text-anchor="end">{value:.1f}</text>',
        ]
    middle = _n(area.y(0.5))
    parts += [
        f'<text class="label" x="18" y="{middle}" text-anchor="middle" '
        f'transform="rotate(-90 18 {middle})">{escape(label)}</text>',
        "</g>",
    ]
    return parts


def _unit_area(width: int = WIDTH, height: int = HEIGHT) -> _Area:
    return _Area(LEFT, TOP, width - LEFT - RIGHT, height - TOP - BOTTOM)


def _legend(area: _Area, rows: Sequence[tuple[str, str]]) -> list[str]:
    """Legend lines below the x axis label: (swatch SVG at x=0, text)."""
    parts = ['<g class="legend">']
    for index, (swatch, text) in enumerate(rows):
        y = area.bottom + 58 + 14 * index
        parts.append(
            f'<g transform="translate({_n(area.left)} {_n(y)})">{swatch}'
            f'<text x="18" y="4" font-size="11">{escape(text)}</text></g>'
        )
    parts.append("</g>")
    return parts


def pr_curve_svg(
    curve: Sequence[CurvePoint], operating: tuple[float, float] | None, *, title: str
) -> str:
    """Precision against recall of ``real`` as P(real)'s threshold falls, with the
    operating point (recall, precision of the offline ``real`` calls) marked: where a
    reader sees what a decisive ``real`` costs in missed lines."""
    legend_rows = 2 if operating is not None else 1
    height = HEIGHT + 14 * legend_rows
    area = _unit_area(height=HEIGHT)
    parts = _open(title, WIDTH, height)
    parts += _y_axis(area, "precision") + _x_axis(
        area, "recall of real lines", [(t, f"{t:.1f}") for t in TICKS]
    )
    if curve:
        points = " ".join(f"{_n(area.x(p.recall))},{_n(area.y(p.precision))}" for p in curve)
        parts.append(
            f'<polyline class="curve" points="{points}" fill="none" stroke="{BLUE}" '
            'stroke-width="2" stroke-linejoin="round"/>'
        )
    else:
        parts.append(
            f'<text class="empty" x="{_n(area.x(0.5))}" y="{_n(area.y(0.5))}" '
            'text-anchor="middle">no labelled real line</text>'
        )
    legend = [
        (
            f'<line x1="0" y1="0" x2="14" y2="0" stroke="{BLUE}" stroke-width="2"/>',
            "P(real) ranked: precision and recall at each threshold",
        )
    ]
    if operating is not None:
        recall, precision = operating
        text = (
            f"operating point: offline real calls (recall {recall:.3f}, precision {precision:.3f})"
        )
        parts.append(
            f'<circle class="point operating" cx="{_n(area.x(recall))}" '
            f'cy="{_n(area.y(precision))}" r="6" fill="{ORANGE}" stroke="#ffffff" '
            f'stroke-width="1.5"><title>{escape(text)}</title></circle>'
        )
        legend.append((f'<circle cx="7" cy="0" r="5" fill="{ORANGE}"/>', text))
    parts += _legend(area, legend)
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def reliability_svg(rows: Sequence[CalibrationRow], *, title: str) -> str:
    """One slot per P(real) bin: the bar is the observed share of real lines, the dash
    the mean predicted P(real) (where the bar would end if P(real) were honest), the
    number under the slot its line count. Bins are drawn side by side, not on a
    continuous axis, so that the crowded low bins (most lines) stay readable."""
    height = HEIGHT + 28
    area = _unit_area(height=HEIGHT)
    parts = _open(title, WIDTH, height)
    parts += _y_axis(area, "share of lines labelled real")
    slots = max(1, len(rows))
    slot = area.width / slots
    parts += [
        '<g class="axis axis-x">',
        f'<line x1="{_n(area.left)}" y1="{_n(area.bottom)}" x2="{_n(area.x(1.0))}" '
        f'y2="{_n(area.bottom)}" stroke="{INK}"/>',
    ]
    for index, row in enumerate(rows):
        middle = _n(area.left + slot * (index + 0.5))
        parts += [
            f'<text x="{middle}" y="{_n(area.bottom + 16)}" text-anchor="middle" '
            f'font-size="10">{row.low:g}-{row.high:g}</text>',
            f'<text class="count" x="{middle}" y="{_n(area.bottom + 30)}" '
            f'text-anchor="middle" font-size="10">{row.lines}</text>',
        ]
    parts += [
        f'<text class="label" x="{_n(area.x(0.5))}" y="{_n(area.bottom + 48)}" '
        'text-anchor="middle">P(real) bin (lines under each)</text>',
        "</g>",
        '<g class="points">',
    ]
    if not rows:
        parts.append(
            f'<text class="empty" x="{_n(area.x(0.5))}" y="{_n(area.y(0.5))}" '
            'text-anchor="middle">no labelled line with a P(real)</text>'
        )
    for index, row in enumerate(rows):
        x0 = area.left + slot * index + slot * 0.2
        x1 = area.left + slot * (index + 0.8)
        centre = area.left + slot * (index + 0.5)
        tip = (
            f"P(real) in [{row.low:g}, {row.high:g}): {row.lines} lines, mean predicted "
            f"{row.predicted:.3f}, observed share real {row.observed:.3f}"
        )
        top = area.y(row.observed)
        parts += [
            f'<g class="bin"><title>{escape(tip)}</title>',
            f'<rect class="bar" x="{_n(x0)}" y="{_n(top)}" width="{_n(x1 - x0)}" '
            f'height="{_n(area.bottom - top)}" fill="{BLUE}" fill-opacity="0.35"/>',
            f'<circle class="point" cx="{_n(centre)}" cy="{_n(top)}" r="4" fill="{BLUE}"/>',
            f'<line class="predicted" x1="{_n(x0 - 3)}" y1="{_n(area.y(row.predicted))}" '
            f'x2="{_n(x1 + 3)}" y2="{_n(area.y(row.predicted))}" stroke="{ORANGE}" '
            'stroke-width="2.5"/>',
            "</g>",
        ]
    parts.append("</g>")
    legend_area = _Area(area.left, area.top, area.width, area.height + 14)
    parts += _legend(
        legend_area,
        [
            (f'<circle cx="7" cy="0" r="4" fill="{BLUE}"/>', "observed share of real lines"),
            (
                f'<line x1="0" y1="0" x2="14" y2="0" stroke="{ORANGE}" stroke-width="2.5"/>',
                "mean predicted P(real): a calibrated scorer's point sits on its dash",
            ),
        ],
    )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


@dataclass(frozen=True)
class Bar:
    """One repository's bar: its name (corpus text: escaped when drawn), its value and
    the text printed at the end of the bar."""

    label: str
    value: float
    text: str


def count_ticks(maximum: float) -> list[float]:
    """Whole-number ticks from 0 that cover ``maximum`` in at most 6 steps of 1, 2 or 5
    times a power of ten: a count axis reads 0, 5, 10, 15, never 0.2."""
    top = max(1.0, maximum)
    step = 1.0
    while top / step > 6:
        for factor in (2.0, 2.5, 2.0):  # 1 -> 2 -> 5 -> 10
            step *= factor
            if top / step <= 6:
                break
    return [step * i for i in range(math.ceil(top / step - 1e-9) + 1)]


def bars_svg(bars: Sequence[Bar], *, title: str, axis: str, share: bool = False) -> str:
    """Horizontal bars, one row per repository, on a common scale: 0 to 100% for a
    ``share``, else whole-number ticks up to the largest value."""
    row, label_width = 20, 220
    if share:
        values = list(TICKS)
        labels = [f"{t:.0%}" for t in TICKS]
    else:
        values = count_ticks(max((b.value for b in bars), default=0.0))
        labels = [f"{t:g}" for t in values]
    scale = values[-1]
    height = TOP + row * max(1, len(bars)) + 56
    area = _Area(label_width, TOP, WIDTH + 120 - label_width - RIGHT - 40, row * max(1, len(bars)))
    parts = _open(title, WIDTH + 120, height)
    ticks = [(v / scale, label) for v, label in zip(values, labels, strict=True)]
    parts += _x_axis(area, axis, ticks)
    parts += [
        '<g class="axis axis-y">',
        f'<line x1="{_n(area.left)}" y1="{_n(area.top)}" x2="{_n(area.left)}" '
        f'y2="{_n(area.bottom)}" stroke="{INK}"/>',
        "</g>",
        '<g class="points">',
    ]
    if not bars:
        parts.append(
            f'<text class="empty" x="{_n(area.x(0.5))}" y="{_n(area.top + 14)}" '
            'text-anchor="middle">no repository</text>'
        )
    for index, bar in enumerate(bars):
        y = area.top + row * index
        name = bar.label if len(bar.label) <= LABEL_CHARS else bar.label[: LABEL_CHARS - 1] + "…"
        end = area.x(bar.value / scale)
        parts += [
            f'<g class="row"><title>{escape(bar.label)}: {escape(bar.text)}</title>',
            f'<text x="{_n(area.left - 8)}" y="{_n(y + 14)}" text-anchor="end" '
            f'font-size="11">{escape(name)}</text>',
            f'<rect class="bar" x="{_n(area.left)}" y="{_n(y + 4)}" '
            f'width="{_n(end - area.left)}" height="{_n(row - 8)}" fill="{BLUE}"/>',
            f'<text x="{_n(end + 4)}" y="{_n(y + 14)}" font-size="11">{escape(bar.text)}</text>',
            "</g>",
        ]
    parts += ["</g>", "</svg>"]
    return "\n".join(parts) + "\n"
