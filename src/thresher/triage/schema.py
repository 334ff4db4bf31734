"""The SQL of the triage state store (``thresher.triage.state``) and its row helpers.

Kept apart so the store's module stays about when and how it writes. Statements that
must run inside one of the store's transactions with others (an applied resolution,
the end of its intent and the alert's checkpoint, all or none) are functions of a
connection here, called by the store under its lock.

The ``intents`` table (write-ahead intents, issue 19) was added without a new schema
version: it is additive, so a database written before it gets the table the first
time this thresher opens it, and an older thresher still reads a newer database (it
only ignores the intents).
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime

from thresher.findings import AlertResolution
from thresher.triage.records import AppliedRecord, Intent, IntentEnd

SCHEMA = """
CREATE TABLE IF NOT EXISTS thresher_schema (
    version INTEGER NOT NULL,
    written_by TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS runs (
    run_key TEXT PRIMARY KEY,
    run_id TEXT NOT NULL,
    first_run_id TEXT NOT NULL,
    params TEXT NOT NULL,
    started_at TEXT NOT NULL,
    finished_at TEXT
);
CREATE TABLE IF NOT EXISTS run_done (
    run_key TEXT NOT NULL,
    repo TEXT NOT NULL,
    number INTEGER NOT NULL,
    outcome TEXT NOT NULL,
    done_at TEXT NOT NULL,
    PRIMARY KEY (run_key, repo, number)
);
CREATE TABLE IF NOT EXISTS alerts (
    repo TEXT NOT NULL,
    number INTEGER NOT NULL,
    fingerprint TEXT NOT NULL,
    context_key TEXT NOT NULL,
    state TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    run_id TEXT NOT NULL,
    seen_at TEXT NOT NULL,
    PRIMARY KEY (repo, number)
);
CREATE TABLE IF NOT EXISTS decisions (
    fingerprint TEXT NOT NULL,
    context_key TEXT NOT NULL,
    report_schema TEXT NOT NULL,
    decision TEXT NOT NULL,
    run_id TEXT NOT NULL,
    decided_at TEXT NOT NULL,
    PRIMARY KEY (fingerprint, context_key)
);
CREATE TABLE IF NOT EXISTS applied (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    repo TEXT NOT NULL,
    number INTEGER NOT NULL,
    resolution TEXT NOT NULL,
    comment TEXT NOT NULL,
    run_id TEXT NOT NULL,
    applied_at TEXT NOT NULL,
    alert_updated_at_after TEXT
);
CREATE INDEX IF NOT EXISTS applied_alert ON applied (repo, number, id);
"""

# Additive tables: created in a database of any earlier layout of this schema version.
ADDITIONS = """
CREATE TABLE IF NOT EXISTS intents (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_key TEXT NOT NULL,
    repo TEXT NOT NULL,
    number INTEGER NOT NULL,
    resolution TEXT NOT NULL,
    comment TEXT NOT NULL,
    run_id TEXT NOT NULL,
    listed_updated_at TEXT NOT NULL,
    outcome TEXT NOT NULL,
    intended_at TEXT NOT NULL,
    ended TEXT,
    ended_at TEXT
);
CREATE INDEX IF NOT EXISTS intents_pending ON intents (run_key, ended, id);
"""
ADDED_TABLES = ("intents",)


def now() -> datetime:
    return datetime.now(UTC)


def iso(moment: datetime) -> str:
    if moment.tzinfo is None:
        raise ValueError(f"state times must carry a time zone, got {moment.isoformat()}")
    return moment.astimezone(UTC).isoformat()


def time_of(text: str | None) -> datetime | None:
    return None if text is None else datetime.fromisoformat(text)


def statements(script: str) -> list[str]:
    return [part.strip() for part in script.split(";") if part.strip()]


# -- the audit of applied resolutions ------------------------------------------------------

APPLIED_SELECT = (
    "SELECT repo, number, resolution, comment, run_id, applied_at, alert_updated_at_after "
    "FROM applied"
)


def insert_applied(db: sqlite3.Connection, record: AppliedRecord) -> None:
    after = record.alert_updated_at_after
    db.execute(
        "INSERT INTO applied (repo, number, resolution, comment, run_id, applied_at, "
        "alert_updated_at_after) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (
            record.repo,
            record.number,
            record.resolution.value,
            record.comment,
            record.run_id,
            iso(record.applied_at),
            None if after is None else iso(after),
        ),
    )


def applied_row(row: tuple[object, ...]) -> AppliedRecord:
    repo, number, resolution, comment, run_id, applied_at, after = row
    return AppliedRecord(
        repo=str(repo),
        number=int(str(number)),
        resolution=AlertResolution(str(resolution)),
        comment=str(comment),
        run_id=str(run_id),
        applied_at=datetime.fromisoformat(str(applied_at)),
        alert_updated_at_after=time_of(None if after is None else str(after)),
    )


# -- run checkpoints -----------------------------------------------------------------------


def upsert_done(
    db: sqlite3.Connection, run_key: str, repo: str, number: int, outcome_json: str
) -> None:
    db.execute(
        "INSERT INTO run_done (run_key, repo, number, outcome, done_at) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (run_key, repo, number) "
        "DO UPDATE SET outcome = excluded.outcome, done_at = excluded.done_at",
        (run_key, repo, number, outcome_json, iso(now())),
    )


# -- write-ahead intents -------------------------------------------------------------------

INTENT_SELECT = (
    "SELECT id, run_key, repo, number, resolution, comment, run_id, listed_updated_at, "
    "outcome FROM intents"
)


def insert_intent(
    db: sqlite3.Connection,
    *,
    run_key: str,
    repo: str,
    number: int,
    resolution: AlertResolution,
    comment: str,
    run_id: str,
    listed_updated_at: datetime,
    outcome: str,
) -> int:
    cursor = db.execute(
        "INSERT INTO intents (run_key, repo, number, resolution, comment, run_id, "
        "listed_updated_at, outcome, intended_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (
            run_key,
            repo,
            number,
            resolution.value,
            comment,
            run_id,
            iso(listed_updated_at),
            outcome,
            iso(now()),
        ),
    )
    if cursor.lastrowid is None:  # an INSERT into a rowid table always sets it
        raise sqlite3.DatabaseError("the intent was not stored")
    return cursor.lastrowid


def end_intent(db: sqlite3.Connection, intent_id: int, end: IntentEnd) -> None:
    db.execute(
        "UPDATE intents SET ended = ?, ended_at = ? WHERE id = ? AND ended IS NULL",
        (end.value, iso(now()), intent_id),
    )


def intent_row(row: tuple[object, ...]) -> Intent:
    ident, run_key, repo, number, resolution, comment, run_id, listed, outcome = row
    return Intent(
        id=int(str(ident)),
        run_key=str(run_key),
        repo=str(repo),
        number=int(str(number)),
        resolution=AlertResolution(str(resolution)),
        comment=str(comment),
        run_id=str(run_id),
        listed_updated_at=datetime.fromisoformat(str(listed)),
        outcome=str(outcome),
    )
