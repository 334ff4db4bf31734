"""What a scan is asked to do, and the error for asking it wrongly.

Kept apart from the scanner so that the git and baseline helpers can raise
``ScanError`` without importing the orchestration that imports them.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from thresher.errors import UsageError
from thresher.findings.model import Severity


class ScanError(UsageError):
    """A scan that cannot start: a bad range or flag, a missing repository,
    an unreadable baseline, a custom rule that does not compile.

    Every message names the flag, file or rule at fault.
    """


@dataclass(frozen=True)
class CustomRule:
    """A regex run on every line; the named group ``secret`` (else the whole
    match) is the candidate value."""

    id: str
    pattern: str
    severity: Severity = Severity.HIGH
    description: str = ""

    def compiled(self) -> re.Pattern[str]:
        if not self.id.strip():
            raise ScanError("a custom rule has an empty id", hint="give every rule an id")
        try:
            return re.compile(self.pattern)
        except (re.error, RecursionError, OverflowError) as exc:
            raise ScanError(
                f"custom rule {self.id!r}: the pattern does not compile: {exc}",
                hint="custom rule patterns are Python regular expressions",
            ) from exc


@dataclass(frozen=True)
class ScanOptions:
    root: Path  # the workspace root; finding paths are relative to it (posix)
    paths: tuple[Path, ...] = ()  # files/dirs to scan (default: root)
    diff: str | None = None  # "BASE..HEAD" (or "BASE...HEAD"): only lines added in that range
    staged: bool = False  # only lines added in the index against HEAD
    baseline: Path | None = None  # detect-secrets baseline: skip its entries
    custom_rules: tuple[CustomRule, ...] = ()
    max_file_bytes: int = 2 * 1024 * 1024
    workers: int | None = None  # default: os.cpu_count()

    def worker_count(self) -> int:
        if self.workers is not None and self.workers < 1:
            raise ScanError(f"workers must be at least 1, not {self.workers}")
        return self.workers or os.cpu_count() or 1

    def checked_root(self) -> Path:
        root = Path(self.root).expanduser()
        if not root.is_dir():
            raise ScanError(f"the scan root {self.root} is not a directory")
        if self.diff is not None and self.staged:
            raise ScanError("--diff and --staged cannot be combined", hint="choose one")
        if self.max_file_bytes < 1:
            raise ScanError(f"max_file_bytes must be positive, not {self.max_file_bytes}")
        return root.resolve()

    def scopes(self, root: Path) -> tuple[str, ...]:
        """``paths`` as posix paths relative to ``root`` ("" is the whole root)."""
        scopes: list[str] = []
        for given in self.paths:
            candidate = Path(given).expanduser()
            absolute = candidate if candidate.is_absolute() else root / candidate
            try:
                relative = absolute.resolve().relative_to(root)
            except ValueError:
                raise ScanError(f"path {given} is outside the scan root {root}") from None
            if not absolute.exists():
                raise ScanError(f"path {given} does not exist")
            scopes.append(relative.as_posix() if relative.parts else "")
        return tuple(scopes)


def in_scopes(path: str, scopes: tuple[str, ...]) -> bool:
    """Whether a root-relative posix path is one of, or under one of, ``scopes``."""
    if not scopes:
        return True
    return any(not s or path == s or path.startswith(s + "/") for s in scopes)
