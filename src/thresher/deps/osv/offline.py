"""Offline matching against OSV's per-ecosystem exports (``--osv-offline DIR``).

OSV publishes every ecosystem as ``https://osv-vulnerabilities.storage.googleapis.com/
<Ecosystem>/all.zip``, one OSV JSON per member. Laid out as ``DIR/<Ecosystem>/all.zip``
they answer the API's question locally, with the ecosystem's own ordering
(``thresher.deps.versions``).

Speed comes from the index, not the comparator: every ``affected[]`` entry is filed
under (ecosystem, normalised package name), and a lookup touches only the advisories
of its package. Without an ``index`` file, each export asked about is read once per
process and a record is parsed into ``Vulnerability`` only when its package is asked
about. With one (``offline_index.ExportIndex``), the export is parsed once, when it
changes, and every later run reads only its packages' records: this is what keeps a
2,000-package lockfile well under a second against a 20,000-advisory export.

An advisory that does not parse, or whose range cannot be ordered (a version outside
the ecosystem's grammar), is not silently dropped: it is kept in ``problems`` for the
caller to report, and the other advisories still match.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterable
from pathlib import Path
from types import TracebackType
from typing import Any, Self

from thresher.deps.model import Ecosystem, Vulnerability, _package_key
from thresher.deps.osv.offline_index import ExportIndex
from thresher.deps.osv.records import OsvError, PackageVersion, parse_record
from thresher.deps.versions import VersionError, affected

EXPORT_URL = "https://osv-vulnerabilities.storage.googleapis.com/{ecosystem}/all.zip"


class OfflineDatabase:
    def __init__(self, directory: Path, *, index: Path | None = None) -> None:
        if not directory.is_dir():
            raise OsvError(
                f"--osv-offline {directory}: not a directory",
                hint="download <Ecosystem>/all.zip from OSV into DIR/<Ecosystem>/all.zip",
            )
        self.directory = directory
        self._store = ExportIndex(index) if index is not None else None
        self._indexed: set[Ecosystem] = set()
        self.problems: list[str] = []
        self._index: dict[Ecosystem, dict[str, list[dict[str, Any]]]] = {}
        self._parsed: dict[tuple[Ecosystem, str], Vulnerability] = {}
        self._broken: set[tuple[Ecosystem, str]] = set()

    def lookup(
        self, packages: Iterable[PackageVersion]
    ) -> dict[PackageVersion, tuple[Vulnerability, ...]]:
        """Every package's vulnerabilities (an empty tuple for none), as ``OsvClient``."""
        answer: dict[PackageVersion, tuple[Vulnerability, ...]] = {}
        for package in dict.fromkeys(packages):
            answer[package] = tuple(self._matches(package))
        return answer

    def close(self) -> None:
        if self._store is not None:
            self._store.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _candidates(self, ecosystem: Ecosystem, name: str) -> list[Vulnerability]:
        key = _package_key(ecosystem, name)
        if self._store is None:
            found = []
            for raw in self._load(ecosystem).get(key, ()):
                vulnerability = self._vulnerability(ecosystem, raw)
                if vulnerability is not None:
                    found.append(vulnerability)
            return found
        if ecosystem not in self._indexed:
            self._reindex(self._store, ecosystem)
            self._indexed.add(ecosystem)
        return self._store.records(ecosystem, key)

    def _reindex(self, store: ExportIndex, ecosystem: Ecosystem) -> None:
        path = self._zip(ecosystem)
        signature = _signature(path, ecosystem)
        if store.current(ecosystem, signature):
            return
        records = {id(raw): raw for raws in self._load(ecosystem).values() for raw in raws}
        entries: list[tuple[str, Vulnerability]] = []
        for raw in records.values():
            vulnerability = self._vulnerability(ecosystem, raw)
            if vulnerability is not None:
                keys = {_package_key(ecosystem, name) for name in _package_names(raw, ecosystem)}
                entries.extend((key, vulnerability) for key in sorted(keys))
        store.replace(ecosystem, signature, entries)
        del self._index[ecosystem]  # the store answers from now on

    def _matches(self, package: PackageVersion) -> list[Vulnerability]:
        matched: list[Vulnerability] = []
        for vulnerability in self._candidates(package.ecosystem, package.name):
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

    def _vulnerability(self, ecosystem: Ecosystem, raw: dict[str, Any]) -> Vulnerability | None:
        key = (ecosystem, str(raw.get("id")))
        if key in self._broken:
            return None
        if key not in self._parsed:
            try:
                self._parsed[key] = parse_record(raw, origin=f"{self._zip(ecosystem)}:{key[1]}")
            except OsvError as exc:
                self._broken.add(key)
                self.problems.append(str(exc))
                return None
        return self._parsed[key]

    def _zip(self, ecosystem: Ecosystem) -> Path:
        return self.directory / ecosystem.value / "all.zip"

    def _load(self, ecosystem: Ecosystem) -> dict[str, list[dict[str, Any]]]:
        if ecosystem in self._index:
            return self._index[ecosystem]
        path = self._zip(ecosystem)
        _signature(path, ecosystem)  # a clear error when the export is missing
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


def _signature(path: Path, ecosystem: Ecosystem) -> str:
    try:
        stat = path.stat()
    except OSError as exc:
        raise OsvError(
            f"--osv-offline: no export for {ecosystem.value} at {path}",
            hint=f"download {EXPORT_URL.format(ecosystem=ecosystem.value)} to {path}",
        ) from exc
    return f"{stat.st_size}:{stat.st_mtime_ns}"


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
