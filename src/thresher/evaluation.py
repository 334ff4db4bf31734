"""``thresher eval``: score decisions against a labelled corpus.

Corpus format (``shared/corpus/dev``): ``files/`` holds the scanned files and
``labels.jsonl`` one labelled candidate per line (``path``, ``line``, ``label``
in real | test | not_secret). Findings join labels by (path, line); a line with
several labels counts as real if any label is real, else test if any is test.
Only labelled lines that detect-secrets flags are scored; unlabelled flagged
lines are counted, not scored. The raw baseline calls every flagged line real.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from thresher.config import Settings
from thresher.errors import UsageError
from thresher.results import Classification
from thresher.run import ScanOutcome, ScanRequest, run_scan
from thresher.scoring.policy import Escalate

LABELS = ("real", "test", "not_secret")


class Label(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    path: str
    line: int
    label: str


class Scores(BaseModel):
    model_config = ConfigDict(frozen=True)

    precision: float
    recall: float
    f1: float
    true_positives: int
    false_positives: int
    false_negatives: int


class EvalResult(BaseModel):
    model_config = ConfigDict(frozen=True)

    corpus: str
    flagged_lines: int
    labelled_flagged_lines: int
    unlabelled_flagged_lines: int
    label_counts: dict[str, int]
    thresher: Scores
    baseline: Scores
    confusion: dict[str, dict[str, int]]
    labelled_real_lines: int
    detection_recall: float
    findings: int
    decided_without_model: float
    requests: int
    input_tokens: int
    output_tokens: int
    wall_seconds: float
    models: dict[str, str]


@dataclass(frozen=True)
class Corpus:
    files: Path
    labels: dict[tuple[str, int], str]


def load_corpus(directory: Path) -> Corpus:
    files, labels_file = directory / "files", directory / "labels.jsonl"
    if not files.is_dir():
        raise UsageError(
            f"{directory}: no files/ directory",
            hint="a corpus holds files/ and labels.jsonl (see its README)",
        )
    if not labels_file.is_file():
        raise UsageError(f"{directory}: no labels.jsonl")
    try:
        text = labels_file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise UsageError(
            f"{labels_file}: cannot read it: {reason}", hint="labels.jsonl is UTF-8 JSON lines"
        ) from None
    grouped: dict[tuple[str, int], set[str]] = {}
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            label = Label.model_validate_json(raw)
        except ValidationError as exc:
            field = ".".join(str(p) for p in exc.errors()[0]["loc"]) or "line"
            raise UsageError(
                f"{labels_file}:{number}: invalid label ({field}: {exc.errors()[0]['msg']})"
            ) from None
        if label.label not in LABELS:
            raise UsageError(f"{labels_file}:{number}: unknown label '{label.label}'")
        grouped.setdefault((label.path, label.line), set()).add(label.label)
    merged = {key: next(name for name in LABELS if name in names) for key, names in grouped.items()}
    return Corpus(files=files, labels=merged)


def _scores(tp: int, fp: int, fn: int) -> Scores:
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return Scores(
        precision=round(precision, 4),
        recall=round(recall, 4),
        f1=round(f1, 4),
        true_positives=tp,
        false_positives=fp,
        false_negatives=fn,
    )


def score(corpus: Corpus, outcome: ScanOutcome) -> EvalResult:
    # Score the lines detect-secrets itself flags (its per-file, per-type first lines),
    # each predicted by the decision on the finding that holds that value.
    by_fingerprint = {d.finding.fingerprint: d.classification for d in outcome.report.decisions}
    predicted: dict[tuple[str, int], Classification] = {}
    for candidate in outcome.scan.candidates:
        guess = by_fingerprint.get(candidate.fingerprint)
        if guess is None:
            continue
        key = (candidate.path, candidate.line)
        # One line, several findings: the most severe classification stands.
        if key not in predicted or guess is Classification.REAL:
            predicted[key] = guess
    labelled = {key: corpus.labels[key] for key in predicted if key in corpus.labels}
    confusion = {truth: dict.fromkeys(LABELS, 0) for truth in LABELS}
    tp = fp = fn = 0
    for key, truth in labelled.items():
        name = predicted[key].value
        confusion[truth][name if name in LABELS else "real"] += 1
        if name == "real":
            tp, fp = (tp + 1, fp) if truth == "real" else (tp, fp + 1)
        elif truth == "real":
            fn += 1
    real_total = sum(1 for v in labelled.values() if v == "real")
    all_real = sum(1 for v in corpus.labels.values() if v == "real")
    report = outcome.report
    return EvalResult(
        corpus=str(corpus.files.parent),
        flagged_lines=len(predicted),
        labelled_flagged_lines=len(labelled),
        unlabelled_flagged_lines=len(predicted) - len(labelled),
        label_counts=dict(Counter(labelled.values())),
        thresher=_scores(tp, fp, fn),
        baseline=_scores(real_total, len(labelled) - real_total, 0),
        confusion=confusion,
        labelled_real_lines=all_real,
        detection_recall=round(real_total / all_real, 4) if all_real else 0.0,
        findings=report.summary.findings,
        decided_without_model=round(
            report.summary.decided_without_model / report.summary.findings, 4
        )
        if report.summary.findings
        else 1.0,
        requests=report.usage.requests,
        input_tokens=report.usage.input_tokens,
        output_tokens=report.usage.output_tokens,
        wall_seconds=report.usage.wall_seconds,
        models=report.models,
    )


def evaluate(
    directory: Path,
    settings: Settings,
    *,
    runs_dir: Path,
    escalate: Escalate = Escalate.UNCERTAIN,
    analyses: int = 1,
    concurrency: int = 4,
    environ: Mapping[str, str] | None = None,
) -> EvalResult:
    corpus = load_corpus(directory)
    outcome = run_scan(
        ScanRequest(
            root=corpus.files.resolve(),
            escalate=escalate,
            analyses=analyses,
            concurrency=concurrency,
            runs_dir=runs_dir.resolve(),
        ),
        settings,
        environ=environ,
    )
    return score(corpus, outcome)


def render_text(result: EvalResult) -> str:
    t, b = result.thresher, result.baseline
    lines = [
        f"corpus: {result.corpus}",
        f"flagged lines: {result.flagged_lines} ({result.labelled_flagged_lines} labelled, "
        f"{result.unlabelled_flagged_lines} unlabelled and not scored)",
        f"labels on flagged lines: {json.dumps(result.label_counts, sort_keys=True)}",
        "",
        "            precision  recall     f1   (for 'real' against the rest)",
        f"thresher    {t.precision:9.3f} {t.recall:7.3f} {t.f1:6.3f}",
        f"baseline    {b.precision:9.3f} {b.recall:7.3f} {b.f1:6.3f}   (every flagged line real)",
        "",
        "confusion (rows: label, columns: thresher)",
        "              " + "".join(f"{name:>12}" for name in LABELS),
    ]
    for truth in LABELS:
        lines.append(
            f"{truth:>12}  " + "".join(f"{result.confusion[truth][g]:>12}" for g in LABELS)
        )
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
