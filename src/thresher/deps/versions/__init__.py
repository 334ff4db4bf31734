"""Ecosystem-correct version ordering and OSV's range evaluation.

Why our own comparators rather than ``univers`` (aboutcode-org/univers, read through
its PyPI page and source): univers covers many more schemes, but it is not installed
and brings its own dependencies (attrs, semantic-version, saneyaml); it models ranges
as ``vers:`` constraints, so OSV's introduced/fixed/last_affected/limit events would
still need the evaluation below; and the orderings we need are each small and fully
specified -- PEP 440 is ``packaging`` (already installed, the reference
implementation), SemVer 2.0 serves npm, crates.io and Go (pseudo-versions are SemVer
pre-releases by design), and RubyGems and Composer are a few dozen lines ported from
their own sources (``Gem::Version``, ``composer/semver``), each with the published
edge cases as tests. Owning them keeps the order auditable where a wrong answer means
a missed vulnerability.

``affected`` implements https://ossf.github.io/osv-schema/#evaluation: a version listed
in ``versions`` is affected; otherwise each non-GIT range is walked in version order
(``introduced: "0"`` first), ``introduced`` turning "affected" on, ``fixed`` (>=) and
``last_affected`` (>) turning it off, and a version at or above every ``limit`` is
outside the range. GIT ranges name commits, not versions, and are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from typing import Any, assert_never

from packaging.version import InvalidVersion, Version

from thresher.deps.model import Affected, AffectedRange, Ecosystem, RangeType
from thresher.deps.versions.composer import parse_composer
from thresher.deps.versions.rubygems import parse_gem
from thresher.deps.versions.semver import parse_semver
from thresher.errors import ThresherError

__all__ = ["ParsedVersion", "Scheme", "VersionError", "affected", "compare", "parse_version"]


class VersionError(ThresherError):
    """A version string that its ecosystem's ordering cannot place."""


class Scheme(StrEnum):
    """The orderings: several ecosystems share one."""

    PEP440 = "PEP 440"
    SEMVER = "SemVer 2.0"
    RUBYGEMS = "Gem::Version"
    COMPOSER = "Composer"


def scheme_of(ecosystem: Ecosystem) -> Scheme:
    match ecosystem:
        case Ecosystem.PYPI:
            return Scheme.PEP440
        case Ecosystem.NPM | Ecosystem.CRATES_IO | Ecosystem.GO:
            return Scheme.SEMVER
        case Ecosystem.RUBYGEMS:
            return Scheme.RUBYGEMS
        case Ecosystem.PACKAGIST:
            return Scheme.COMPOSER
        case _:
            assert_never(ecosystem)


@dataclass(frozen=True, order=True)
class ParsedVersion:
    """A version placed in its scheme's order; compare only within one scheme."""

    key: Any = field(repr=False)
    scheme: Scheme = field(compare=False)
    text: str = field(compare=False)


def parse_version(ecosystem: Ecosystem | Scheme, text: str) -> ParsedVersion:
    """Raises ``VersionError`` naming the version and the ordering it does not fit."""
    scheme = ecosystem if isinstance(ecosystem, Scheme) else scheme_of(ecosystem)
    return _parse(scheme, text)


def compare(ecosystem: Ecosystem | Scheme, a: str, b: str) -> int:
    """-1, 0 or 1 as ``a`` sorts before, with, or after ``b`` in the ecosystem's order."""
    left, right = parse_version(ecosystem, a), parse_version(ecosystem, b)
    return -1 if left < right else (1 if left > right else 0)


def affected(ecosystem: Ecosystem, version: str, entry: Affected) -> bool:
    """Whether ``version`` is inside ``entry`` by OSV's evaluation (module docstring).

    Raises ``VersionError`` if ``version`` or a range event cannot be ordered; an
    unparsable entry of the ``versions`` list is only ever compared as a string.
    """
    if version in entry.versions:
        return True
    parsed = parse_version(ecosystem, version)
    for listed in entry.versions:
        try:
            if parse_version(ecosystem, listed) == parsed:
                return True
        except VersionError:
            continue
    for rng in entry.ranges:
        match rng.type:
            case RangeType.GIT:
                continue
            case RangeType.SEMVER:
                if _in_range(Scheme.SEMVER, parse_version(Scheme.SEMVER, version), rng):
                    return True
            case RangeType.ECOSYSTEM:
                if _in_range(parsed.scheme, parsed, rng):
                    return True
            case _:
                assert_never(rng.type)
    return False


def _in_range(scheme: Scheme, version: ParsedVersion, rng: AffectedRange) -> bool:
    limits = [e.limit for e in rng.events if e.limit is not None]
    if limits and not any(
        limit == "*" or version < parse_version(scheme, limit) for limit in limits
    ):
        return False
    ordered: list[tuple[tuple[int, Any], str, str]] = []
    for event in rng.events:
        for kind, value in (
            ("introduced", event.introduced),
            ("fixed", event.fixed),
            ("last_affected", event.last_affected),
        ):
            if value is None:
                continue
            if kind == "introduced" and value == "0":
                ordered.append(((0, None), kind, value))
            else:
                ordered.append(((1, parse_version(scheme, value)), kind, value))
    ordered.sort(key=lambda item: item[0])  # "0" first, then by version; stable on ties
    is_affected = False
    for (_, bound), kind, _value in ordered:
        if kind == "introduced":
            if bound is None or version >= bound:
                is_affected = True
        elif kind == "fixed":
            if version >= bound:
                is_affected = False
        elif version > bound:  # last_affected
            is_affected = False
    return is_affected


@lru_cache(maxsize=65536)
def _parse(scheme: Scheme, text: str) -> ParsedVersion:
    key: Any
    match scheme:
        case Scheme.PEP440:
            try:
                key = Version(text)
            except InvalidVersion:
                key = None
        case Scheme.SEMVER:
            semver = parse_semver(text)
            key = semver.key() if semver is not None else None
        case Scheme.RUBYGEMS:
            gem = parse_gem(text)
            key = gem.key() if gem is not None else None
        case Scheme.COMPOSER:
            composer = parse_composer(text)
            key = composer.key() if composer is not None else None
        case _:
            assert_never(scheme)
    if key is None:
        raise VersionError(
            f"version {text!r} is not a valid {scheme.value} version",
            hint="check the lockfile entry or the advisory's range; it cannot be ordered",
        )
    return ParsedVersion(key, scheme, text)
