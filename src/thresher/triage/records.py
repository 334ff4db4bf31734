"""Values and errors of the triage state store (``thresher.triage.state``).

Kept apart from the store so the policy and the report can name an applied
resolution without the SQLite code, and so the store's module stays about storing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict

from thresher.errors import ConfigError
from thresher.findings import AlertResolution, AlertState
from thresher.redaction.redactor import Structural


class StateError(ConfigError):
    """The state database cannot be used; the message names its path (exit code 2)."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class AppliedRecord(_Frozen):
    """One resolution thresher applied to an alert: a row of the audit table."""

    repo: Annotated[str, Structural]
    number: int
    resolution: AlertResolution
    comment: str
    run_id: Annotated[str, Structural]
    applied_at: datetime
    # The alert's ``updated_at`` in GitHub's answer to the PATCH: a later change to the
    # alert was made by someone else.
    alert_updated_at_after: datetime | None = None


class SeenAlert(_Frozen):
    """An alert as a run last saw it."""

    repo: Annotated[str, Structural]
    number: int
    fingerprint: Annotated[str, Structural]
    context_key: Annotated[str, Structural]
    state: AlertState
    updated_at: datetime
    run_id: Annotated[str, Structural]


@dataclass(frozen=True)
class RunCheckpoint:
    """Where a job stands when an invocation begins.

    ``resumed`` is true when an earlier invocation of the same ``run_key`` stopped
    before ``finish_run``; ``done`` then maps each alert it finished to the outcome
    JSON it recorded, and ``first_run_id`` is the run id of the invocation that began
    the job (``run_id`` is this invocation's).
    """

    run_key: str
    run_id: str
    first_run_id: str
    params: str
    resumed: bool
    done: Mapping[tuple[str, int], str]


def translate_sqlite_error(path: Path, exc: sqlite3.Error) -> StateError:
    """A user-facing error naming the file, from sqlite3's."""
    text = str(exc)
    lowered = text.lower()
    if "locked" in lowered or "busy" in lowered:
        return StateError(
            f"state database {path} is locked by another process ({text})",
            hint="wait for the other thresher run to finish, or pass another --state-db path",
        )
    if "not a database" in lowered or "malformed" in lowered or "corrupt" in lowered:
        return StateError(
            f"state database {path} is not a thresher state database or is corrupt ({text})",
            hint="move the file aside (a new one is created) or pass another --state-db path",
        )
    if "readonly" in lowered or "unable to open" in lowered:
        return StateError(
            f"state database {path} cannot be opened for writing ({text})",
            hint="pass a writable --state-db path",
        )
    return StateError(f"state database {path}: {text}", hint="pass another --state-db path")


class IntentEnd(StrEnum):
    """How a write-ahead intent ended (``Intent``); an intent with none is pending."""

    APPLIED = "applied"  # thresher's PATCH resolved it (or had, before a kill)
    HELD = "held"  # the last look found it changed by someone else: not touched
    FAILED = "failed"  # GitHub refused the PATCH; the alert's error says why


class Intent(_Frozen):
    """ "About to resolve alert N as R": written before the PATCH, ended after it.

    A run killed between the two leaves it pending; the next run of the same job reads
    the alert back from GitHub before anything else and ends it, so the PATCH is
    neither lost from the audit nor sent twice. ``listed_updated_at`` is the alert's
    ``updated_at`` in the read the change was decided on: a later one means someone
    else changed the alert since. ``outcome`` is the alert's report entry (JSON, as the
    run's checkpoint stores it) for the report of the run that ends it.
    """

    id: int
    run_key: Annotated[str, Structural]
    repo: Annotated[str, Structural]
    number: int
    resolution: AlertResolution
    comment: str
    run_id: Annotated[str, Structural]
    listed_updated_at: datetime
    outcome: str
