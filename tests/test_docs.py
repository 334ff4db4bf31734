"""The documentation points at things that exist.

Every backticked repository path in the architecture page, the guides, the README and
CONTRIBUTING names a file or directory of this repository, and every relative Markdown link
in them reaches a file (and, for a link into a Markdown file, one of its headings). A path
such as ``scan/run.py`` or ``findings/rules/builtin.toml``, whose first part is a component
of the package, is read against ``src/thresher/``; any other against the repository root.
The CHANGELOG is left out: it names paths that no longer exist on purpose (old -> new).
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "thresher"

DOCS = sorted(
    [*ROOT.glob("docs/**/*.md"), ROOT / "README.md", ROOT / "CONTRIBUTING.md"],
    key=lambda path: path.relative_to(ROOT).as_posix(),
)

# Backticked text that has the shape of a path but is no path of this repository. Keep this
# short: a path a document gets wrong is fixed in the document, never added here.
NOT_REPOSITORY_PATHS = (
    ".thresher/",  # a run's own output (run directory, OSV cache, state database)
    "transcripts/",  # inside the run directory, next to decisions.jsonl
    ".git/",  # git's internals, which the workspace tools refuse
    ".github/workflows/thresher.yml",  # where a user copies the example workflow
    "../shared/corpus/dev",  # the labelled corpus, checked out beside the repository
    "thresher/_assets/",  # where the wheel carries agents/, skills/ and prompts/
    # the layout of a directory the user passes: a corpus, or an OSV export
    "files/",
    "projects/",
    "osv/",
    "DIR/",
)

_FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.DOTALL | re.MULTILINE)
_CODE = re.compile(r"`([^`\n]+)`")
_LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")
# A path: word characters, dots, hyphens and placeholders (``<run-id>``, ``…``) with at least
# one ``/``, starting with a word character, a dot or a placeholder. So URLs (``:``), globs
# (``*``), flags (``-v/--verbose``) and paths under a home (``~/``), a variable (``$X/``) or
# an absolute directory such as ``/tmp`` are not read as repository paths.
_PATHLIKE = re.compile(r"[\w.<][\w.<>…-]*(/[\w.<>…-]*)+")
_MODULE = re.compile(r"[\w-]+\.py")


def _prose(doc: Path) -> str:
    """The document without its fenced blocks (commands and examples, not references)."""
    return _FENCE.sub("", doc.read_text(encoding="utf-8"))


def _is_repository_path(span: str) -> bool:
    if not _PATHLIKE.fullmatch(span) or "://" in span:
        return False
    return not span.startswith(NOT_REPOSITORY_PATHS)


def _literal_part(span: str) -> str:
    """The path before its first placeholder: ``skills/<agent>/`` -> ``skills``."""
    cut = min((span.index(mark) for mark in "<…" if mark in span), default=len(span))
    literal = span[:cut]
    return literal if cut == len(span) else literal.rpartition("/")[0]


@cache
def _components() -> frozenset[str]:
    return frozenset(
        path.name if path.is_dir() else path.stem
        for path in PACKAGE.iterdir()
        if not path.name.startswith(("_", ".")) and (path.is_dir() or path.suffix == ".py")
    )


def _exists(path: str) -> bool:
    first = path.split("/", 1)[0]
    bases = [ROOT]
    if first in _components():
        # ``agents/`` and ``skills/`` are both a package and a top-level directory of
        # methodology: either reading is a real path.
        bases = [PACKAGE, ROOT] if (ROOT / first).is_dir() else [PACKAGE]
    return any((base / path).exists() for base in bases)


@cache
def _module_names() -> frozenset[str]:
    return frozenset(
        path.name
        for top in ("src", "tests", "benchmarks", "examples")
        for path in (ROOT / top).rglob("*.py")
    )


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading."""
    text = re.sub(r"[`*_]|\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def _anchors(doc: Path) -> set[str]:
    seen: dict[str, int] = {}
    anchors = set()
    for line in _prose(doc).splitlines():
        match = re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not match:
            continue
        slug = _slug(match.group(1))
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def _name(doc: Path) -> str:
    return doc.relative_to(ROOT).as_posix()


@pytest.mark.parametrize("doc", DOCS, ids=_name)
def test_every_backticked_path_exists(doc: Path) -> None:
    missing = []
    for span in sorted(set(_CODE.findall(_prose(doc)))):
        if _is_repository_path(span):
            literal = _literal_part(span)
            if literal and not _exists(literal):
                missing.append(span)
        elif _MODULE.fullmatch(span) and span not in _module_names():
            missing.append(span)  # a module named alone: some module has that name
    assert not missing, f"{_name(doc)} names paths that do not exist: {missing}"


@pytest.mark.parametrize("doc", DOCS, ids=_name)
def test_every_relative_link_resolves(doc: Path) -> None:
    broken = []
    for target in _LINK.findall(_prose(doc)):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        file = (doc.parent / path).resolve() if path else doc
        if not file.exists() or (anchor and file.suffix == ".md" and anchor not in _anchors(file)):
            broken.append(target)
    assert not broken, f"{_name(doc)} links to files or headings that do not exist: {broken}"


def test_the_readme_is_short_and_points_at_the_architecture() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 300
    assert "](docs/architecture.md)" in readme


def test_the_license_is_apache_2() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text
    assert "Version 2.0" in text
