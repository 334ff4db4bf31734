"""The triage state store: durable across SIGKILL, readable while written, never a raw value."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

import thresher
from tests.tokens import github_token
from thresher.errors import ExitCode
from thresher.findings import AlertResolution, AlertState
from thresher.redaction.redactor import Redactor, redact_value
from thresher.triage.state import AppliedRecord, IntentEnd, StateError, StateStore

from .factory import decision

WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from thresher.tribunal.decisions import Decision
    from thresher.triage.state import StateStore

    db, template = Path(sys.argv[1]), Path(sys.argv[2]).read_text()
    made = Decision.model_validate_json(template)
    with StateStore.open(db) as store:
        store.begin_run("job", "run-1", "org=octo")
        for i in range(1_000_000):
            store.save_decision(f"fp{i}", "ctx", made, "run-1")
            store.mark_done("job", "octo/app", i, f'{{"n": {i}}}')
            print(i, flush=True)
    """
)


def _src() -> str:
    return str(Path(thresher.__file__).resolve().parents[1])


@pytest.mark.slow
def test_sigkill_mid_write_keeps_exactly_the_committed_work(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    template = tmp_path / "decision.json"
    template.write_text(decision().model_dump_json())
    env = {**os.environ, "PYTHONPATH": _src()}
    child = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(db), str(template)],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert child.stdout is not None
    acknowledged = -1
    seen_by_reader: list[int] = []
    with StateStore.open(db) as reader:
        # Readers are never blocked by the writer (WAL) and only see committed work.
        while acknowledged < 300:
            line = child.stdout.readline()
            assert line, "the writer stopped before it was killed"
            acknowledged = int(line)
            if acknowledged % 50 == 0:
                seen_by_reader.append(len(reader.done("job")))
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=60)
    # The writer may have run ahead of what was read: its last acknowledgement is
    # the last line it printed before the signal.
    for line in child.stdout.read().splitlines():
        acknowledged = int(line)
    child.stdout.close()
    assert child.returncode == -signal.SIGKILL
    assert seen_by_reader == sorted(seen_by_reader)
    assert seen_by_reader[-1] >= 300

    with StateStore.open(db) as store:
        assert store._read("PRAGMA integrity_check") == [("ok",)]
        done = store.done("job")
        numbers = sorted(number for _, number in done)
        # Everything acknowledged is there, in order, with no gap; at most the writes
        # in flight when the signal landed (one decision, one checkpoint) are extra.
        assert numbers == list(range(len(numbers)))
        assert acknowledged + 1 <= len(numbers) <= acknowledged + 2
        assert done[("octo/app", acknowledged)] == f'{{"n": {acknowledged}}}'
        for i in range(len(numbers)):
            assert store.decision_for(f"fp{i}", "ctx") == decision()
        checkpoint = store.begin_run("job", "run-2", "org=octo")
    assert checkpoint.resumed
    assert checkpoint.first_run_id == "run-1"
    assert set(checkpoint.done) == {("octo/app", n) for n in numbers}


def test_a_reader_does_not_wait_for_an_open_write_and_sees_only_committed_rows(
    tmp_path: Path,
) -> None:
    db = tmp_path / "state.db"
    with StateStore.open(db) as store:
        store.begin_run("job", "run-1", "")
        store.mark_done("job", "octo/app", 1, "{}")
    other = sqlite3.connect(db, isolation_level=None)
    try:
        other.execute("BEGIN IMMEDIATE")
        other.execute(
            "INSERT INTO run_done (run_key, repo, number, outcome, done_at) "
            "VALUES ('job', 'octo/app', 2, '{}', 'now')"
        )
        with StateStore.open(db, busy_seconds=0.05) as reader:
            assert reader.done("job") == {("octo/app", 1): "{}"}
        other.execute("COMMIT")
    finally:
        other.close()


