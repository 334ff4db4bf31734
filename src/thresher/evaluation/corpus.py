"""A labelled corpus, scanned the way a user scans a repository.

Corpus format (``shared/corpus/dev``): ``files/<owner>__<repo>/…`` holds the
files of each repository and ``labels.jsonl`` one labelled candidate per line
(``path`` relative to ``files/``, ``line``, ``label`` in real | test |
not_secret). Each ``files/<owner>__<repo>/`` directory is scanned as its own
repository root, with paths relative to it, exactly as a user would scan their
repository: the corpus folder name never becomes part of a path (a repository
called ``sample_secrets`` is not test code because of its name).

Findings join labels by (path, line); a line with several labels counts as real
if any label is real, else test if any is test. Only lines that detect-secrets
itself flags (its per-file, per-type first lines) are scored.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from thresher.errors import UsageError
from thresher.findings.filekind import file_kind, in_test_scope
from thresher.findings.model import Finding
from thresher.scoring.context import scan_contexts
from thresher.scoring.features import CandidateContext, features
from thresher.scoring.samples import Sample
from thresher.sources.dedupe import in_test_code
from thresher.sources.scan import ScanOptions, ScanResult, scan
from thresher.validators.base import ValidationResult

LABELS = ("real", "test", "not_secret")


class Label(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)

    path: str
    line: int
    label: str


@dataclass(frozen=True)
class Corpus:
    files: Path
    labels: dict[tuple[str, int], str]  # (path relative to files/, line) -> merged label
    # repository directory -> where its labels come from (``source`` of labels.jsonl:
    # creddata's human annotations apart from the synthetic leaky-repo and SEDATED)
    sources: dict[str, str] = field(default_factory=dict)

    def repositories(self) -> list[str]:
        return sorted(p.name for p in self.files.iterdir() if p.is_dir())


def load_corpus(directory: Path) -> Corpus:
    files, labels_file = directory / "files", directory / "labels.jsonl"
    if not files.is_dir():
        raise UsageError(
            f"{directory}: no files/ directory",
            hint="a corpus holds files/<owner>__<repo>/ and labels.jsonl (see its README)",
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
    sources: dict[str, str] = {}
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
        if "/" not in label.path:
            raise UsageError(
                f"{labels_file}:{number}: path '{label.path}' is not under a repository "
                "directory (files/<owner>__<repo>/...)"
            )
        grouped.setdefault((label.path, label.line), set()).add(label.label)
        source = (label.model_extra or {}).get("source")
        if isinstance(source, str) and source:
            sources.setdefault(label.path.split("/", 1)[0], source)
    merged = {key: next(name for name in LABELS if name in names) for key, names in grouped.items()}
    return Corpus(files=files, labels=merged, sources=sources)


@dataclass(frozen=True)
class ScoredLine:
    """One line detect-secrets flags, with the finding that decides it and its label."""

    repo: str
    path: str  # repository-relative
    line: int
    rule: str
    finding_id: str
    label: str | None


@dataclass(frozen=True)
class RepoScan:
    """One repository of the corpus, scanned as its own root."""

    repo: str
    root: Path
    result: ScanResult
    lines: tuple[ScoredLine, ...]
    contexts: dict[str, CandidateContext]
    validations: dict[str, tuple[ValidationResult, ...]]

    def finding_label(self, finding: Finding) -> str | None:
        """The most severe label among the finding's flagged, labelled lines."""
        labels = {s.label for s in self.lines if s.finding_id == finding.id and s.label}
        return next((name for name in LABELS if name in labels), None)


def scan_repositories(
    corpus: Corpus,
    *,
    repos: list[str] | None = None,
    on_repo: Callable[[str], None] | None = None,
) -> Iterator[RepoScan]:
    """Scan every repository directory of the corpus as its own root."""
    for repo in repos if repos is not None else corpus.repositories():
        if on_repo is not None:
            on_repo(repo)
        root = (corpus.files / repo).resolve()
        result = scan(ScanOptions(root=root))
        by_key = {(f.fingerprint, in_test_code(f.locations[0])): f.id for f in result.findings}
        lines = tuple(
            ScoredLine(
                repo=repo,
                path=c.path,
                line=c.line,
                rule=c.type,
                finding_id=by_key[(c.fingerprint, in_test_scope(c.path))],
                label=corpus.labels.get((f"{repo}/{c.path}", c.line)),
            )
            for c in result.candidates
            if (c.fingerprint, in_test_scope(c.path)) in by_key
        )
        contexts, validations = scan_contexts(result, root)
        yield RepoScan(repo, root, result, lines, contexts, validations)


def samples_of(scanned: RepoScan, source: str = "") -> list[Sample]:
    """One sample per finding of a scanned repository, with its lines' labels."""
    by_finding: dict[str, Counter[str]] = {}
    for line in scanned.lines:
        counts = by_finding.setdefault(line.finding_id, Counter())
        if line.label is not None:
            counts[line.label] += 1
    samples: list[Sample] = []
    for finding in scanned.result.findings:
        ctx = scanned.contexts.get(finding.id)
        if ctx is None:
            continue
        samples.append(
            Sample(
                group=scanned.repo,
                features=features(ctx),
                checks=ctx.checks,
                labels=dict(sorted(by_finding.get(finding.id, Counter()).items())),
                rule=finding.rule_id,
                file_kind=file_kind(ctx.path),
                source=source,
            )
        )
    return samples


def corpus_digest(corpus: Corpus) -> str:
    """sha256 over labels.jsonl and every file (sorted path, size, bytes): which data a
    scorer was trained on, so an evaluation can tell in-sample from held-out."""
    digest = hashlib.sha256()
    digest.update((corpus.files.parent / "labels.jsonl").read_bytes())
    for path in sorted(p for p in corpus.files.rglob("*") if p.is_file()):
        data = path.read_bytes()
        digest.update(f"{path.relative_to(corpus.files).as_posix()}\0{len(data)}\0".encode())
        digest.update(data)
    return "sha256:" + digest.hexdigest()
