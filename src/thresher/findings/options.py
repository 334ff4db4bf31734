"""What a scan is asked to do, and the error for asking it wrongly.

Kept apart from the scanner so that the git and baseline helpers can raise
``ScanError`` without importing the orchestration that imports them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from thresher.errors import UsageError
from thresher.findings.model import Severity

if TYPE_CHECKING:
    from thresher.findings.rules.book import Rule


class ScanError(UsageError):
    """A scan that cannot start: a bad range or flag, a missing repository,
    an unreadable baseline, a custom rule that does not compile.

    Every message names the flag, file or rule at fault.
    """


# Files above this are skipped and counted as too large; text below it is scanned whole,
# in bounded chunks once it is over ``chunk_bytes``.
DEFAULT_MAX_FILE_BYTES = 128 * 1024 * 1024
DEFAULT_CHUNK_BYTES = 2 * 1024 * 1024
_RULE_MAX_MEM = 32 << 20  # bytes of compiled RE2 program: a pathological pattern fails fast
RE2_HINT = "custom rule patterns use RE2 syntax: linear time, no backreferences or lookaround"


def compile_rule_pattern(pattern: str) -> Any:
    """A custom rule's pattern, compiled by RE2, or ``ValueError`` saying why not.

    Rules come from configuration, which a pull request can carry, and run on every line
    of the repository. Python's ``re`` backtracks: ``^(a+)+$`` on a long line of a's
    takes longer than any CI job. RE2 matches in time linear in the line, whatever the
    pattern, and refuses what it cannot do so (backreferences, lookaround). The
    configuration validator calls this too, so a bad pattern fails before any scan.
    """
    import re2  # type: ignore[import-untyped]  # lazy: a C++ extension, not needed at start

    options = re2.Options()
    options.log_errors = False  # the error goes into the message, not onto stderr
    options.max_mem = _RULE_MAX_MEM
    try:
        return re2.compile(pattern, options)
    except re2.error as exc:
        detail = exc.args[0] if exc.args else exc
        if isinstance(detail, bytes):
            detail = detail.decode("utf-8", "replace")
        raise ValueError(f"the pattern does not compile as RE2 ({detail}); {RE2_HINT}") from None
    except (TypeError, UnicodeEncodeError) as exc:
        raise ValueError(f"the pattern is not valid text: {exc}") from None


@dataclass(frozen=True)
class CustomRule:
    """A regex run on every line; the named group ``secret`` (else the whole
    match) is the candidate value. ``rule`` is the whole rule when configuration gave
    more than these fields (keywords, value_group, checks: the built-in rules' format)."""

    id: str
    pattern: str
    severity: Severity = Severity.HIGH
    description: str = ""
    rule: Rule | None = None

    @classmethod
    def of(cls, rule: Rule) -> CustomRule:
        """A rule of the configuration (``[[rules]]``) as the scan takes it, whole."""
        return cls(
            id=rule.id,
            pattern=rule.pattern,
            severity=Severity(rule.severity),
            description=rule.description,
            rule=rule,
        )

    def as_rule(self) -> Rule:
        """The rule the engine runs: ``rule``, else one built from the four fields."""
        from thresher.findings.rules.book import Rule

        if self.rule is not None:
            return self.rule
        return Rule(
            id=self.id, pattern=self.pattern, severity=self.severity, description=self.description
        )

    def compiled(self) -> Any:
        """The RE2 program, or a ``ScanError`` naming the rule."""
        if not self.id.strip():
            raise ScanError("a custom rule has an empty id", hint="give every rule an id")
        try:
            return compile_rule_pattern(self.pattern)
        except ValueError as exc:
            raise ScanError(f"custom rule {self.id!r}: {exc}", hint=RE2_HINT) from None


@dataclass(frozen=True)
class ScanOptions:
    root: Path  # the workspace root; finding paths are relative to it (posix)
    paths: tuple[Path, ...] = ()  # files/dirs to scan (default: root)
    diff: str | None = None  # "BASE..HEAD" (or "BASE...HEAD"): only lines added in that range
    staged: bool = False  # only lines added in the index against HEAD
    baseline: Path | None = None  # detect-secrets baseline: skip its entries
    custom_rules: tuple[CustomRule, ...] = ()
    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES  # larger files: skipped as too large
    chunk_bytes: int = DEFAULT_CHUNK_BYTES  # larger files: scanned a chunk at a time
    # False in a pull-request job: the pull request wrote its own pragma comments.
    honour_pragmas: bool = True
    workers: int | None = None  # default: os.cpu_count()
    builtin_rules: bool = True  # thresher's own rules (``findings.rules``) beside detect-secrets
    # Drop detections that cannot be credentials, counted by reason (``findings.screen``);
    # off only to compare the raw detectors with ``detect-secrets scan``.
    screen: bool = True

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
        if self.chunk_bytes < 1:
            raise ScanError(f"chunk_bytes must be positive, not {self.chunk_bytes}")
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
