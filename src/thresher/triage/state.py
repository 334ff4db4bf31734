"""State that survives between triage runs: an embedded SQLite store (issue 10 §4).

``thresher triage`` is a scheduled job over thousands of alerts that may be killed at
any moment (a runner's timeout, a SIGKILL, a rate limit that outlasts the job). What
it must not lose, and what this store keeps, is:

- **run checkpoints**: which alerts a job (``run_key``: targets + filters + shard +
  dry run or ``--apply``) has finished, so a re-run after a kill continues where it
  stopped;
- **decisions** keyed by the value's fingerprint and a context key, so a value that
  appears in N repositories is decided once per distinct context;
- **alerts seen** (state and ``updated_at`` as GitHub last reported them);
- **the audit of applied resolutions**, so a re-run never re-applies and never
  touches an alert a person reopened after thresher resolved it;
- **write-ahead intents** ("about to resolve alert N as R", ``triage.apply``), so a
  run killed around a PATCH leaves a trace the next run settles by reading the alert
  back, instead of losing the audit row or sending the PATCH again.

Durability: WAL journal, ``synchronous=FULL``. Every write is one committed
transaction of its own (``BEGIN IMMEDIATE`` ... ``COMMIT``), so a SIGKILL loses at most
the write in flight. FULL rather than NORMAL because NORMAL in WAL mode may roll back
the last commits on a power loss or an OS crash (a process kill alone loses nothing
either way): losing an audit row would hide that thresher resolved an alert, and
with it the "reopened by a person, never touch again" rule. The cost, one fsync per
commit, is small beside the GitHub API call each write follows.

Secrecy: nothing here ever holds a raw secret. Keys are fingerprints (hashes of the
value) and context keys the caller derives; decisions are stored as the JSON of a
``Decision`` the **caller has already redacted** (``Redactor.model``); comments are
the ones ``policy.resolution_comment`` produced, which are redacted and stripped.

Every failure is a ``StateError`` naming the file: a database written by a newer
thresher, a file that is not a database or is corrupt, one locked by another
process. It exits with the configuration error code (2): the fix is to the
``--state-db`` path or its file, not to retry the same command. (Another thresher
run never gets that far: it meets the run lock first, ``triage.runlock``, and stops
with exit code 4.)
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from types import MappingProxyType, TracebackType

from pydantic import ValidationError

from thresher import __version__
from thresher.findings import AlertResolution, AlertState
from thresher.triage import schema as sql
from thresher.triage.records import (
    AppliedRecord,
    Intent,
    IntentEnd,
    RunCheckpoint,
    SeenAlert,
    StateError,
    translate_sqlite_error,
)
from thresher.tribunal.decisions import REPORT_SCHEMA_VERSION, Decision

__all__ = [
    "DEFAULT_BUSY_SECONDS",
    "DEFAULT_STATE_PATH",
    "SCHEMA_VERSION",
    "AppliedRecord",
    "Intent",
    "IntentEnd",
    "RunCheckpoint",
    "SeenAlert",
    "StateError",
    "StateStore",
]

SCHEMA_VERSION = 1
DEFAULT_STATE_PATH = Path(".thresher") / "state.db"
DEFAULT_BUSY_SECONDS = 10.0


class StateStore:
    """The triage state database. Open with ``StateStore.open(path)``, use as a context
    manager. Safe to share between threads (one connection, writes under a lock);
    other processes may read while it writes (WAL)."""

    def __init__(self, path: Path, connection: sqlite3.Connection) -> None:
        self.path = path
        self._db = connection
        self._lock = threading.RLock()

    # -- opening -----------------------------------------------------------------------

    @classmethod
    def open(cls, path: Path, *, busy_seconds: float = DEFAULT_BUSY_SECONDS) -> StateStore:
        """Open (creating it and its parent directories) the store at ``path``.

        ``busy_seconds`` is how long a write waits for another process's write lock
        before failing with "locked".
        """
        path = Path(path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StateError(
                f"state database {path}: cannot create {path.parent}: {exc.strerror or exc}",
                hint="pass a writable --state-db path",
            ) from exc
        try:
            connection = sqlite3.connect(
                path, timeout=busy_seconds, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            raise translate_sqlite_error(path, exc) from exc
        store = cls(path, connection)
        try:
            store._prepare()
        except BaseException:
            connection.close()
            raise
        return store

    def _prepare(self) -> None:
        with self._errors():
            mode = self._db.execute("PRAGMA journal_mode=WAL").fetchone()
            if mode is None or str(mode[0]).lower() != "wal":
                raise StateError(
                    f"state database {self.path}: cannot switch to WAL mode (got {mode})",
                    hint="put --state-db on a local file system",
                )
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.execute("PRAGMA foreign_keys=ON")
            found = self._version()
            if found is None and self._has_tables():
                raise StateError(
                    f"state database {self.path} is an SQLite file of something else, not a "
                    "thresher state database",
                    hint="pass another --state-db path; thresher does not write into it",
                )
            if found is None:
                with self._write():
                    for statement in sql.statements(sql.SCHEMA):
                        self._db.execute(statement)
                    if self._version() is None:
                        self._db.execute(
                            "INSERT INTO thresher_schema (version, written_by) VALUES (?, ?)",
                            (SCHEMA_VERSION, __version__),
                        )
                found = self._version()
            if found is not None and found[0] > SCHEMA_VERSION:
                raise StateError(
                    f"state database {self.path} was written by a newer thresher "
                    f"({found[1]}, schema {found[0]}); this thresher ({__version__}) reads "
                    f"schema {SCHEMA_VERSION} or older",
                    hint="upgrade thresher, or pass another --state-db path",
                )
            if not self._has_added_tables():
                with self._write():
                    for statement in sql.statements(sql.ADDITIONS):
                        self._db.execute(statement)

    def _has_added_tables(self) -> bool:
        names = {
            str(row[0])
            for row in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")
        }
        return set(sql.ADDED_TABLES) <= names

    def _has_tables(self) -> bool:
        return (
            self._db.execute(
                "SELECT 1 FROM sqlite_master WHERE type='table' AND name NOT LIKE 'sqlite_%'"
            ).fetchone()
            is not None
        )

    def _version(self) -> tuple[int, str] | None:
        table = self._db.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name='thresher_schema'"
        ).fetchone()
        if table is None:
            return None
        row = self._db.execute(
            "SELECT version, written_by FROM thresher_schema ORDER BY version DESC LIMIT 1"
        ).fetchone()
        return None if row is None else (int(row[0]), str(row[1]))

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> StateStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- transactions ------------------------------------------------------------------

    @contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except sqlite3.Error as exc:
            raise translate_sqlite_error(self.path, exc) from exc

    @contextmanager
    def _write(self) -> Iterator[None]:
        """One committed transaction; rolled back whole if anything in it fails."""
        with self._lock, self._errors():
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def _read(self, sql: str, args: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
        with self._lock, self._errors():
            return list(self._db.execute(sql, args).fetchall())

    # -- run checkpoints ---------------------------------------------------------------

    def begin_run(self, run_key: str, run_id: str, params: str) -> RunCheckpoint:
        """Begin or resume the job ``run_key``.

        An unfinished job resumes: its finished alerts come back in ``done``. A job
        that finished (or was never seen) starts fresh with nothing done.
        """
        now = sql.iso(sql.now())
        with self._write():
            row = self._db.execute(
                "SELECT first_run_id, finished_at FROM runs WHERE run_key = ?", (run_key,)
            ).fetchone()
            resumed = row is not None and row[1] is None
            first = str(row[0]) if resumed and row is not None else run_id
            if not resumed:
                self._db.execute("DELETE FROM run_done WHERE run_key = ?", (run_key,))
            self._db.execute(
                "INSERT INTO runs (run_key, run_id, first_run_id, params, started_at, "
                "finished_at) VALUES (?, ?, ?, ?, ?, NULL) ON CONFLICT (run_key) DO UPDATE "
                "SET run_id = excluded.run_id, first_run_id = excluded.first_run_id, "
                "params = excluded.params, started_at = CASE WHEN runs.finished_at IS NULL "
                "THEN runs.started_at ELSE excluded.started_at END, finished_at = NULL",
                (run_key, run_id, first, params, now),
            )
        return RunCheckpoint(
            run_key=run_key,
            run_id=run_id,
            first_run_id=first,
            params=params,
            resumed=resumed,
            done=MappingProxyType(self.done(run_key)),
        )

    def mark_done(self, run_key: str, repo: str, number: int, outcome_json: str) -> None:
        """Record that the job finished this alert (committed before returning)."""
        with self._write():
            sql.upsert_done(self._db, run_key, repo, number, outcome_json)

    def done(self, run_key: str) -> dict[tuple[str, int], str]:
        rows = self._read(
            "SELECT repo, number, outcome FROM run_done WHERE run_key = ? ORDER BY rowid",
            (run_key,),
        )
        return {(str(r[0]), int(str(r[1]))): str(r[2]) for r in rows}

    def finish_run(self, run_key: str) -> None:
        """The job completed: its next invocation starts fresh."""
        with self._write():
            self._db.execute(
                "UPDATE runs SET finished_at = ? WHERE run_key = ?", (sql.iso(sql.now()), run_key)
            )
            self._db.execute("DELETE FROM run_done WHERE run_key = ?", (run_key,))

    # -- alerts seen -------------------------------------------------------------------

    def record_alert(
        self,
        repo: str,
        number: int,
        fingerprint: str,
        context_key: str,
        state: AlertState,
        updated_at: datetime,
        run_id: str,
    ) -> None:
        with self._write():
            self._db.execute(
                "INSERT INTO alerts (repo, number, fingerprint, context_key, state, "
                "updated_at, run_id, seen_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (repo, number) DO UPDATE SET fingerprint = excluded.fingerprint, "
                "context_key = excluded.context_key, state = excluded.state, "
                "updated_at = excluded.updated_at, run_id = excluded.run_id, "
                "seen_at = excluded.seen_at",
                (
                    repo,
                    number,
                    fingerprint,
                    context_key,
                    state.value,
                    sql.iso(updated_at),
                    run_id,
                    sql.iso(sql.now()),
                ),
            )

    def alert(self, repo: str, number: int) -> SeenAlert | None:
        rows = self._read(
            "SELECT fingerprint, context_key, state, updated_at, run_id FROM alerts "
            "WHERE repo = ? AND number = ?",
            (repo, number),
        )
        if not rows:
            return None
        fingerprint, context_key, state, updated_at, run_id = rows[0]
        return SeenAlert(
            repo=repo,
            number=number,
            fingerprint=str(fingerprint),
            context_key=str(context_key),
            state=AlertState(str(state)),
            updated_at=datetime.fromisoformat(str(updated_at)),
            run_id=str(run_id),
        )

    # -- decisions ---------------------------------------------------------------------

    def decision_for(self, fingerprint: str, context_key: str) -> Decision | None:
        """The stored decision for this value in this context, or None.

        A decision stored under another report schema version is not reused (None):
        it is decided again rather than read into a model it no longer fits.
        """
        rows = self._read(
            "SELECT report_schema, decision FROM decisions "
            "WHERE fingerprint = ? AND context_key = ?",
            (fingerprint, context_key),
        )
        if not rows or rows[0][0] != REPORT_SCHEMA_VERSION:
            return None
        try:
            return Decision.model_validate_json(str(rows[0][1]))
        except ValidationError as exc:
            raise StateError(
                f"state database {self.path}: the stored decision for fingerprint "
                f"{fingerprint[:12]}… does not parse ({exc.error_count()} errors)",
                hint="the file was changed outside thresher; pass another --state-db path",
            ) from exc

    def save_decision(
        self, fingerprint: str, context_key: str, decision: Decision, run_id: str
    ) -> None:
        """Store ``decision``, which the caller has ALREADY REDACTED (``Redactor.model``):
        this store writes what it is given and cannot tell a raw value from text."""
        with self._write():
            self._db.execute(
                "INSERT INTO decisions (fingerprint, context_key, report_schema, decision, "
                "run_id, decided_at) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (fingerprint, context_key) DO UPDATE SET "
                "report_schema = excluded.report_schema, decision = excluded.decision, "
                "run_id = excluded.run_id, decided_at = excluded.decided_at",
                (
                    fingerprint,
                    context_key,
                    REPORT_SCHEMA_VERSION,
                    decision.model_dump_json(),
                    run_id,
                    sql.iso(sql.now()),
                ),
            )

    # -- the audit of applied resolutions ----------------------------------------------

    def record_applied(self, record: AppliedRecord) -> None:
        """Append one applied resolution to the audit (never updated, never deleted)."""
        with self._write():
            sql.insert_applied(self._db, record)

    def applied_for(self, repo: str, number: int) -> AppliedRecord | None:
        """The latest resolution thresher applied to this alert, or None."""
        rows = self._read(
            f"{sql.APPLIED_SELECT} WHERE repo = ? AND number = ? ORDER BY id DESC LIMIT 1",
            (repo, number),
        )
        return sql.applied_row(rows[0]) if rows else None

    def audit(self) -> list[AppliedRecord]:
        """Every applied resolution, oldest first."""
        return [sql.applied_row(row) for row in self._read(f"{sql.APPLIED_SELECT} ORDER BY id")]

    # -- write-ahead intents -----------------------------------------------------------

    def intend(
        self,
        run_key: str,
        alert: tuple[str, int],
        resolution: AlertResolution,
        comment: str,
        *,
        run_id: str,
        listed_updated_at: datetime,
        outcome_json: str,
    ) -> Intent:
        """Record "about to resolve ``alert`` as ``resolution``", committed before the
        PATCH is sent, so a kill after it leaves a trace the next run settles."""
        repo, number = alert
        with self._write():
            ident = sql.insert_intent(
                self._db,
                run_key=run_key,
                repo=repo,
                number=number,
                resolution=resolution,
                comment=comment,
                run_id=run_id,
                listed_updated_at=listed_updated_at,
                outcome=outcome_json,
            )
        return Intent(
            id=ident,
            run_key=run_key,
            repo=repo,
            number=number,
            resolution=resolution,
            comment=comment,
            run_id=run_id,
            listed_updated_at=listed_updated_at,
            outcome=outcome_json,
        )

    def pending_intents(self, run_key: str) -> list[Intent]:
        """The job's intents that no run ended (a kill between intent and end), oldest first."""
        rows = self._read(
            f"{sql.INTENT_SELECT} WHERE run_key = ? AND ended IS NULL ORDER BY id", (run_key,)
        )
        return [sql.intent_row(row) for row in rows]

    def settle(
        self,
        intent: Intent,
        end: IntentEnd,
        outcome_json: str,
        applied: AppliedRecord | None = None,
    ) -> None:
        """End ``intent`` as ``end``, append ``applied`` to the audit, and mark the alert
        done in its job, in ONE transaction: a kill leaves all of it or none of it."""
        with self._write():
            if applied is not None:
                sql.insert_applied(self._db, applied)
            sql.end_intent(self._db, intent.id, end)
            sql.upsert_done(self._db, intent.run_key, intent.repo, intent.number, outcome_json)
