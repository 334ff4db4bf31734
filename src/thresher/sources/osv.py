"""OSV as a finding source: one dependency finding per (package, version, vulnerability).

Given the dependencies the lockfile parsers found and what OSV (online or offline)
said about each package version, this yields the reports ``dedupe`` turns into
findings:

- one report per (ecosystem, package, version, vulnerability id), carrying every
  lockfile line that pins that version: the same vulnerable version in ``poetry.lock``
  and ``requirements.txt`` is one thing to decide, with two locations. The grouping is
  done here, not left to ``dedupe``, because ``dedupe`` keeps reports of different
  ``OsvSource`` targets apart and the target names a lockfile; the merged report names
  the first lockfile (in path order), so its id is stable across runs;
- ``rule_id`` is the vulnerability id, the severity comes from the CVSS vector's
  computed base score (``medium`` when the advisory has no v3 vector: unknown is not
  low);
- ``value`` -- which ``Sourced`` requires and the vault keeps -- is a synthetic key,
  ``thresher-osv:<ecosystem>/<package>@<version>#<id>``. Nothing here is a secret, and
  the key is chosen so that treating it as one harms nothing: the run's redactor
  scrubs exact occurrences of vault values, and this string occurs in no repository
  file, prompt or report, while the package name and the advisory id on their own are
  never vault values and so are never redacted.

Aliases, the CVSS vector and fixed versions travel in a ``VulnerabilityCatalog`` (id
-> ``Vulnerability``) that the run keeps beside the findings: reports and the
tribunal's ``get_vulnerability(id)`` tool read it, so a ``Finding`` stays the
kind-neutral shape it is. Advisories an ``osv-scanner.toml`` entry ignores are not
reported; they are kept in ``ignored`` with the entry's reason.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from thresher.deps.model import Dependency, Ecosystem, Relation, Vulnerability, _package_key
from thresher.deps.osv.ignores import IgnoredVuln, Ignores
from thresher.deps.osv.records import PackageVersion
from thresher.findings.model import FindingKind, Location, OsvSource, Severity
from thresher.sources.base import Source, Sourced

NO_CVSS_SEVERITY = Severity.MEDIUM


class VulnerabilityCatalog:
    """The run's advisories by id: what reports and ``get_vulnerability`` read."""

    def __init__(self, vulnerabilities: Iterable[Vulnerability] = ()) -> None:
        self._by_id: dict[str, Vulnerability] = {}
        for vulnerability in vulnerabilities:
            self.add(vulnerability)

    def add(self, vulnerability: Vulnerability) -> None:
        """Keeps the most recently modified record when an id is added twice."""
        known = self._by_id.get(vulnerability.id)
        if known is None or vulnerability.modified > known.modified:
            self._by_id[vulnerability.id] = vulnerability

    def get_vulnerability(self, vuln_id: str) -> Vulnerability | None:
        return self._by_id.get(vuln_id)

    def get(self, vuln_id: str) -> Vulnerability | None:
        """By id, else by alias: the tribunal's ``get_vulnerability`` tool asks through
        ``thresher.deps.catalog.VulnerabilityCatalog``, and a model may name the CVE."""
        found = self._by_id.get(vuln_id)
        if found is None:
            found = next((v for v in self._by_id.values() if vuln_id in v.aliases), None)
        return found

    def all(self) -> list[Vulnerability]:
        """Every advisory, by id."""
        return [self._by_id[i] for i in sorted(self._by_id)]

    def ids(self) -> list[str]:
        return sorted(self._by_id)

    def __contains__(self, vuln_id: object) -> bool:
        return vuln_id in self._by_id

    def __len__(self) -> int:
        return len(self._by_id)


@dataclass(frozen=True)
class IgnoredMatch:
    """A vulnerability an ``osv-scanner.toml`` entry kept out of the findings, and why."""

    package: PackageVersion
    vulnerability_id: str
    entry: IgnoredVuln
    locations: tuple[Location, ...]


class OsvFindingSource(Source):
    def __init__(
        self,
        dependencies: Iterable[Dependency],
        vulnerabilities: Mapping[PackageVersion, Sequence[Vulnerability]],
        *,
        catalog: VulnerabilityCatalog | None = None,
        ignores: Ignores | None = None,
        now: datetime | None = None,
    ) -> None:
        self._dependencies = tuple(dependencies)
        self._vulnerabilities = vulnerabilities
        self.catalog = catalog if catalog is not None else VulnerabilityCatalog()
        self._ignores = ignores or Ignores()
        self._now = now or datetime.now(UTC)
        self.ignored: list[IgnoredMatch] = []

    @property
    def name(self) -> str:
        return "osv"

    def collect(self) -> Iterator[Sourced]:
        groups: dict[tuple[Ecosystem, str, str, str], list[Dependency]] = {}
        found: dict[str, Vulnerability] = {}
        for dependency in self._dependencies:
            package = PackageVersion.of(dependency)
            for vulnerability in self._vulnerabilities.get(package, ()):
                if vulnerability.withdrawn is not None:
                    continue
                key = (
                    dependency.ecosystem,
                    _package_key(dependency.ecosystem, dependency.name),
                    dependency.version,
                    vulnerability.id,
                )
                groups.setdefault(key, []).append(dependency)
                found[vulnerability.id] = vulnerability
        for key in sorted(groups, key=lambda k: (k[0].value, k[1], k[2], k[3])):
            pinned = groups[key]
            vulnerability = found[key[3]]
            locations = tuple(
                sorted({Location(path=d.path, line=d.line) for d in pinned}, key=_place)
            )
            first = min(pinned, key=lambda d: (d.path, d.line))
            entry = self._ignores.match(vulnerability, self._now)
            if entry is not None:
                package = PackageVersion.of(first)
                self.ignored.append(IgnoredMatch(package, vulnerability.id, entry, locations))
                continue
            self.catalog.add(vulnerability)
            yield Sourced(
                kind=FindingKind.DEPENDENCY,
                rule_id=vulnerability.id,
                severity=(
                    vulnerability.cvss.severity
                    if vulnerability.cvss is not None
                    else NO_CVSS_SEVERITY
                ),
                locations=locations,
                source=OsvSource(
                    package=first.name,
                    version=first.version,
                    ecosystem=first.ecosystem.value,
                    lockfile=first.path,
                    dev=_dev(pinned),
                    relation=_relation(pinned),
                ),
                value=dependency_key(first, vulnerability.id),
            )


def dependency_key(dependency: Dependency, vuln_id: str) -> str:
    """The synthetic ``Sourced.value`` (module docstring): never a secret, never in text."""
    name = _package_key(dependency.ecosystem, dependency.name)
    return f"thresher-osv:{dependency.ecosystem.value}/{name}@{dependency.version}#{vuln_id}"


def _dev(pinned: Sequence[Dependency]) -> bool | None:
    """Dev-only when every lockfile line pinning it says so; not when any says otherwise."""
    flags = {d.dev for d in pinned}
    if False in flags:
        return False
    return True if flags == {True} else None


def _relation(pinned: Sequence[Dependency]) -> str | None:
    """Direct when any lockfile pins it directly; transitive when every one says so."""
    relations = {d.relation for d in pinned}
    if Relation.DIRECT in relations:
        return Relation.DIRECT.value
    if relations == {Relation.TRANSITIVE}:
        return Relation.TRANSITIVE.value
    return None


def _place(location: Location) -> tuple[str, int]:
    return location.path, location.line
