"""A labelled dependency corpus: fixture projects, their OSV advisories, and the truth.

Layout (``benchmarks/deps_corpus``)::

    labels.json                 {"labels": [{project, ecosystem, package, version,
                                  vulnerability, label, justification, case, reason}]}
    projects/<name>/            one project, scanned as its own root
    osv/<Ecosystem>/*.json      the OSV records the projects meet (or a real all.zip)

``labels.json`` sits beside ``projects/``, never inside one: the tribunal's agents may
read any file of the project they decide, and a label inside it would hand them the
answer. One labelled finding is one (project, package, version, OSV id) with
``affected`` or ``not_affected``; a ``not_affected`` label names the OpenVEX
justification a correct decision gives, and every label says why in one line.

The OSV records are kept as JSON so they can be read and reviewed; ``osv_export``
packs them into the ``<Ecosystem>/all.zip`` layout of OSV's own exports (what
``--osv-offline`` reads) in a directory the caller owns, so the real offline reader
runs on them. A directory that already holds ``all.zip`` is used as is.
"""

from __future__ import annotations

import json
import zipfile
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from thresher.deps.model import Ecosystem, _package_key
from thresher.deps.osv import OsvError, parse_record
from thresher.errors import UsageError
from thresher.findings.results import Classification, VexJustification

LABELS_FILE = "labels.json"
PROJECTS_DIR = "projects"
OSV_DIR = "osv"


class DepsCorpusError(UsageError):
    """The dependency corpus is malformed: names the file and, for a label, the field."""


class Case(StrEnum):
    """What kind of situation a label exercises (for the per-case breakdown)."""

    CALLED = "called"  # the vulnerable function is called
    IMPORTED_NOT_CALLED = "imported_not_called"
    NEVER_IMPORTED = "never_imported"
    DEV_ONLY = "dev_only"
    TRANSITIVE = "transitive"
    OUTSIDE_RANGE = "outside_range"
    OTHER = "other"


