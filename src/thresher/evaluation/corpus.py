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

A *clean* corpus (``load_clean``: the wild corpus of well-known repositories'
HEAD trees) has no ``labels.jsonl``: nothing in it is a live credential, so every
flagged line is weakly labelled ``test`` when its path is in test scope and
``not_secret`` otherwise, and its label source is ``wild``.
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
from thresher.findings.model import Finding, in_test_code
from thresher.scoring.context import scan_contexts
from thresher.scoring.features import CandidateContext, features
from thresher.scoring.samples import UNLABELLED_SOURCE, WILD_SOURCE, Sample
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
    # A clean corpus labels every flagged line weakly (test scope -> test, else
    # not_secret) instead of looking it up in ``labels``.
    clean: bool = False

    def label_of(self, repo: str, path: str, line: int) -> str | None:
        """The label of a flagged line (``path`` relative to the repository)."""
        if self.clean:
            return "test" if in_test_scope(path) else "not_secret"
        return self.labels.get((f"{repo}/{path}", line))

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


WILD = WILD_SOURCE  # the label source of a clean corpus


def load_clean(directory: Path) -> Corpus:
    """A directory of clean trees: ``files/<owner>__<repo>/`` (``benchmarks/
    wild_export.py`` writes that, with ``trees.tsv``), or the trees directly under it."""
    if not directory.is_dir():
        raise UsageError(f"{directory}: not a directory of repository trees")
    files = directory / "files" if (directory / "files").is_dir() else directory
    repos = [p.name for p in files.iterdir() if p.is_dir() and not p.name.startswith(".")]
    if not repos:
        raise UsageError(
            f"{files}: no repository directory in it",
            hint="a clean corpus holds one directory per repository tree "
            "(benchmarks/wild_export.py writes files/<owner>__<repo>/)",
        )
    return Corpus(files=files, labels={}, sources=dict.fromkeys(repos, WILD), clean=True)


def tree_commits(corpus: Corpus) -> dict[str, str]:
    """Each clean tree's commit, from the ``trees.tsv`` the exporter writes beside files/."""
    manifest = corpus.files.parent / "trees.tsv"
    if not corpus.clean or not manifest.is_file():
        return {}
    rows = [line.split("\t") for line in manifest.read_text(encoding="utf-8").splitlines()[1:]]
    return {row[0]: row[1] for row in rows if len(row) >= 2}


def trees_digest(corpus: Corpus) -> str:
    """Which clean trees a scorer was trained on: sha256 over each tree's name and
    commit (``trees.tsv``), else over its directory names. Cheap, unlike hashing a
    gigabyte of trees, and as telling: a tree is its commit."""
    commits = tree_commits(corpus)
    digest = hashlib.sha256()
    for repo in corpus.repositories():
        digest.update(f"{repo}\0{commits.get(repo, '')}\n".encode())
    return "sha256:" + digest.hexdigest()


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
                label=corpus.label_of(repo, c.path, c.line),
            )
            for c in result.candidates
            if (c.fingerprint, in_test_scope(c.path)) in by_key
        )
        contexts, validations = scan_contexts(result, root)
        yield RepoScan(repo, root, result, lines, contexts, validations)


def samples_of(
    scanned: RepoScan, source: str = "", *, weight: float = 1.0, unlabelled: float = 0.0
) -> list[Sample]:
    """One sample per finding of a scanned repository, with its lines' labels.

    ``weight`` is each sample's training weight. With ``unlabelled`` > 0 a finding
    none of whose lines is labelled becomes a weak negative of that weight (``test``
    in test scope, else ``not_secret``) with the source ``unlabelled``."""
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
        labels = dict(sorted(by_finding.get(finding.id, Counter()).items()))
        weak = not labels and unlabelled > 0
        if weak:
            labels = {"test" if in_test_scope(ctx.path) else "not_secret": 1}
        samples.append(
            Sample(
                group=scanned.repo,
                features=features(ctx),
                checks=ctx.checks,
                labels=labels,
                rule=finding.rule_id,
                file_kind=file_kind(ctx.path),
                source=UNLABELLED_SOURCE if weak else source,
                weight=unlabelled if weak else weight,
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
