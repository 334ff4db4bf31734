"""OsvFindingSource: one dependency finding per (package, version, vulnerability)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from tests.deps.osv.advisories import JINJA2, LODASH, advisory
from thresher.deps.model import Dependency, Ecosystem, Relation
from thresher.deps.osv import PackageVersion, load_ignores, parse_record
from thresher.findings.model import FindingKind, Location, OsvSource, Severity
from thresher.redaction.redactor import Redactor
from thresher.sources import dedupe
from thresher.sources.osv import OsvFindingSource, VulnerabilityCatalog

JINJA = parse_record(JINJA2, origin="test")
LODASH_VULN = parse_record(LODASH, origin="test")


def dep(
    name: str, version: str, path: str, line: int, eco: Ecosystem = Ecosystem.PYPI
) -> Dependency:
    kind = "pypi" if eco is Ecosystem.PYPI else "npm"
    return Dependency(
        name=name,
        version=version,
        ecosystem=eco,
        purl=f"pkg:{kind}/{name.lower()}@{version}",
        path=path,
        line=line,
        relation=Relation.DIRECT,
    )


def test_one_finding_per_package_version_vulnerability_with_every_lockfile_line() -> None:
    in_poetry = dep("jinja2", "2.11.2", "poetry.lock", 40)
    in_requirements = dep("Jinja2", "2.11.2", "requirements.txt", 3)  # same package
    lodash = dep("lodash", "4.17.20", "package-lock.json", 12, Ecosystem.NPM)
    matches = {
        PackageVersion.of(in_poetry): (JINJA,),
        PackageVersion.of(in_requirements): (JINJA,),
        PackageVersion.of(lodash): (LODASH_VULN,),
    }
    catalog = VulnerabilityCatalog()
    source = OsvFindingSource([in_poetry, in_requirements, lodash], matches, catalog=catalog)
    findings = dedupe(source.collect()).findings
    assert len(findings) == 2
    jinja = next(f for f in findings if f.rule_id == "GHSA-g3rq-g295-4j3m")
    assert jinja.kind is FindingKind.DEPENDENCY
    assert jinja.locations == (
        Location(path="poetry.lock", line=40),
        Location(path="requirements.txt", line=3),
    )
    assert jinja.source == OsvSource(
        package="jinja2",
        version="2.11.2",
        ecosystem="PyPI",
        lockfile="poetry.lock",
        relation="direct",  # what the lockfiles say, for the tribunal's dev-only check
    )
    assert jinja.redacted == "jinja2@2.11.2"  # reports show the package, not a value
    assert jinja.severity is Severity.MEDIUM  # CVSS 5.3
    lodash_finding = next(f for f in findings if f.rule_id == "GHSA-35jh-r3h4-6jhm")
    assert lodash_finding.severity is Severity.HIGH  # CVSS 7.2
    # Aliases, the vector and fixed versions reach the reports through the catalog.
    vuln = catalog.get_vulnerability("GHSA-g3rq-g295-4j3m")
    assert vuln is not None and "CVE-2020-28493" in vuln.aliases
    assert vuln.cvss is not None and vuln.cvss.vector.startswith("CVSS:3.1/")
    assert vuln.fixed_versions(Ecosystem.PYPI, "jinja2") == ("2.11.3",)


def test_ids_are_stable_and_versions_stay_apart() -> None:
    old = dep("jinja2", "2.11.1", "a/requirements.txt", 1)
    new = dep("jinja2", "2.11.2", "b/requirements.txt", 1)
    matches = {PackageVersion.of(old): (JINJA,), PackageVersion.of(new): (JINJA,)}
    first = dedupe(OsvFindingSource([old, new], matches).collect()).findings
    again = dedupe(OsvFindingSource([new, old], matches).collect()).findings
    assert len(first) == 2  # two versions: two things to upgrade
    assert [f.id for f in first] == [f.id for f in again]


def test_the_synthetic_value_redacts_nothing_a_user_reads() -> None:
    jinja = dep("jinja2", "2.11.2", "poetry.lock", 40)
    deduped = dedupe(OsvFindingSource([jinja], {PackageVersion.of(jinja): (JINJA,)}).collect())
    redactor = Redactor(deduped.vault.values())
    text = 'jinja2 = "2.11.2"  # GHSA-g3rq-g295-4j3m CVE-2020-28493 pkg:pypi/jinja2@2.11.2'
    assert redactor.text(text) == text


def test_ignored_and_withdrawn_vulnerabilities_are_not_findings(tmp_path: Path) -> None:
    config = tmp_path / "osv-scanner.toml"
    config.write_text('[[IgnoredVulns]]\nid = "CVE-2020-28493"\nreason = "urlize unused"\n')
    withdrawn = parse_record(
        advisory("PYSEC-2000-1", "PyPI", "jinja2", [], withdrawn="2022-01-01T00:00:00Z"),
        origin="test",
    )
    jinja = dep("jinja2", "2.11.2", "poetry.lock", 40)
    source = OsvFindingSource(
        [jinja],
        {PackageVersion.of(jinja): (JINJA, withdrawn)},
        ignores=load_ignores(config),
        now=datetime(2025, 1, 1, tzinfo=UTC),
    )
    assert list(source.collect()) == []
    (ignored,) = source.ignored
    assert (ignored.vulnerability_id, ignored.entry.reason) == (
        "GHSA-g3rq-g295-4j3m",
        "urlize unused",
    )
    assert ignored.locations == (Location(path="poetry.lock", line=40),)
    assert len(source.catalog) == 0


def test_dev_only_when_every_lockfile_line_says_so() -> None:
    dev = dep("jinja2", "2.11.2", "a/poetry.lock", 4).model_copy(update={"dev": True})
    also_dev = dep("jinja2", "2.11.2", "b/poetry.lock", 4).model_copy(
        update={"dev": True, "relation": Relation.TRANSITIVE}
    )
    shipped = dep("jinja2", "2.11.2", "c/poetry.lock", 4).model_copy(update={"dev": False})
    matches = {PackageVersion.of(dev): (JINJA,)}

    def source_of(*pinned: Dependency) -> OsvSource:
        [finding] = dedupe(OsvFindingSource(pinned, matches).collect()).findings
        assert isinstance(finding.source, OsvSource)
        return finding.source

    assert source_of(dev, also_dev).dev is True
    assert source_of(dev, also_dev).relation == "direct"
    assert source_of(also_dev).relation == "transitive"
    assert source_of(dev, shipped).dev is False
    assert source_of(dep("jinja2", "2.11.2", "d/requirements.txt", 1)).dev is None
