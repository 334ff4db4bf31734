"""Composer's version ordering (Packagist), re-implemented from ``composer/semver``.

Composer first normalises a version (``VersionParser::normalize``,
https://github.com/composer/semver/blob/main/src/VersionParser.php), then orders the
normal forms with PHP's ``version_compare`` (``Comparator``):

- a leading ``v`` is dropped and the number is padded to four parts: ``v1.2`` is
  ``1.2.0.0``; date versions (``2010.01.02``) are numbers like any other;
- a stability suffix follows ``[._-]?``: ``alpha``/``a``, ``beta``/``b``, ``RC``,
  ``stable``, ``patch``/``pl``/``p``, each with an optional number, then an optional
  ``dev`` (``1.0.0-beta2-dev``);
- ``version_compare`` orders ``dev`` < ``alpha`` < ``beta`` < ``RC`` < a release <
  ``patch`` (``p1``), so ``1.0.0-p1`` is after ``1.0.0`` and ``1.0.0-beta2-dev`` is
  before ``1.0.0-beta2``.

Branch names (``dev-main``, ``1.x-dev``) name no point in the order and are refused.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_MODIFIER = r"[._-]?(?:(stable|beta|b|RC|alpha|a|patch|pl|p)((?:[.-]?\d+)*+)?)?([.-]?dev)?"
_CLASSICAL = re.compile(r"^v?(\d{1,5})(\.\d++)?(\.\d++)?(\.\d++)?" + _MODIFIER + "$", re.I)
_DATE = re.compile(r"^v?(\d{4}(?:[.:-]?\d{2}){1,6}(?:[.:-]?\d{1,3}){0,2})" + _MODIFIER + "$", re.I)
_STABILITY = {
    "a": 1,
    "alpha": 1,
    "b": 2,
    "beta": 2,
    "rc": 3,
    "stable": 4,
    "patch": 5,
    "pl": 5,
    "p": 5,
}
_DEV_ONLY = 0
_RELEASE = 4


@dataclass(frozen=True)
class ComposerVersion:
    numbers: tuple[int, ...]
    stability: int  # 0 dev, 1 alpha, 2 beta, 3 RC, 4 release, 5 patch
    stability_numbers: tuple[int, ...]
    dev: bool

    def key(self) -> tuple[tuple[int, ...], int, tuple[int, ...], int]:
        return (self.numbers, self.stability, self.stability_numbers, 0 if self.dev else 1)


def parse_composer(text: str) -> ComposerVersion | None:
    """The normalised version, or ``None`` when Composer would not order it."""
    candidate = text.strip()
    if "@" in candidate:  # a stability flag: 1.0.0@beta
        candidate = candidate.split("@", 1)[0]
    match = _CLASSICAL.match(candidate)
    if match is not None:
        numbers = [int(match.group(1))] + [
            int(group[1:]) if group else 0 for group in match.group(2, 3, 4)
        ]
        stability, extra, dev = match.group(5, 6, 7)
    else:
        match = _DATE.match(candidate)
        if match is None:
            return None
        numbers = [int(part) for part in re.split(r"[.:-]", match.group(1)) if part]
        stability, extra, dev = match.group(2, 3, 4)
    numbers += [0] * (8 - len(numbers))
    rank = _RELEASE if stability is None else _STABILITY[stability.lower()]
    if stability is None and dev:
        rank = _DEV_ONLY
    stability_numbers = tuple(int(n) for n in re.findall(r"\d+", extra or ""))
    return ComposerVersion(tuple(numbers), rank, stability_numbers, bool(dev))
