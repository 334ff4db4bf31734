"""Offline matching against OSV's per-ecosystem exports (``--osv-offline DIR``).

OSV publishes every ecosystem as ``https://osv-vulnerabilities.storage.googleapis.com/
<Ecosystem>/all.zip``, one OSV JSON per member. Laid out as ``DIR/<Ecosystem>/all.zip``
they answer the API's question locally, with the ecosystem's own ordering
(``thresher.deps.versions``).

Speed comes from the index, not the comparator: each export is read once (only the
ecosystems asked about), every ``affected[]`` entry is filed under (ecosystem,
normalised package name), and a lookup touches only the advisories of its package.
Records are parsed into ``Vulnerability`` only when they match, so a 20,000-advisory
export costs one ``json.loads`` per member at load time.

An advisory whose range cannot be ordered (a version string outside the ecosystem's
grammar) is not silently dropped: it is kept in ``problems`` for the caller to report,
and the other advisories still match.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from thresher.deps.model import Ecosystem, Vulnerability, _package_key
from thresher.deps.osv.records import OsvError, PackageVersion, parse_record
from thresher.deps.versions import VersionError, affected

EXPORT_URL = "https://osv-vulnerabilities.storage.googleapis.com/{ecosystem}/all.zip"


class OfflineDatabase:
    def __init__(self, directory: Path) -> None:
        if not directory.is_dir():
            raise OsvError(
                f"--osv-offline {directory}: not a directory",
                hint="download <Ecosystem>/all.zip from OSV into DIR/<Ecosystem>/all.zip",
            )
        self.directory = directory
        self.problems: list[str] = []
        self._index: dict[Ecosystem, dict[str, list[dict[str, Any]]]] = {}
        self._parsed: dict[tuple[Ecosystem, str], Vulnerability] = {}

    def lookup(
        self, packages: Iterable[PackageVersion]
    ) -> dict[PackageVersion, tuple[Vulnerability, ...]]:
        """Every package's vulnerabilities (an empty tuple for none), as ``OsvClient``."""
        answer: dict[PackageVersion, tuple[Vulnerability, ...]] = {}
        for package in dict.fromkeys(packages):
            answer[package] = tuple(self._matches(package))
        return answer

    def _matches(self, package: PackageVersion) -> list[Vulnerability]:
        index = self._load(package.ecosystem)
        matched: list[Vulnerability] = []
        for raw in index.get(_package_key(package.ecosystem, package.name), ()):
            vulnerability = self._vulnerability(package.ecosystem, raw)
            if vulnerability.withdrawn is not None:
                continue
            try:
                hit = any(
                    affected(package.ecosystem, package.version, entry)
                    for entry in vulnerability.affecting(package.ecosystem, package.name)
                )
            except VersionError as exc:
                self.problems.append(
                    f"{vulnerability.id} for {package.name} {package.version}: {exc}"
                )
                continue
            if hit:
                matched.append(vulnerability)
        return matched

    def _vulnerability(self, ecosystem: Ecosystem, raw: dict[str, Any]) -> Vulnerability:
        key = (ecosystem, str(raw.get("id")))
        if key not in self._parsed:
            self._parsed[key] = parse_record(raw, origin=f"{self._zip(ecosystem)}:{key[1]}")
        return self._parsed[key]

    def _zip(self, ecosystem: Ecosystem) -> Path:
        return self.directory / ecosystem.value / "all.zip"

    def _load(self, ecosystem: Ecosystem) -> dict[str, list[dict[str, Any]]]:
        if ecosystem in self._index:
            return self._index[ecosystem]
        path = self._zip(ecosystem)
        if not path.is_file():
            raise OsvError(
                f"--osv-offline: no export for {ecosystem.value} at {path}",
                hint=f"download {EXPORT_URL.format(ecosystem=ecosystem.value)} to {path}",
            )
        index: dict[str, list[dict[str, Any]]] = {}
        try:
            with zipfile.ZipFile(path) as archive:
                for member in archive.namelist():
                    if not member.endswith(".json"):
                        continue
                    try:
                        raw = json.loads(archive.read(member))
                    except ValueError as exc:
                        raise OsvError(f"{path}:{member} is not JSON: {exc}") from exc
                    for name in _package_names(raw, ecosystem):
                        index.setdefault(_package_key(ecosystem, name), []).append(raw)
        except (OSError, zipfile.BadZipFile) as exc:
            raise OsvError(f"--osv-offline: cannot read {path}: {exc}") from exc
        self._index[ecosystem] = index
        return index


def _package_names(raw: Any, ecosystem: Ecosystem) -> set[str]:
    """The names this record's ``affected[]`` gives for ``ecosystem`` (once each)."""
    names: set[str] = set()
    entries = raw.get("affected") if isinstance(raw, dict) else None
    for entry in entries if isinstance(entries, list) else []:
        package = entry.get("package") if isinstance(entry, dict) else None
        if not isinstance(package, dict) or not isinstance(package.get("name"), str):
            continue
        if str(package.get("ecosystem", "")).split(":")[0] == ecosystem.value:
            names.add(package["name"])
    return names
