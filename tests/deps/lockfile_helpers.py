"""Shared by the lockfile tests: fixture paths and the comparable view of a dependency."""

from __future__ import annotations

from pathlib import Path

from thresher.deps.lockfiles import parse
from thresher.deps.model import Dependency, Relation

FIXTURES = Path(__file__).parent / "fixtures"
D, T, U = Relation.DIRECT, Relation.TRANSITIVE, Relation.UNKNOWN

Row = tuple[str, str, int, Relation, bool | None]


def rows(deps: list[Dependency]) -> set[Row]:
    """(name, version, line, relation, dev): what a finding and a tribunal rely on."""
    return {(d.name, d.version, d.line, d.relation, d.dev) for d in deps}


def parse_fixture(relative: str) -> list[Dependency]:
    """Parse a fixture as the scan would: its path relative to the fixtures root."""
    return parse(relative, (FIXTURES / relative).read_text(encoding="utf-8"))


def parse_with_manifest(relative: str) -> list[Dependency]:
    """Parse a fixture with a reader, so includes and the manifest beside it count."""

    def read(path: str) -> str | None:
        file = FIXTURES / path
        return file.read_text(encoding="utf-8") if file.is_file() else None

    return parse(relative, (FIXTURES / relative).read_text(encoding="utf-8"), read=read)