def test_a_locked_database_is_a_clear_error_naming_the_file(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    StateStore.open(db).close()
    other = sqlite3.connect(db, isolation_level=None)
    try:
        other.execute("BEGIN EXCLUSIVE")
        with (
            StateStore.open(db, busy_seconds=0.05) as store,
            pytest.raises(StateError, match="is locked by another process") as caught,
        ):
            store.save_decision("fp", "ctx", decision(), "run-1")
        assert str(db) in caught.value.message
        assert caught.value.exit_code is ExitCode.USAGE
    finally:
        other.close()


def test_a_database_from_a_newer_thresher_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    StateStore.open(db).close()
    raw = sqlite3.connect(db)
    raw.execute("UPDATE thresher_schema SET version = 99, written_by = '9.0'")
    raw.commit()
    raw.close()
    with pytest.raises(StateError, match="written by a newer thresher") as caught:
        StateStore.open(db)
    assert str(db) in caught.value.message
    assert "9.0" in caught.value.message
    assert caught.value.hint


def test_a_file_that_is_not_a_database_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    db.write_bytes(b"this is not sqlite, it is a text file\n" * 200)
    with pytest.raises(StateError, match="not a thresher state database or is corrupt") as caught:
        StateStore.open(db)
    assert str(db) in caught.value.message
    assert caught.value.exit_code is ExitCode.USAGE


def test_open_creates_parent_directories_and_uses_wal(tmp_path: Path) -> None:
    db = tmp_path / ".thresher" / "nested" / "state.db"
    with StateStore.open(db) as store:
        assert store._read("PRAGMA journal_mode") == [("wal",)]
        assert store._read("PRAGMA synchronous") == [(2,)]  # FULL
    assert db.is_file()


def test_no_raw_value_reaches_the_file_after_storing_a_redacted_decision(
    tmp_path: Path,
) -> None:
    token = github_token(seed=4242)
    raw = decision(token, rationale=f"the fixture assigns {token} to a test client")
    redacted = Redactor([token]).model(raw)
    db = tmp_path / "state.db"
    with StateStore.open(db) as store:
        store.save_decision(raw.finding.fingerprint, "tests/", redacted, "run-1")
        stored = store.decision_for(raw.finding.fingerprint, "tests/")
    assert stored is not None
    assert redact_value(token) in stored.rationale
    files = [p for p in tmp_path.iterdir() if p.name.startswith("state.db")]
    assert files
    for path in files:
        assert token.encode() not in path.read_bytes()
        assert token[4:20].encode() not in path.read_bytes()


def test_a_value_is_decided_once_per_context(tmp_path: Path) -> None:
    made = decision()
    with StateStore.open(tmp_path / "state.db") as store:
        assert store.decision_for("fp", "tests/") is None
        store.save_decision("fp", "tests/", made, "run-1")
        assert store.decision_for("fp", "tests/") == made
        assert store.decision_for("fp", "src/") is None
        assert store.decision_for("other", "tests/") is None


def test_a_decision_from_another_report_schema_is_decided_again(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    with StateStore.open(db) as store:
        store.save_decision("fp", "ctx", decision(), "run-1")
    raw = sqlite3.connect(db)
    raw.execute("UPDATE decisions SET report_schema = '0.1'")
    raw.commit()
    raw.close()
    with StateStore.open(db) as store:
        assert store.decision_for("fp", "ctx") is None


def test_a_stored_decision_that_does_not_parse_is_a_clear_error(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    with StateStore.open(db) as store:
        store.save_decision("fp", "ctx", decision(), "run-1")
    raw = sqlite3.connect(db)
    raw.execute("UPDATE decisions SET decision = '{\"finding\": 1}'")
    raw.commit()
    raw.close()
    with StateStore.open(db) as store, pytest.raises(StateError, match="does not parse"):
        store.decision_for("fp", "ctx")


def test_a_finished_run_starts_fresh_and_an_unfinished_one_resumes(tmp_path: Path) -> None:
    with StateStore.open(tmp_path / "state.db") as store:
        first = store.begin_run("job", "run-1", "p")
        assert not first.resumed
        assert dict(first.done) == {}
        store.mark_done("job", "octo/app", 7, '{"a": 1}')
        resumed = store.begin_run("job", "run-2", "p")
        assert resumed.resumed
        assert resumed.first_run_id == "run-1"
        assert resumed.run_id == "run-2"
        assert dict(resumed.done) == {("octo/app", 7): '{"a": 1}'}
        store.begin_run("other-job", "run-2", "q")
        assert store.done("other-job") == {}
        store.finish_run("job")
        fresh = store.begin_run("job", "run-3", "p")
        assert not fresh.resumed
        assert fresh.first_run_id == "run-3"
        assert dict(fresh.done) == {}


def test_alerts_seen_are_recorded_and_updated(tmp_path: Path) -> None:
    moment = datetime(2026, 11, 1, 12, tzinfo=UTC)
    with StateStore.open(tmp_path / "state.db") as store:
        assert store.alert("octo/app", 3) is None
        store.record_alert("octo/app", 3, "fp", "ctx", AlertState.OPEN, moment, "run-1")
        store.record_alert(
            "octo/app", 3, "fp", "ctx", AlertState.RESOLVED, moment + timedelta(hours=1), "run-2"
        )
        seen = store.alert("octo/app", 3)
    assert seen is not None
    assert seen.state is AlertState.RESOLVED
    assert seen.updated_at == moment + timedelta(hours=1)
    assert seen.run_id == "run-2"


def test_naive_times_are_refused(tmp_path: Path) -> None:
    with StateStore.open(tmp_path / "state.db") as store, pytest.raises(ValueError):
        store.record_alert("o/r", 1, "fp", "ctx", AlertState.OPEN, datetime(2026, 1, 1), "r")


def test_the_audit_keeps_every_applied_resolution_in_order(tmp_path: Path) -> None:
    moment = datetime(2026, 11, 1, 12, tzinfo=UTC)
    first = AppliedRecord(
        repo="octo/app",
        number=3,
        resolution=AlertResolution.USED_IN_TESTS,
        comment="thresher: test",
        run_id="run-1",
        applied_at=moment,
        alert_updated_at_after=moment,
    )
    second = first.model_copy(
        update={"resolution": AlertResolution.FALSE_POSITIVE, "run_id": "run-2"}
    )
    other = first.model_copy(update={"number": 4, "alert_updated_at_after": None})
    db = tmp_path / "state.db"
    with StateStore.open(db) as store:
        assert store.applied_for("octo/app", 3) is None
        store.record_applied(first)
        store.record_applied(other)
        store.record_applied(second)
    with StateStore.open(db) as store:
        assert store.applied_for("octo/app", 3) == second
        assert store.applied_for("octo/app", 4) == other
        assert store.audit() == [first, other, second]


def test_an_intent_stays_pending_until_settled_with_its_audit_row_and_checkpoint(
    tmp_path: Path,
) -> None:
    moment = datetime(2026, 11, 1, 12, tzinfo=UTC)
    db = tmp_path / "state.db"
    with StateStore.open(db) as store:
        store.begin_run("job-1", "run-1", "org:octo")
        intent = store.intend(
            "job-1",
            ("octo/app", 3),
            AlertResolution.USED_IN_TESTS,
            "thresher: test",
            run_id="run-1",
            listed_updated_at=moment,
            outcome_json='{"planned": true}',
        )
        store.intend(
            "job-2",
            ("octo/app", 4),
            AlertResolution.FALSE_POSITIVE,
            "thresher: not a secret",
            run_id="run-9",
            listed_updated_at=moment,
            outcome_json="{}",
        )
    with StateStore.open(db) as store:  # a killed run's intent survives it
        assert store.pending_intents("job-1") == [intent]
        assert intent.listed_updated_at == moment and intent.outcome == '{"planned": true}'
        applied = AppliedRecord(
            repo="octo/app",
            number=3,
            resolution=AlertResolution.USED_IN_TESTS,
            comment="thresher: test",
            run_id="run-1",
            applied_at=moment,
        )
        store.settle(intent, IntentEnd.APPLIED, '{"applied": true}', applied)
        assert store.pending_intents("job-1") == []
        assert len(store.pending_intents("job-2")) == 1  # another job's is its own
        assert store.audit() == [applied]
        assert store.done("job-1") == {("octo/app", 3): '{"applied": true}'}


def test_a_database_from_before_intents_gets_the_table_and_keeps_its_rows(
    tmp_path: Path,
) -> None:
    db = tmp_path / "state.db"
    with StateStore.open(db) as store:
        store.begin_run("job-1", "run-1", "org:octo")
    raw = sqlite3.connect(db)
    raw.execute("DROP TABLE intents")  # what a thresher before issue 19 wrote
    raw.commit()
    raw.close()
    with StateStore.open(db) as store:
        assert store.pending_intents("job-1") == []
        assert store.begin_run("job-1", "run-2", "org:octo").resumed


def test_another_applications_sqlite_file_is_left_alone(tmp_path: Path) -> None:
    db = tmp_path / "app.db"
    raw = sqlite3.connect(db)
    raw.execute("CREATE TABLE users (name TEXT)")
    raw.commit()
    raw.close()
    with pytest.raises(StateError, match="not a thresher state database") as caught:
        StateStore.open(db)
    assert str(db) in caught.value.message
    raw = sqlite3.connect(db)
    tables = raw.execute("SELECT name FROM sqlite_master WHERE type='table'").fetchall()
    raw.close()
    assert tables == [("users",)]


def test_a_damaged_database_is_a_clear_error(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    with StateStore.open(db) as store:
        for i in range(50):
            store.save_decision(f"fp{i}", "ctx", decision(), "run-1")
    data = bytearray(db.read_bytes())
    # Keep the 100-byte file header; overwrite the schema table on page 1.
    data[100:4096] = b"\xff" * (4096 - 100)
    db.write_bytes(bytes(data))
    with pytest.raises(StateError, match="corrupt") as caught, StateStore.open(db) as store:
        store.decision_for("fp1", "ctx")
    assert str(db) in caught.value.message
