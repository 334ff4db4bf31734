"""``--shard K/N``: split an organisation's repositories between parallel runners.

A GitHub Actions matrix runs N jobs of ``thresher triage --org ORG --shard K/N``;
each must take a fixed, disjoint part of the organisation without talking to the
others. A repository belongs to shard ``sha256(owner/name) mod N``: SHA-256 because
Python's ``hash`` of a string changes with every process (``PYTHONHASHSEED``), and the
lower-cased name because GitHub's names are case-insensitive. The split is the same in
every job, every run and every thresher version that keeps this function.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from thresher.errors import UsageError

_SPEC = re.compile(r"^\s*(\d{1,6})\s*/\s*(\d{1,6})\s*$")


@dataclass(frozen=True)
class ShardSpec:
    """Shard ``index`` of ``count`` (1-based, as written on the command line)."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if not 1 <= self.index <= self.count:
            raise UsageError(
                f"--shard {self.index}/{self.count}: K must be between 1 and N",
                hint="e.g. --shard 1/4 ... --shard 4/4 for four runners",
            )

    @classmethod
    def parse(cls, text: str) -> ShardSpec:
        match = _SPEC.match(text)
        if match is None:
            raise UsageError(f"--shard {text!r} is not K/N", hint="e.g. --shard 2/4 (shard 2 of 4)")
        return cls(int(match.group(1)), int(match.group(2)))

    def owns(self, repo_full_name: str) -> bool:
        """Whether this shard triages ``owner/name``."""
        return shard_of(repo_full_name, self.count) == self.index

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def shard_of(repo_full_name: str, count: int) -> int:
    """The 1-based shard of ``count`` that owns ``owner/name``."""
    digest = hashlib.sha256(repo_full_name.strip().lower().encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % count + 1
