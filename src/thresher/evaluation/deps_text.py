"""The dependency eval as text: the headline figures, then per case and per project."""

from __future__ import annotations

import json

from thresher.evaluation.deps import CLASSES, DepsEvalResult
from thresher.evaluation.figures import Scores
from thresher.evaluation.secrets_text import confusion_table


def _row(name: str, s: Scores, note: str) -> str:
    undefined = s.true_positives + s.false_positives == 0
    precision = "     -" if undefined else f"{s.precision:6.3f}"
    return f"{name:<16} {precision:>9} {s.recall:7.3f} {s.f1:6.3f}   {note}"


def render_deps_text(result: DepsEvalResult) -> str:
    t, o, b = result.thresher, result.oracle, result.baseline
    lines = [
        f"dependency corpus: {result.corpus} ({result.projects} projects, each scanned as "
        "its own root; OSV records read offline)",
        f"labelled findings: {result.labelled} {json.dumps(result.label_counts, sort_keys=True)}; "
        f"reported by OSV matching: {result.findings}",
        "",
        "                 precision  recall     f1   (for 'affected' against 'not_affected')",
        _row("thresher", t, "(offline calls; undecided counts as affected)"),
        _row("oracle ceiling", o, "(escalated findings decided right)"),
        _row("baseline", b, "(every reported finding affected: the scanner alone)"),
        "",
        f"accuracy: {result.accuracy:.3f} (oracle ceiling {result.oracle_accuracy:.3f})",
        f"escalation rate (--escalate {result.escalate.value}): {result.escalation_rate:.1%} "
        f"({result.escalated_findings} of {result.findings} findings)",
        f"right not_affected calls with the labelled VEX justification: "
        f"{result.justification_agreement:.1%}",
        "",
        *confusion_table(result.confusion, CLASSES, 14),
    ]
    lines += [
        "",
        f"{'by case':<22} labelled affected correct oracle escalated",
        "-" * 62,
    ]
    for name, case in result.by_case.items():
        lines.append(
            f"{name:<22} {case.labelled:>8} {case.affected:>8} {case.correct:>7} "
            f"{case.oracle_correct:>6} {case.escalated:>9}"
        )
    lines += [
        "",
        f"{'by project':<26} findings labelled correct escalation",
        "-" * 62,
    ]
    for project in result.by_project:
        lines.append(
            f"{project.project[:26]:<26} {project.findings:>8} {project.labelled:>8} "
            f"{project.correct:>7} {project.escalation_rate:>10.1%}"
        )
    wrong = [r for r in result.rows if not r.correct]
    if wrong:
        lines += ["", "decided wrong:"]
        for r in wrong:
            lines.append(
                f"  {r.project}: {r.package} {r.version} {r.vulnerability}: {r.predicted}"
                + (f" ({r.justification.value})" if r.justification else "")
                + f", labelled {r.truth}"
                + (" -- escalated, the tribunal decides" if r.would_escalate else "")
            )
    if result.unlabelled:
        lines += ["", "reported but not labelled (not scored):"]
        lines += [f"  {item}" for item in result.unlabelled]
    if result.missing:
        lines += ["", "labelled but not reported (scored as not_affected):"]
        lines += [f"  {item}" for item in result.missing]
    lines += [
        "",
        f"decided without any model call: {result.decided_without_model:.1%} of "
        f"{result.findings} findings",
        f"usage: {result.requests} requests, {result.input_tokens} input + "
        f"{result.output_tokens} output tokens; wall time {result.wall_seconds:.1f} s",
        "models: " + ", ".join(f"{a}={m}" for a, m in sorted(result.models.items())),
    ]
    return "\n".join(lines)
