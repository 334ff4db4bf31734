"""The advisory catalog the tribunal reads, and the injected range check."""

from __future__ import annotations

from tests.tribunal.dependency_world import VULN_ID, advisory, simple_range_check
from thresher.deps.catalog import (
    InMemoryCatalog,
    VulnerabilityCatalog,
    default_range_check,
    version_in_range,
)
from thresher.deps.model import Affected, Ecosystem


def test_the_in_memory_catalog_finds_records_by_id_and_alias() -> None:
    catalog = InMemoryCatalog([advisory()])
    assert isinstance(catalog, VulnerabilityCatalog)
    record = catalog.get(VULN_ID)
    assert record is not None and catalog.get("CVE-2024-0001") is record
    assert catalog.get("GHSA-none") is None


def test_version_in_range_uses_the_injected_comparison() -> None:
    vuln = advisory(package="Yaml_Lib", introduced="1.2.0", fixed="1.4.0")
    check = simple_range_check
    assert version_in_range(vuln, Ecosystem.PYPI, "yaml-lib", "1.3.0", check) is True
    assert version_in_range(vuln, Ecosystem.PYPI, "yaml-lib", "1.4.0", check) is False
    assert version_in_range(vuln, Ecosystem.PYPI, "yaml-lib", "1.1.9", check) is False
    # a package the advisory does not list, and a check that cannot tell: unknown
    assert version_in_range(vuln, Ecosystem.NPM, "yaml-lib", "1.3.0", check) is None

    def unknown(_e: Ecosystem, _v: str, _a: Affected) -> bool | None:
        return None

    assert version_in_range(vuln, Ecosystem.PYPI, "yaml-lib", "1.3.0", unknown) is None


def test_an_explicitly_listed_version_is_in_range_whatever_the_check_says() -> None:
    vuln = advisory().model_copy(
        update={"affected": (advisory().affected[0].model_copy(update={"versions": ("1.0.0",)}),)}
    )

    def never(_e: Ecosystem, _v: str, _a: Affected) -> bool | None:
        return False

    assert version_in_range(vuln, Ecosystem.PYPI, "yaml-lib", "1.0.0", never) is True


def test_the_default_range_check_answers_a_bool_or_cannot_tell() -> None:
    check = default_range_check()
    answer = check(Ecosystem.PYPI, "not a version at all!", advisory().affected[0])
    assert answer is None or isinstance(answer, bool)
