"""OSV JSON to ``Vulnerability``: the one place an advisory's shape is trusted or refused.

The API's ``/v1/vulns/{id}`` answers and the members of an ``all.zip`` export are the
same OSV JSON (https://ossf.github.io/osv-schema/), so both go through here. An
advisory is remote input: a record that does not fit the schema is an ``OsvError``
naming the record, never a traceback. The CVSS score is computed from the vector
(``thresher.deps.cvss``): the newest version given wins (a v4.0 vector over a v3.x
one, as NVD and GitHub now display), and a vector that does not parse is passed over
for the next one rather than failing the advisory.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import ValidationError

from thresher.deps.cvss import CvssError, score
from thresher.deps.model import (
    Affected,
    AffectedRange,
    Cvss,
    Dependency,
    Ecosystem,
    RangeEvent,
    RangeType,
    Vulnerability,
)
from thresher.errors import ThresherError


class OsvError(ThresherError):
    """The OSV API or an offline export cannot answer: unreachable after retries, a
    refusal, a malformed response or record, a missing export file."""


@dataclass(frozen=True)
class PackageVersion:
    """One question to OSV: is this version of this package affected by anything?

    ``purl`` is carried for purl queries and does not take part in equality: the same
    package version found through two lockfiles is asked once."""

    ecosystem: Ecosystem
    name: str
    version: str
    purl: str | None = field(default=None, compare=False)

    @classmethod
    def of(cls, dependency: Dependency) -> PackageVersion:
        return cls(dependency.ecosystem, dependency.name, dependency.version, dependency.purl)


@dataclass(frozen=True)
class VulnRef:
    """What ``querybatch`` returns for a match: the id, and when it last changed."""

    id: str
    modified: str


def parse_record(data: Any, *, origin: str) -> Vulnerability:
    """``origin`` names where the record came from in an error (a URL, a zip member)."""
    if not isinstance(data, Mapping):
        raise OsvError(f"OSV record from {origin} is not a JSON object")
    try:
        return Vulnerability(
            id=_str(data, "id", origin),
            modified=datetime.fromisoformat(_str(data, "modified", origin)),
            aliases=tuple(_strings(data.get("aliases"), "aliases", origin)),
            summary=str(data.get("summary") or ""),
            details=str(data.get("details") or ""),
            affected=tuple(_affected(item, origin) for item in _list(data, "affected", origin)),
            cvss=_cvss(_list(data, "severity", origin)),
            references=tuple(
                str(ref["url"])
                for ref in _list(data, "references", origin)
                if isinstance(ref, Mapping) and isinstance(ref.get("url"), str)
            ),
            withdrawn=datetime.fromisoformat(data["withdrawn"]) if data.get("withdrawn") else None,
        )
    except (ValidationError, ValueError, TypeError, KeyError) as exc:
        raise OsvError(f"OSV record from {origin} does not fit the OSV schema: {exc}") from exc


def _affected(item: Any, origin: str) -> Affected:
    if not isinstance(item, Mapping) or not isinstance(item.get("package"), Mapping):
        raise OsvError(f"OSV record from {origin}: an affected[] entry has no package")
    package = item["package"]
    specific = item.get("ecosystem_specific")
    imports = specific.get("imports") if isinstance(specific, Mapping) else None
    paths: list[str] = []
    symbols: list[str] = []
    for entry in imports if isinstance(imports, list) else []:
        if isinstance(entry, Mapping):
            if isinstance(entry.get("path"), str):
                paths.append(entry["path"])
            symbols.extend(_strings(entry.get("symbols"), "symbols", origin))
    return Affected(
        ecosystem=_str(package, "ecosystem", origin),
        name=_str(package, "name", origin),
        ranges=tuple(_range(rng, origin) for rng in _list(item, "ranges", origin)),
        versions=tuple(_strings(item.get("versions"), "versions", origin)),
        imports=tuple(paths),
        symbols=tuple(symbols),
    )


def _range(rng: Any, origin: str) -> AffectedRange:
    if not isinstance(rng, Mapping):
        raise OsvError(f"OSV record from {origin}: a range is not an object")
    try:
        kind = RangeType(str(rng.get("type")))
    except ValueError as exc:
        raise OsvError(f"OSV record from {origin}: unknown range type {rng.get('type')!r}") from exc
    events = tuple(RangeEvent(**dict(event)) for event in _list(rng, "events", origin))
    return AffectedRange(type=kind, events=events)


def _cvss(severities: list[Any]) -> Cvss | None:
    for kind in ("CVSS_V4", "CVSS_V3"):
        for entry in severities:
            if isinstance(entry, Mapping) and entry.get("type") == kind:
                try:
                    return score(str(entry.get("score", "")))
                except CvssError:
                    continue
    return None


def _str(data: Mapping[str, Any], key: str, origin: str) -> str:
    value = data.get(key)
    if not isinstance(value, str) or not value:
        raise OsvError(f"OSV record from {origin}: {key!r} is missing or not a string")
    return value


def _list(data: Mapping[str, Any], key: str, origin: str) -> list[Any]:
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list):
        raise OsvError(f"OSV record from {origin}: {key!r} is not a list")
    return value


def _strings(value: Any, key: str, origin: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise OsvError(f"OSV record from {origin}: {key!r} is not a list of strings")
    return list(value)
