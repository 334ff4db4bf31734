"""Value objects of the dependency half: what a lockfile pins, and what OSV says about it.

Shared by the lockfile parsers (``thresher.deps.lockfiles``), the OSV client and its
offline database (``thresher.deps.osv``), and the tribunal's dependency tools. The
vulnerability model is the subset of the OSV schema (https://ossf.github.io/osv-schema/)
that deciding "is this project affected" reads; everything is frozen and typed so it
can travel through the core and be cached as JSON.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from thresher.errors import ThresherError
from thresher.findings.model import Severity
from thresher.redaction.redactor import Structural


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Ecosystem(StrEnum):
    """OSV's ecosystem names, as its API and its exports spell them."""

    PYPI = "PyPI"
    NPM = "npm"
    GO = "Go"
    CRATES_IO = "crates.io"
    RUBYGEMS = "RubyGems"
    PACKAGIST = "Packagist"


class Relation(StrEnum):
    """How the project depends on the package, when the lockfile says."""

    DIRECT = "direct"
    TRANSITIVE = "transitive"
    UNKNOWN = "unknown"


class Dependency(_Frozen):
    """One pinned package version at one line of one lockfile or manifest."""

    name: Annotated[str, Structural] = Field(min_length=1)
    version: Annotated[str, Structural] = Field(min_length=1)
    ecosystem: Ecosystem
    purl: Annotated[str, Structural]  # from packageurl-python
    path: Annotated[str, Structural]  # the lockfile, relative to the scanned root
    line: int = Field(ge=1)
    relation: Relation = Relation.UNKNOWN
    dev: bool | None = None  # True: only a dev/test dependency; None: the format does not say


class LockfileError(ThresherError):
    """A lockfile or manifest cannot be read; names the file and, when known, the line.

    The scan goes on with the other files: a malformed lockfile is reported, never fatal.
    """

    def __init__(
        self, path: str, message: str, *, line: int | None = None, hint: str | None = None
    ) -> None:
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {message}", hint=hint)
        self.path = path
        self.line = line


class RangeType(StrEnum):
    SEMVER = "SEMVER"
    ECOSYSTEM = "ECOSYSTEM"
    GIT = "GIT"


class RangeEvent(_Frozen):
    """One OSV range event: exactly one of the four is set."""

    introduced: str | None = None
    fixed: str | None = None
    last_affected: str | None = None
    limit: str | None = None


class AffectedRange(_Frozen):
    type: RangeType
    events: tuple[RangeEvent, ...] = ()


class Affected(_Frozen):
    """One ``affected[]`` entry: a package and the versions of it the advisory covers."""

    ecosystem: Annotated[str, Structural]  # as OSV gives it ("PyPI", "Go", "npm", ...)
    name: Annotated[str, Structural]
    ranges: tuple[AffectedRange, ...] = ()
    versions: tuple[Annotated[str, Structural], ...] = ()
    # ecosystem_specific.imports[]: the import paths and vulnerable symbols, where published
    imports: tuple[Annotated[str, Structural], ...] = ()
    symbols: tuple[Annotated[str, Structural], ...] = ()


class Cvss(_Frozen):
    """A CVSS vector with the base score computed from it (never taken on trust)."""

    vector: Annotated[str, Structural]
    version: Annotated[str, Structural]  # "3.0", "3.1", "4.0"
    base_score: float = Field(ge=0, le=10)
    severity: Severity


class Vulnerability(_Frozen):
    """An OSV record, reduced to what triage reads."""

    id: Annotated[str, Structural]
    modified: datetime
    aliases: tuple[Annotated[str, Structural], ...] = ()
    summary: str = ""
    details: str = ""
    affected: tuple[Affected, ...] = ()
    cvss: Cvss | None = None
    references: tuple[Annotated[str, Structural], ...] = ()
    withdrawn: datetime | None = None

    def affecting(self, ecosystem: Ecosystem, name: str) -> tuple[Affected, ...]:
        """The ``affected`` entries about this package (names compared as OSV does:
        case-insensitively and with ``-``/``_``/``.`` alike for PyPI)."""
        key = _package_key(ecosystem, name)
        return tuple(
            a
            for a in self.affected
            if a.ecosystem.split(":")[0] == ecosystem.value
            and _package_key(ecosystem, a.name) == key
        )

    def fixed_versions(self, ecosystem: Ecosystem, name: str) -> tuple[str, ...]:
        """Every ``fixed`` event of the package's ranges, in the order OSV lists them."""
        return tuple(
            event.fixed
            for affected in self.affecting(ecosystem, name)
            for rng in affected.ranges
            for event in rng.events
            if event.fixed is not None
        )


def _package_key(ecosystem: Ecosystem, name: str) -> str:
    if ecosystem is Ecosystem.PYPI:
        return "-".join(
            part for part in name.lower().replace("_", "-").replace(".", "-").split("-")
        )
    if ecosystem in (Ecosystem.NPM, Ecosystem.GO, Ecosystem.CRATES_IO, Ecosystem.RUBYGEMS):
        return name
    return name.lower()
