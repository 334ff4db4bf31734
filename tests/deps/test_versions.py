"""Version ordering per ecosystem and OSV's range evaluation, on published edge cases."""

from __future__ import annotations

import itertools
import re

import pytest

from thresher.deps.model import Affected, AffectedRange, Ecosystem, RangeEvent, RangeType
from thresher.deps.versions import VersionError, affected, compare, parse_version

E = Ecosystem


def ordered(ecosystem: Ecosystem, versions: list[str]) -> None:
    for low, high in itertools.pairwise(versions):
        assert compare(ecosystem, low, high) == -1, (low, high)
        assert compare(ecosystem, high, low) == 1, (high, low)


def test_pep440_ordering_from_the_specification() -> None:
    # PEP 440, "Summary of permitted suffixes and relative ordering" (the example list).
    ordered(
        E.PYPI,
        [
            "1.dev0",
            "1.0.dev456",
            "1.0a1",
            "1.0a2.dev456",
            "1.0a12.dev456",
            "1.0a12",
            "1.0b1.dev456",
            "1.0b2",
            "1.0b2.post345.dev456",
            "1.0b2.post345",
            "1.0rc1.dev456",
            "1.0rc1",
            "1.0",
            "1.0+abc.5",
            "1.0+abc.7",
            "1.0+5",
            "1.0.post456.dev34",
            "1.0.post456",
            "1.0.15",
            "1.1.dev1",
        ],
    )


def test_pep440_epochs_and_normalisation() -> None:
    # PEP 440 "Version epochs": 1!1.0 sorts after 2013.10; "Normalization": 1.0 == 1.0.0.
    assert compare(E.PYPI, "2013.10", "1!1.0") == -1
    assert compare(E.PYPI, "1.0", "1.0.0") == 0
    assert compare(E.PYPI, "1.0-post1", "1.0.post1") == 0


def test_semver_precedence_from_the_specification() -> None:
    # semver.org 2.0.0, item 11: the example chain, and item 10: build metadata ignored.
    chain = ["1.0.0-alpha", "1.0.0-alpha.1", "1.0.0-alpha.beta", "1.0.0-beta"]
    chain += ["1.0.0-beta.2", "1.0.0-beta.11", "1.0.0-rc.1", "1.0.0"]
    for ecosystem in (E.NPM, E.CRATES_IO):
        ordered(ecosystem, chain)
        assert compare(ecosystem, "1.0.0+20130313144700", "1.0.0") == 0
        assert compare(ecosystem, "1.0.0-beta+exp.sha.5114f85", "1.0.0-beta") == 0
    ordered(E.NPM, ["1.9.0", "1.10.0", "1.11.0"])  # item 11: numeric, not lexical


def test_go_pseudo_versions() -> None:
    # https://go.dev/ref/mod#pseudo-versions: the three forms and where each sorts.
    ordered(E.GO, ["v0.0.0-20191109021931-daa7c04131f5", "v0.0.0", "v0.1.0"])
    ordered(E.GO, ["v1.2.3", "v1.2.4-0.20191109021931-daa7c04131f5", "v1.2.4"])
    ordered(E.GO, ["v1.2.4-pre", "v1.2.4-pre.0.20191109021931-daa7c04131f5", "v1.2.4"])
    # OSV's Go ranges have no "v"; go.mod versions always do.
    assert compare(E.GO, "v1.2.3", "1.2.3") == 0
    # https://go.dev/ref/mod#incompatible-versions: +incompatible is build metadata.
    assert compare(E.GO, "v2.0.0+incompatible", "2.0.0") == 0


def test_rubygems_ordering_from_gem_version() -> None:
    # rubygems test/rubygems/test_gem_version.rb (test_spaceship, test_prerelease).
    ordered(E.RUBYGEMS, ["1.0.a", "1.0.b1", "1.0.rc1", "1.0", "1.0.1", "1.9.3", "1.10"])
    ordered(E.RUBYGEMS, ["5.a", "5.0.0.rc2", "5"])  # "5.a" <=> "5.0.0.rc2": -1
    assert compare(E.RUBYGEMS, "1.0", "1") == 0
    assert compare(E.RUBYGEMS, "1.0.0.a", "1.a") == 0  # canonical_segments
    assert compare(E.RUBYGEMS, "1.8.a", "1.8-a") == -1  # "-" reads as ".pre."
    ordered(E.RUBYGEMS, ["1.0.0-rc1", "1.0.0"])


