"""``osv-scanner.toml`` ``[[IgnoredVulns]]``: the ignores a project already keeps.

Honoured as osv-scanner documents them (https://google.github.io/osv-scanner/configuration/):
``id`` (an advisory id; an alias of the advisory matches too, so an ignore written
against the CVE covers the GHSA), ``ignoreUntil`` (a TOML date or date-time; once past,
the entry no longer ignores anything -- an expiring exception must be re-decided) and
``reason`` (kept, so the report can say why a vulnerability was not raised).
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time
from pathlib import Path
from typing import Any

from thresher.deps.model import Vulnerability
from thresher.errors import ConfigError


@dataclass(frozen=True)
class IgnoredVuln:
    id: str
    ignore_until: datetime | None
    reason: str

    def active(self, now: datetime) -> bool:
        return self.ignore_until is None or now < self.ignore_until


@dataclass(frozen=True)
class Ignores:
    entries: tuple[IgnoredVuln, ...] = ()

    def match(self, vulnerability: Vulnerability, now: datetime) -> IgnoredVuln | None:
        """The unexpired entry that ignores this vulnerability (by id or alias), if any."""
        names = {vulnerability.id, *vulnerability.aliases}
        for entry in self.entries:
            if entry.id in names and entry.active(now):
                return entry
        return None

    def split(
        self, vulnerabilities: Iterable[Vulnerability], now: datetime
    ) -> tuple[list[Vulnerability], list[tuple[Vulnerability, IgnoredVuln]]]:
        """(still to report, ignored with the entry that ignored each)."""
        kept: list[Vulnerability] = []
        ignored: list[tuple[Vulnerability, IgnoredVuln]] = []
        for vulnerability in vulnerabilities:
            entry = self.match(vulnerability, now)
            if entry is None:
                kept.append(vulnerability)
            else:
                ignored.append((vulnerability, entry))
        return kept, ignored


def load_ignores(path: Path) -> Ignores:
    """Raises ``ConfigError`` naming the file and the entry for anything malformed."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from exc
    return parse_ignores(text, str(path))


def parse_ignores(text: str, path: str) -> Ignores:
    """``load_ignores`` for content read elsewhere (a pull request's base commit);
    ``path`` names it in errors."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from exc
    raw = data.get("IgnoredVulns", [])
    if not isinstance(raw, list):
        raise ConfigError(f"{path}: IgnoredVulns must be an array of tables ([[IgnoredVulns]])")
    entries = []
    for number, item in enumerate(raw, start=1):
        where = f"{path}: [[IgnoredVulns]] #{number}"
        if not isinstance(item, dict) or not isinstance(item.get("id"), str) or not item["id"]:
            raise ConfigError(f"{where} has no id")
        reason = item.get("reason", "")
        if not isinstance(reason, str):
            raise ConfigError(f"{where}: reason must be a string")
        entries.append(IgnoredVuln(item["id"], _until(item.get("ignoreUntil"), where), reason))
    return Ignores(tuple(entries))


def _until(value: Any, where: str) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo is not None else value.replace(tzinfo=UTC)
    if isinstance(value, date):
        return datetime.combine(value, time(), tzinfo=UTC)
    raise ConfigError(f"{where}: ignoreUntil must be a TOML date or date-time, not {value!r}")
