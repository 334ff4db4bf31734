"""Workflow commands, step outputs and the job summary, written as GitHub documents them.

- **Annotations** (``::error file=…,line=…,title=…::message``): the runner splits a command
  at ``::`` and its properties at ``,`` and ``=``, and a line break ends the command, so
  data escapes ``%``, CR and LF, and properties also ``:`` and ``,``. A path, a rule name
  or a model's words could otherwise end the annotation and start a command of their own.
  GitHub shows at most 10 error and 10 warning annotations per step; the rest are counted
  in one notice instead of being dropped silently.
- **Step outputs** go to ``$GITHUB_OUTPUT`` as ``name<<DELIMITER`` blocks with a random
  delimiter checked against the value, so a value cannot close its block early and set
  another output.
- **The job summary** is appended to ``$GITHUB_STEP_SUMMARY``, which GitHub refuses above
  1 MiB per step: text is cut at a line boundary with a note saying so.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from thresher.errors import ThresherError

MAX_ANNOTATIONS_PER_LEVEL = 10
"""GitHub shows at most 10 error and 10 warning annotations per step."""

MAX_SUMMARY_BYTES = 1024 * 1024
"""GitHub's limit on what one step appends to ``$GITHUB_STEP_SUMMARY``."""

_OUTPUT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")


class RunnerFileError(ThresherError):
    """``$GITHUB_OUTPUT`` or ``$GITHUB_STEP_SUMMARY`` cannot be written."""


def escape_data(text: str) -> str:
    """A workflow command's message: ``%``, CR and LF escaped."""
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    """A workflow command's property value: as data, plus ``:`` and ``,``."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


class Level(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    NOTICE = "notice"


@dataclass(frozen=True)
class Annotation:
    level: Level
    title: str
    message: str
    file: str | None = None
    line: int | None = None

    def command(self) -> str:
        props = []
        if self.file is not None:
            props.append(f"file={escape_property(self.file)}")
        if self.line is not None:
            props.append(f"line={int(self.line)}")
        props.append(f"title={escape_property(self.title)}")
        return f"::{self.level.value} {','.join(props)}::{escape_data(self.message)}"


@dataclass(frozen=True)
class CappedAnnotations:
    shown: tuple[Annotation, ...]
    omitted: Mapping[Level, int]

    @property
    def omitted_total(self) -> int:
        return sum(self.omitted.values())

    def note(self) -> str | None:
        """One line naming what was left out, or None when everything is shown."""
        if not self.omitted_total:
            return None
        parts = [f"{n} {level.value}" for level, n in self.omitted.items() if n]
        return (
            f"{' and '.join(parts)} annotation(s) not shown: GitHub shows at most "
            f"{MAX_ANNOTATIONS_PER_LEVEL} per level and step; the job summary and the "
            "SARIF list every finding"
        )

    def lines(self) -> list[str]:
        out = [a.command() for a in self.shown]
        note = self.note()
        if note is not None:
            out.append(Annotation(Level.NOTICE, "thresher", note).command())
        return out


def cap_annotations(
    annotations: Iterable[Annotation], per_level: int = MAX_ANNOTATIONS_PER_LEVEL
) -> CappedAnnotations:
    """The first ``per_level`` of each level (callers order them riskiest first)."""
    shown: list[Annotation] = []
    counts = dict.fromkeys(Level, 0)
    omitted = dict.fromkeys(Level, 0)
    for annotation in annotations:
        if counts[annotation.level] < per_level:
            counts[annotation.level] += 1
            shown.append(annotation)
        else:
            omitted[annotation.level] += 1
    return CappedAnnotations(tuple(shown), omitted)


def output_block(name: str, value: str, *, delimiter: str | None = None) -> str:
    """One ``name<<DELIMITER`` block for ``$GITHUB_OUTPUT``."""
    if not _OUTPUT_NAME.fullmatch(name):
        raise ValueError(f"not an output name: {name!r}")
    delimiter = delimiter or f"ghadelimiter_{secrets.token_hex(16)}"
    if delimiter in value or delimiter in name:
        raise ValueError("the output delimiter occurs in the value")
    return f"{name}<<{delimiter}\n{value}\n{delimiter}\n"


def write_outputs(path: Path, outputs: Mapping[str, str]) -> None:
    text = "".join(output_block(name, value) for name, value in outputs.items())
    _append(path, text, "GITHUB_OUTPUT")


def fit(text: str, limit: int, note: str, *, measure: str = "bytes") -> str:
    """``text`` if it fits ``limit``, else its longest prefix of whole lines that fits with
    ``note`` appended. ``measure`` is ``bytes`` (UTF-8) or ``chars``."""

    def size(value: str) -> int:
        return len(value.encode("utf-8")) if measure == "bytes" else len(value)

    if size(text) <= limit:
        return text
    tail = f"\n\n{note}\n"
    budget = limit - size(tail)
    kept: list[str] = []
    used = 0
    for line in text.splitlines(keepends=True):
        if used + size(line) > budget:
            break
        kept.append(line)
        used += size(line)
    return "".join(kept).rstrip() + tail


def append_summary(path: Path, text: str) -> None:
    _append(path, fit(text, MAX_SUMMARY_BYTES, _SUMMARY_CUT), "GITHUB_STEP_SUMMARY")


_SUMMARY_CUT = (
    "> ✂️ Truncated at GitHub's 1 MiB job-summary limit; the JSON report has every decision."
)


def _append(path: Path, text: str, variable: str) -> None:
    try:
        with path.open("a", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise RunnerFileError(
            f"{variable}={path}: cannot append: {exc.strerror or exc}",
            hint="the runner creates this file for each step; do not point it elsewhere",
        ) from None
