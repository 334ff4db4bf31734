"""``thresher eval --html``: the evaluation as one page a person looks at.

The text output is for a terminal and the JSON for a program; a security team deciding
whether to trust the offline calls wants a picture: where the calibrated P(real) is
honest and where it is not, how precision falls as recall rises, which repositories make
the false alarms. This module renders that page from the typed results, as every
renderer does (it returns text; the CLI writes it).

The page is one self-contained file: inline CSS and inline SVG (``charts``), no script,
and a Content-Security-Policy that forbids fetching anything, so opening it reaches no
network and a hostile name in the corpus cannot make it load or run anything. Every
string that comes from the corpus (its path, repository names, rule names) is
HTML-escaped in the one place cells are written. Secret values are not in the typed
results at all: the page holds figures, repositories and rules only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from thresher import __version__
from thresher.evaluation.charts import Bar, bars_svg, pr_curve_svg, reliability_svg
from thresher.evaluation.clean import CleanResult
from thresher.evaluation.corpus import LABELS
from thresher.evaluation.figures import Breakdown, Scores
from thresher.evaluation.secrets import EvalResult

# Nothing may be fetched: styles are inline, images are inline SVG, there is no script.
CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; "
    "form-action 'none'"
)

STYLE = """
body { font-family: system-ui, -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif;
  color: #1f2328; margin: 2rem auto; max-width: 1180px; padding: 0 1rem; line-height: 1.45; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.2rem; margin-top: 2rem; border-bottom: 1px solid #d0d7de; }
.meta { color: #59636e; margin-top: 0; }
.warning { background: #fff8c5; border: 1px solid #d4a72c; padding: 0.6rem 0.8rem; }
.cards { display: flex; flex-wrap: wrap; gap: 0.8rem; margin: 1rem 0; }
.card { border: 1px solid #d0d7de; border-radius: 6px; padding: 0.6rem 0.9rem; min-width: 9rem; }
.card .value { font-size: 1.5rem; font-weight: 600; }
.card .name { color: #59636e; font-size: 0.85rem; }
.charts { display: flex; flex-wrap: wrap; gap: 1.5rem; }
.charts svg { border: 1px solid #d0d7de; border-radius: 6px; max-width: 100%; height: auto; }
table { border-collapse: collapse; margin: 0.6rem 0; font-size: 0.9rem; }
th, td { border: 1px solid #d0d7de; padding: 0.25rem 0.6rem; }
th { background: #f6f8fa; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
footer { color: #59636e; margin-top: 2rem; font-size: 0.85rem; }
"""


def _cell(value: object, header: bool = False) -> str:
    text = escape(str(value))
    if header:
        return f"<th>{text}</th>"
    numeric = isinstance(value, int | float) or (
        isinstance(value, str) and value[:1].isdigit() and " " not in value
    )
    return f'<td class="n">{text}</td>' if numeric else f"<td>{text}</td>"


def _table(headers: Sequence[str], rows: Sequence[Sequence[object]], name: str) -> str:
    """Every corpus string reaches the page through here (or ``_cards``), escaped."""
    head = "".join(_cell(h, header=True) for h in headers)
    body = "\n".join("<tr>" + "".join(_cell(c) for c in row) + "</tr>" for row in rows)
    return f'<table class="{escape(name)}">\n<tr>{head}</tr>\n{body}\n</table>'


def _cards(cards: Sequence[tuple[str, str]]) -> str:
    items = "".join(
        f'<div class="card"><div class="value">{escape(value)}</div>'
        f'<div class="name">{escape(name)}</div></div>'
        for name, value in cards
    )
    return f'<div class="cards">{items}</div>'


def _page(title: str, body: Sequence[str]) -> str:
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{escape(title)}</title>",
            f"<style>{STYLE}</style>",
            "</head>",
            "<body>",
            *body,
            f"<footer>Written by thresher {escape(__version__)} (<code>thresher eval "
            "--html</code>). Figures, repositories and rules only: no secret value is "
            "ever in this page.</footer>",
            "</body>",
            "</html>",
            "",
        ]
    )


def _f(value: float) -> str:
    return f"{value:.3f}"


def _scores_row(name: str, s: Scores, what: str) -> list[object]:
    return [name, _f(s.precision), _f(s.recall), _f(s.f1), what]


def _slices(rows: Mapping[str, Breakdown]) -> list[list[object]]:
    ordered = sorted(rows.items(), key=lambda kv: (-kv[1].lines, kv[0]))
    return [
        [
            name,
            row.lines,
            row.labels.get("real", 0),
            _f(row.scores.precision),
            _f(row.scores.recall),
        ]
        for name, row in ordered
    ]


_SLICE_HEAD = ["", "lines", "real", "precision", "recall"]


def render_html(result: EvalResult) -> str:
    """The labelled evaluation: headline figures, the two charts, the tables."""
    ranking = result.ranking["all"]
    t = result.thresher
    body = [
        f"<h1>thresher eval: {escape(result.corpus)}</h1>",
        f'<p class="meta">{escape(result.mode.value)}'
        + (f" ({result.folds_requested} folds)" if result.folds_requested else "")
        + f"; {result.repositories} repositories, each scanned as its own root; "
        f"{result.labelled_flagged_lines} labelled flagged lines "
        f"({result.unlabelled_flagged_lines} unlabelled, not scored)</p>",
    ]
    if result.in_sample:
        body.append(
            '<p class="warning">In-sample: the shipped scorer was trained on this very '
            "corpus. Use <code>--folds 5</code> for held-out figures.</p>"
        )
    body += [
        _cards(
            [
                ("average precision of P(real)", _f(ranking.average_precision)),
                ("precision at recall 0.9", _f(ranking.precision_at_recall_90)),
                (
                    f"decisive real precision ({ranking.decisive_wrong_real} wrong)",
                    _f(ranking.decisive_real_precision),
                ),
                (
                    f"real lines dismissed decisively ({ranking.decisive_misses})",
                    f"{ranking.dismissal_miss_rate:.1%}",
                ),
                (
                    f"escalated (--escalate {result.escalate.value})",
                    f"{result.escalation_rate:.1%}",
                ),
                ("detection recall", _f(result.detection_recall)),
            ]
        ),
        _table(
            ["for real against the rest", "precision", "recall", "F1", ""],
            [
                _scores_row("thresher", t, "offline calls"),
                _scores_row("oracle ceiling", result.oracle, "escalated findings decided right"),
                _scores_row("baseline", result.baseline, "every flagged line real"),
            ],
            "headline",
        ),
        "<h2>Charts</h2>",
        '<div class="charts">',
        pr_curve_svg(
            result.precision_recall,
            (t.recall, t.precision) if ranking.real_lines else None,
            title="Precision-recall of P(real)",
        ),
        reliability_svg(result.calibration, title="Reliability of P(real)"),
        "</div>",
    ]
    if result.folds:
        body += [
            "<h2>Per fold</h2>",
            _table(
                [
                    "fold",
                    "repositories",
                    "lines",
                    "avg precision",
                    "P@R0.9",
                    "precision",
                    "recall",
                    "F1",
                    "escalated",
                    "oracle precision",
                    "oracle recall",
                    "band",
                ],
                [
                    [
                        f.fold,
                        len(f.repositories),
                        f.lines,
                        _f(f.ranking["all"].average_precision),
                        _f(f.ranking["all"].precision_at_recall_90),
                        _f(f.thresher.precision),
                        _f(f.thresher.recall),
                        _f(f.thresher.f1),
                        _f(f.escalation_rate),
                        _f(f.oracle.precision),
                        _f(f.oracle.recall),
                        f"({f.band[0]:g}, {f.band[1]:g})",
                    ]
                    for f in result.folds
                ],
                "folds",
            ),
            *(
                f"<details><summary>fold {f.fold}: {len(f.repositories)} repositories held "
                "out</summary><p>" + escape(", ".join(f.repositories)) + "</p></details>"
                for f in result.folds
            ),
            _table(
                ["figure", "mean", "stdev", "min", "max"],
                [
                    [name, _f(s["mean"]), _f(s["stdev"]), _f(s["min"]), _f(s["max"])]
                    for name, s in result.fold_summary.items()
                ],
                "fold-summary",
            ),
        ]
    body += [
        "<h2>Per label source</h2>",
        _table(
            [
                "source",
                "lines",
                "real",
                "avg precision",
                "P@R0.9",
                "decisive real precision",
                "wrong",
                "decisive misses",
                "miss share",
            ],
            [
                [
                    source,
                    r.lines,
                    r.real_lines,
                    _f(r.average_precision),
                    _f(r.precision_at_recall_90),
                    _f(r.decisive_real_precision),
                    r.decisive_wrong_real,
                    r.decisive_misses,
                    _f(r.dismissal_miss_rate),
                ]
                for source, r in result.ranking.items()
            ],
            "label-sources",
        ),
        "<h2>Per finding source</h2>",
        _table(["finding source", *_SLICE_HEAD[1:]], _slices(result.by_source), "sources"),
        "<h2>Confusion (rows: label, columns: thresher)</h2>",
        _table(
            ["label", *LABELS],
            [[truth, *(result.confusion[truth][call] for call in LABELS)] for truth in LABELS],
            "confusion",
        ),
        "<h2>Calibration</h2>",
        _table(
            ["P(real) bin", "lines", "mean predicted", "observed share real"],
            [
                [f"[{r.low:g}, {r.high:g})", r.lines, _f(r.predicted), _f(r.observed)]
                for r in result.calibration
            ],
            "calibration",
        ),
        "<h2>By scanner rule</h2>",
        _table(["rule", *_SLICE_HEAD[1:]], _slices(result.by_rule), "rules"),
        "<h2>By file kind</h2>",
        _table(["file kind", *_SLICE_HEAD[1:]], _slices(result.by_file_kind), "file-kinds"),
        f'<p class="meta">{result.findings} findings; decided without a model call: '
        f"{result.decided_without_model:.1%}; {result.requests} model requests; wall time "
        f"{result.wall_seconds:.1f} s; models: "
        + escape(", ".join(f"{a}={m}" for a, m in sorted(result.models.items())))
        + "</p>",
    ]
    return _page(f"thresher eval: {result.corpus}", body)


def render_clean_html(result: CleanResult) -> str:
    """Clean trees: false ``real`` and the escalated share per repository, as bars."""
    # The repositories that make the most false alarms first, the same order in both
    # charts and the table, so a row reads across.
    rows = sorted(result.repositories, key=lambda r: (-r.false_real, -r.escalated, r.repository))
    body = [
        f"<h1>thresher eval --clean: {escape(result.corpus)}</h1>",
        f'<p class="meta">{len(rows)} repository trees with no live credential: every '
        "<code>real</code> call is a false alarm, every escalation costs model calls.</p>",
    ]
    if result.in_sample:
        body.append(
            '<p class="warning">In-sample: the shipped scorer was trained on these trees; '
            "quote the model card's grouped cross-validation instead.</p>"
        )
    body += [
        _cards(
            [
                ("findings", str(result.findings)),
                ("false real", str(result.false_real)),
                ("of them decisive", str(result.decisive_false_real)),
                ("false real a repository", f"{result.false_real_per_repository:g}"),
                ("median a repository", f"{result.median_false_real:g}"),
                (
                    f"escalated (--escalate {result.escalate.value})",
                    f"{result.escalation_rate:.1%}",
                ),
            ]
        ),
        "<h2>Per repository</h2>",
        '<div class="charts">',
        bars_svg(
            [Bar(r.repository, r.false_real, f"{r.false_real}") for r in rows],
            title="False real calls per repository",
            axis="findings called real",
        ),
        bars_svg(
            [
                Bar(
                    r.repository,
                    r.escalated / r.findings if r.findings else 0.0,
                    f"{r.escalated / r.findings if r.findings else 0.0:.1%} of {r.findings}",
                )
                for r in rows
            ],
            title="Escalated share per repository",
            axis="share of findings escalated",
            share=True,
        ),
        "</div>",
        _table(
            ["repository", "commit", "findings", "false real", "decisive", "escalated"],
            [
                [
                    r.repository,
                    r.commit[:12],
                    r.findings,
                    r.false_real,
                    r.decisive_false_real,
                    r.escalated,
                ]
                for r in rows
            ],
            "repositories",
        ),
        "<h2>False real by file kind</h2>",
        _table(
            ["file kind", "false real"],
            [[kind, count] for kind, count in result.false_real_by_file_kind.items()],
            "file-kinds",
        ),
        f'<p class="meta">wall time {result.wall_seconds:g} s</p>',
    ]
    return _page(f"thresher eval --clean: {result.corpus}", body)
