"""The finding-source seam: where candidates come from, and what a source must say.

A source (the detect-secrets scanner, GitHub's secret-scanning alerts, later OSV)
reports what it found and nothing more. Everything derived from the raw value -- its
fingerprint, its redacted form -- and everything that depends on the other sources --
de-duplication, finding ids -- is worked out once, in ``dedupe``, so no two sources can
fingerprint the same credential differently and two sources that report it meet.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NoReturn

from thresher.errors import ThresherError
from thresher.findings.model import (
    FindingKind,
    FindingLocation,
    FindingSource,
    SecretType,
    Severity,
)


class SourceError(ThresherError):
    """A source cannot deliver its findings (an API refused, a response does not parse),
    or delivered one that is not a valid finding. The message names the source."""


@dataclass(frozen=True, eq=False)
class Sourced:
    """One report of a source: a finding without its id, with its raw value.

    Not a ``Finding`` with a provisional id: the id depends on what de-duplication
    merges, and ``fingerprint`` and ``redacted`` are derived from ``value`` in one place.
    The value is for the vault only: it is never printed (``repr``), compared or
    serialised (pickling refuses), as the vault itself.
    """

    kind: FindingKind
    rule_id: str
    severity: Severity
    locations: tuple[FindingLocation, ...]
    source: FindingSource
    value: str = field(repr=False)
    secret_type: SecretType | None = None
    # Which report names a merged finding: the lowest rank, then the rule id. A
    # provider's token format says more than a keyword, which says more than entropy.
    rank: int = 0

    def __reduce_ex__(self, protocol: Any) -> NoReturn:
        raise TypeError("a Sourced item holds a raw value and is never serialised")


class Source(ABC):
    """Where findings come from. ``collect`` may be lazy (an API listing pages) and is
    called once; a failure it cannot recover from is a ``SourceError`` (or a subclass)."""

    @property
    @abstractmethod
    def name(self) -> str:
        """A short name for messages: ``detect-secrets``, ``github-alerts``."""

    @abstractmethod
    def collect(self) -> Iterator[Sourced]:
        """Every report of this source, in a deterministic order."""