def test_composer_ordering_from_composer_semver() -> None:
    # composer/semver tests/VersionParserTest.php (normalize) and ComparatorTest.php.
    ordered(
        E.PACKAGIST,
        [
            "1.0.0-dev",
            "1.0.0-alpha1",
            "1.0.0-beta2-dev",
            "1.0.0-beta2",
            "1.0.0-RC1",
            "1.0.0",
            "1.0.0-p1",
            "1.0.0-patch2",
            "1.0.1",
        ],
    )
    assert compare(E.PACKAGIST, "v1.2", "1.2.0.0") == 0
    assert compare(E.PACKAGIST, "1.0.0-b2", "1.0.0-beta2") == 0
    assert compare(E.PACKAGIST, "1.0.0-pl1", "1.0.0-p1") == 0
    ordered(E.PACKAGIST, ["2010.01.02", "2010.10.02"])  # date versions


@pytest.mark.parametrize(
    ("ecosystem", "text"),
    [
        (E.PYPI, "not a version"),
        (E.NPM, "1.2"),
        (E.GO, "latest"),
        (E.RUBYGEMS, "1..0"),
        (E.PACKAGIST, "dev-main"),
        (E.CRATES_IO, "^1.0"),
    ],
)
def test_an_unparsable_version_is_a_clear_error(ecosystem: Ecosystem, text: str) -> None:
    with pytest.raises(VersionError, match=re.escape(repr(text))):
        parse_version(ecosystem, text)


def _entry(*events: RangeEvent, kind: RangeType = RangeType.ECOSYSTEM, **extra: object) -> Affected:
    return Affected(
        ecosystem="PyPI",
        name="jinja2",
        ranges=(AffectedRange(type=kind, events=events),),
        **extra,  # type: ignore[arg-type]
    )


def test_osv_evaluation_introduced_fixed_last_affected_limit() -> None:
    # https://ossf.github.io/osv-schema/#evaluation
    entry = _entry(RangeEvent(introduced="0"), RangeEvent(fixed="2.11.3"))
    assert affected(E.PYPI, "2.4.1", entry)
    assert affected(E.PYPI, "2.11.3rc1", entry)  # a pre-release of the fix is before it
    assert not affected(E.PYPI, "2.11.3", entry)
    last = _entry(RangeEvent(introduced="1.0"), RangeEvent(last_affected="1.4"))
    assert affected(E.PYPI, "1.4", last) and not affected(E.PYPI, "1.4.post1", last)
    assert not affected(E.PYPI, "0.9", last)
    # Two introduced/fixed pairs, listed out of order: events are sorted first.
    two = _entry(
        RangeEvent(introduced="2.0"),
        RangeEvent(fixed="2.3"),
        RangeEvent(introduced="1.0"),
        RangeEvent(fixed="1.5"),
    )
    assert [affected(E.PYPI, v, two) for v in ("0.5", "1.2", "1.5", "1.9", "2.0", "2.3")] == [
        False,
        True,
        False,
        False,
        True,
        False,
    ]
    limited = _entry(RangeEvent(introduced="0"), RangeEvent(limit="3.0"))
    assert affected(E.PYPI, "2.9", limited) and not affected(E.PYPI, "3.0", limited)


def test_osv_versions_list_git_ranges_and_semver_ranges() -> None:
    listed = _entry(versions=("1.0.0", "1.1"))
    assert affected(E.PYPI, "1.1", listed)
    assert affected(E.PYPI, "1.0", listed)  # PEP 440: 1.0 == 1.0.0
    assert not affected(E.PYPI, "1.2", listed)
    git = _entry(RangeEvent(introduced="0"), RangeEvent(fixed="abc123"), kind=RangeType.GIT)
    assert not affected(E.PYPI, "1.0", git)
    go = Affected(
        ecosystem="Go",
        name="golang.org/x/text",
        ranges=(
            AffectedRange(
                type=RangeType.SEMVER,
                events=(RangeEvent(introduced="0"), RangeEvent(fixed="0.3.8")),
            ),
        ),
    )
    assert affected(E.GO, "v0.0.0-20191109021931-daa7c04131f5", go)
    assert affected(E.GO, "v0.3.7", go) and not affected(E.GO, "v0.3.8", go)


def test_an_unparsable_range_event_is_an_error() -> None:
    with pytest.raises(VersionError, match=r"'one\.two'"):
        affected(E.PYPI, "1.0", _entry(RangeEvent(introduced="one.two")))
