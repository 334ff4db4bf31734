"""``thresher eval`` as text: the figures a reader checks first, then the breakdowns."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from thresher.evaluation.corpus import LABELS
from thresher.evaluation.figures import Breakdown
from thresher.evaluation.secrets import EvalResult


def confusion_table(
    confusion: Mapping[str, Mapping[str, int]], labels: Sequence[str], width: int
) -> list[str]:
    """The confusion matrix as text, labels down and thresher's calls across (also the
    dependency evaluation's)."""
    return [
        "confusion (rows: label, columns: thresher)",
        "              " + "".join(f"{name:>{width}}" for name in labels),
        *(
            f"{truth:>12}  " + "".join(f"{confusion[truth][call]:>{width}}" for call in labels)
            for truth in labels
        ),
    ]


def _slices(title: str, rows: dict[str, Breakdown]) -> list[str]:
    lines = ["", f"{title:<34} lines   real   prec  recall", "-" * 60]
    for name, row in sorted(rows.items(), key=lambda kv: (-kv[1].lines, kv[0])):
        lines.append(
            f"{name[:34]:<34} {row.lines:>5} {row.labels.get('real', 0):>6} "
            f"{row.scores.precision:6.3f} {row.scores.recall:7.3f}"
        )
    return lines


def render_text(result: EvalResult) -> str:
    t, b, o = result.thresher, result.baseline, result.oracle
    lines = [
        f"corpus: {result.corpus} ({result.repositories} repositories, each scanned as its "
        "own root)",
        f"mode: {result.mode.value}"
        + (f" ({result.folds_requested} folds)" if result.folds_requested else ""),
    ]
    if result.in_sample:
        lines.append(
            "WARNING: in-sample: the shipped scorer was trained on this very corpus; "
            "use --folds 5 for held-out figures"
        )
    lines += [
        "",
        "ranking of P(real) (no operating point), and the operating point's promises:",
        "source        lines   real  avg-prec  P@R0.9  decisive-real-prec (wrong)  "
        "decisive-misses (share)",
    ]
    for source, r in result.ranking.items():
        lines.append(
            f"{source[:12]:<12} {r.lines:>6} {r.real_lines:>6} {r.average_precision:9.3f} "
            f"{r.precision_at_recall_90:7.3f}  {r.decisive_real_precision:18.3f} "
            f"({r.decisive_wrong_real:>4})  {r.decisive_misses:>15} ({r.dismissal_miss_rate:.3f})"
        )
    lines += [
        "",
        f"flagged lines: {result.flagged_lines} ({result.labelled_flagged_lines} labelled, "
        f"{result.unlabelled_flagged_lines} unlabelled and not scored)",
        f"labels on flagged lines: {json.dumps(result.label_counts, sort_keys=True)}",
        "",
        "                 precision  recall     f1   (for 'real' against the rest)",
        f"thresher         {t.precision:9.3f} {t.recall:7.3f} {t.f1:6.3f}   (offline calls)",
        f"oracle ceiling   {o.precision:9.3f} {o.recall:7.3f} {o.f1:6.3f}   "
        "(escalated findings decided right)",
        f"baseline         {b.precision:9.3f} {b.recall:7.3f} {b.f1:6.3f}   "
        "(every flagged line real)",
        "",
        f"escalation rate (--escalate {result.escalate.value}): {result.escalation_rate:.1%} of "
        f"{result.findings} findings",
    ]
    if result.folds:
        lines += [
            "",
            "fold  repos  lines  avg-prec  P@R0.9   prec  recall     f1  escal  oracle-p  "
            "oracle-r  band",
        ]
        for f in result.folds:
            r = f.ranking["all"]
            lines.append(
                f"{f.fold:>4} {len(f.repositories):>6} {f.lines:>6} {r.average_precision:9.3f} "
                f"{r.precision_at_recall_90:7.3f} {f.thresher.precision:6.3f} "
                f"{f.thresher.recall:7.3f} {f.thresher.f1:6.3f} {f.escalation_rate:6.3f} "
                f"{f.oracle.precision:9.3f} {f.oracle.recall:9.3f}  "
                f"({f.band[0]:g}, {f.band[1]:g})"
            )
            for source, rs in f.ranking.items():
                if source != "all":
                    lines.append(
                        f"     {source}: {rs.lines} lines, avg-prec {rs.average_precision:.3f}, "
                        f"P@R0.9 {rs.precision_at_recall_90:.3f}, decisive real precision "
                        f"{rs.decisive_real_precision:.3f}, decisive misses {rs.decisive_misses}"
                    )
        for name, spread in result.fold_summary.items():
            lines.append(
                f"  {name}: mean {spread['mean']:.3f}, stdev {spread['stdev']:.3f}, "
                f"min {spread['min']:.3f}, max {spread['max']:.3f}"
            )
    lines += ["", *confusion_table(result.confusion, LABELS, 12)]
    lines += ["", "calibration: P(real) bin, lines, mean predicted, observed share real"]
    for row in result.calibration:
        lines.append(
            f"  [{row.low:g}, {row.high:g})".ljust(16)
            + f"{row.lines:>6} {row.predicted:9.3f} {row.observed:9.3f}"
        )
    lines += _slices("by scanner rule", result.by_rule)
    lines += _slices("by finding source", result.by_source)
    lines += _slices("by file kind", result.by_file_kind)
    lines += [
        "",
        f"detection recall: {result.detection_recall:.3f} of {result.labelled_real_lines} "
        "labelled real lines are flagged by the scanner",
        f"decided without any model call: {result.decided_without_model:.1%} of "
        f"{result.findings} findings",
        f"usage: {result.requests} requests, {result.input_tokens} input + "
        f"{result.output_tokens} output tokens; wall time {result.wall_seconds:.1f} s",
        "models: " + ", ".join(f"{a}={m}" for a, m in sorted(result.models.items())),
    ]
    return "\n".join(lines)