class DependencyLabel(BaseModel):
    """One labelled dependency finding."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    project: Annotated[str, Field(min_length=1)]
    ecosystem: Ecosystem
    package: Annotated[str, Field(min_length=1)]
    version: Annotated[str, Field(min_length=1)]
    vulnerability: Annotated[str, Field(min_length=1)]
    label: Classification
    justification: VexJustification | None = None
    case: Case = Case.OTHER
    reason: Annotated[str, Field(min_length=1)]

    @model_validator(mode="after")
    def _consistent(self) -> DependencyLabel:
        match self.label:
            case Classification.AFFECTED:
                if self.justification is not None:
                    raise ValueError("an 'affected' label takes no justification")
            case Classification.NOT_AFFECTED:
                if self.justification is None:
                    raise ValueError("a 'not_affected' label needs its OpenVEX justification")
            case _:
                raise ValueError(
                    f"'{self.label.value}' is a secret's classification; "
                    "use affected or not_affected"
                )
        return self

    @property
    def key(self) -> tuple[str, Ecosystem, str, str, str]:
        """(project, ecosystem, normalised package, version, OSV id)."""
        return (
            self.project,
            self.ecosystem,
            _package_key(self.ecosystem, self.package),
            self.version,
            self.vulnerability,
        )

    @property
    def may_be_unreported(self) -> bool:
        """A version outside every range is not a finding at all: OSV's own matching (the
        first, ecosystem-ordered comparison) leaves it out, which decides it right."""
        return self.justification is VexJustification.VULNERABLE_CODE_NOT_PRESENT


class _LabelsFile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    description: str = ""
    labels: list[DependencyLabel]


@dataclass(frozen=True)
class DepsCorpus:
    directory: Path
    labels: tuple[DependencyLabel, ...]

    @property
    def projects_dir(self) -> Path:
        return self.directory / PROJECTS_DIR

    @property
    def osv_dir(self) -> Path:
        return self.directory / OSV_DIR

    def projects(self) -> list[str]:
        """Every project directory, labelled or not (an unlabelled one is still scanned:
        its findings show up as unlabelled)."""
        return sorted(p.name for p in self.projects_dir.iterdir() if p.is_dir())

    def labels_of(self, project: str) -> list[DependencyLabel]:
        return [label for label in self.labels if label.project == project]


def is_deps_corpus(directory: Path) -> bool:
    """Whether ``directory`` has the dependency corpus layout (not the secret one)."""
    return (directory / LABELS_FILE).is_file() and (directory / PROJECTS_DIR).is_dir()


def _field(loc: tuple[int | str, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "the file"


def load_deps_corpus(directory: Path) -> DepsCorpus:
    """Reads and checks ``labels.json``; every problem names the file and the field."""
    path = directory / LABELS_FILE
    if not (directory / PROJECTS_DIR).is_dir():
        raise DepsCorpusError(
            f"{directory}: no {PROJECTS_DIR}/ directory",
            hint="a dependency corpus holds projects/<name>/, osv/<Ecosystem>/ and labels.json",
        )
    if not (directory / OSV_DIR).is_dir():
        raise DepsCorpusError(
            f"{directory}: no {OSV_DIR}/ directory",
            hint="keep each advisory as osv/<Ecosystem>/<ID>.json, "
            "or OSV's own export as osv/<Ecosystem>/all.zip",
        )
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DepsCorpusError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise DepsCorpusError(f"{path}: not UTF-8 JSON: {exc}") from None
    try:
        parsed = _LabelsFile.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        message = str(first["msg"]).removeprefix("Value error, ")
        raise DepsCorpusError(
            f"{path}: {_field(first['loc'])}: {message}",
            hint="each label: project, ecosystem, package, version, vulnerability, "
            "label (affected | not_affected), justification (for not_affected), case, reason",
        ) from None
    seen: dict[tuple[str, Ecosystem, str, str, str], int] = {}
    projects = directory / PROJECTS_DIR
    for index, label in enumerate(parsed.labels):
        where = f"{path}: labels[{index}]"
        if label.key in seen:
            raise DepsCorpusError(
                f"{where}: the same finding as labels[{seen[label.key]}] "
                f"({label.package} {label.version}, {label.vulnerability} in {label.project})"
            )
        seen[label.key] = index
        folder = projects / label.project
        if "/" in label.project or label.project.startswith(".") or not folder.is_dir():
            raise DepsCorpusError(
                f"{where}.project: {label.project!r} is not a directory under {projects}"
            )
    return DepsCorpus(directory=directory, labels=tuple(parsed.labels))


def osv_export(source: Path, target: Path) -> Path:
    """``source``'s advisories as OSV's export layout under ``target``; returns the
    directory to hand to ``OfflineDatabase``.

    Each ``source/<Ecosystem>/`` holds either ``all.zip`` (copied by reference: the
    directory is returned as is when every ecosystem has one) or ``*.json`` records,
    which are checked (JSON, the OSV fields triage reads) and packed into
    ``target/<Ecosystem>/all.zip``.
    """
    folders = sorted(p for p in source.iterdir() if p.is_dir())
    known = {e.value: e for e in Ecosystem}
    for folder in folders:
        if folder.name not in known:
            raise DepsCorpusError(
                f"{folder}: not an OSV ecosystem directory",
                hint="one of: " + ", ".join(sorted(known)),
            )
    if all((f / "all.zip").is_file() for f in folders):
        return source
    for folder in folders:
        out = target / folder.name / "all.zip"
        out.parent.mkdir(parents=True, exist_ok=True)
        if (folder / "all.zip").is_file():
            out.write_bytes((folder / "all.zip").read_bytes())
            continue
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as archive:
            for record in sorted(folder.glob("*.json")):
                archive.writestr(record.name, _checked_record(record))
    return target


def _checked_record(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8")
        data = json.loads(text)
    except OSError as exc:
        raise DepsCorpusError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise DepsCorpusError(f"{path}: not UTF-8 JSON: {exc}") from None
    try:
        parse_record(data, origin=str(path))
    except OsvError as exc:
        raise DepsCorpusError(str(exc), hint="see https://ossf.github.io/osv-schema/") from None
    return text
