"""Why a file was not scanned, counted by reason: a scan never drops a file silently.

A repository whose only secret sits in a file thresher passed over must not read as
"0 findings" without a word. Every file that a scan lists but does not scan gets one
``SkipReason``; the counts go to stderr, the JSON report and the Markdown summary, and
``-v`` names each file. Text that needed a fallback decoding is scanned, not skipped,
and is counted separately.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import Enum, StrEnum
from typing import TypeVar

R = TypeVar("R", bound=Enum)


class SkipReason(StrEnum):
    """The closed vocabulary of reasons; the values appear in the JSON report."""

    UNREADABLE = "unreadable"  # the OS refused to read it, or it vanished
    TOO_LARGE = "too_large"  # over the hard size cap (text is scanned in chunks below it)
    BINARY = "binary"  # a NUL byte in its first 8 KiB
    EXCLUDED_BY_NAME = "excluded_by_name"  # detect-secrets' file-name filters, no custom rule
    OWN_OUTPUT = "own_output"  # inside a .thresher/ run directory
    NOT_A_FILE = "not_a_file"  # a symlink, a submodule, a special file, gone from the tree
    BASELINE = "baseline"  # the --baseline file itself: it lists hashes, not code
    SCAN_FAILED = "scan_failed"  # a detect-secrets parser raised on this file

    @property
    def label(self) -> str:
        """The words a person reads ("1 too large")."""
        match self:
            case SkipReason.UNREADABLE:
                return "unreadable"
            case SkipReason.TOO_LARGE:
                return "too large"
            case SkipReason.BINARY:
                return "binary"
            case SkipReason.EXCLUDED_BY_NAME:
                return "excluded by name"
            case SkipReason.OWN_OUTPUT:
                return "thresher's own output"
            case SkipReason.NOT_A_FILE:
                return "not a regular file"
            case SkipReason.BASELINE:
                return "the baseline file"
            case SkipReason.SCAN_FAILED:
                return "scan failed"


@dataclass(frozen=True, slots=True)
class Skipped:
    """One file a scan passed over; ``detail`` says more than the reason (an OS error)."""

    path: str
    reason: SkipReason
    detail: str = ""

    def describe(self) -> str:
        """One line for ``-v``: a hostile name cannot forge further lines of output."""
        name = self.path if self.path.isprintable() else repr(self.path)
        return f"skipped {name}: {self.reason.label}" + (f" ({self.detail})" if self.detail else "")


def count_by_reason(skipped: Iterable[Skipped]) -> dict[SkipReason, int]:
    """Counts in the enum's order, reasons that did not occur left out."""
    return counts_in_order(SkipReason, (item.reason for item in skipped))


def counts_in_order(vocabulary: type[R], reasons: Iterable[R]) -> dict[R, int]:
    """How often each reason occurs, in the vocabulary's order, absent ones left out
    (skipped files here, screened detections in ``screen.py``)."""
    counts = Counter(reasons)
    return {reason: counts[reason] for reason in vocabulary if counts[reason]}


def skip_phrase(counts: Mapping[SkipReason, int]) -> str:
    """ "skipped 3 (1 binary, 1 unreadable, 1 too large)", or "skipped 0"."""
    total = sum(counts.values())
    if not total:
        return "skipped 0"
    parts = ", ".join(f"{counts[r]} {r.label}" for r in SkipReason if counts.get(r))
    return f"skipped {total} ({parts})"


def scan_phrase(
    scanned: int, counts: Mapping[SkipReason, int], fallback: int, unparsed: int = 0
) -> str:
    """ "scanned 120 files; skipped 3 (1 binary, 1 unreadable, 1 too large)", and how
    many scanned files needed a fallback decoding or were read unparsed, if any."""
    text = f"scanned {scanned} file{'' if scanned == 1 else 's'}; {skip_phrase(counts)}"
    if fallback:
        text += f"; {fallback} decoded as Windows-1252/Latin-1, not UTF-8"
    if unparsed:
        text += f"; {unparsed} read as plain lines, too large or costly to parse"
    return text
