"""The scorer's assessments made in a forked process (``scoring.beside``): the same
assessments and checks as in process, made there; the rest made here when it dies; a
run's decisions the same with it as without it."""

from __future__ import annotations

import logging
import os
import random
import signal
import string
import time
from pathlib import Path

import pytest

from thresher.config.settings import Settings
from thresher.scan.outcome import FailOn, ScanRequest
from thresher.scan.run import run_scan
from thresher.scoring.beside import AssessedBeside
from thresher.scoring.context import (
    ValueCounts,
    build_contexts,
    reads_of,
    scan_contexts,
    stream_contexts,
)
from thresher.scoring.lines import LineReader, ReadAhead
from thresher.scoring.model import Assessment, shipped_scorer
from thresher.scoring.policy import Escalate
from thresher.sources.scan import ScanOptions, ScanResult, scan
from thresher.tribunal.tribunal import Tribunal


def _word(rng: random.Random, size: int = 20) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(size))


def _tree(root: Path) -> Path:
    """Candidates of several kinds, generated here: deployable code, test code, a test
    function in a source file, a docstring, documentation, one value in three files
    (one of them a document), and key files that configuration names."""
    rng = random.Random(26)
    shared = _word(rng)
    files = {
        "app/settings.py": f'DB_PASSWORD = "{_word(rng)}"\nAPI_TOKEN = "{shared}"\n',
        "app/client.py": (
            f'def connect():\n    """Connect.\n\n    token = "{_word(rng)}"\n    """\n'
            f'    return "{shared}"\n\n\ndef test_connect():\n    secret = "{_word(rng)}"\n'
        ),
        "tests/test_settings.py": f'PASSWORD = "{_word(rng)}"\nTOKEN = "{shared}"\n',
        "docs/setup.md": f'Set `API_TOKEN = "{shared}"` and `password: "{_word(rng)}"`.\n',
        "deploy/values.yaml": f"password: {_word(rng)}\nsecret_key: {_word(rng, 32)}\n",
        "deploy/tls.conf": "tls { key_file: certs/server.pem }\n",
        "config/app.py": f'"""Settings."""\n\nTOKEN = "{shared}"\n',
    }
    for index in range(12):
        files[f"svc/mod{index}.py"] = f'SECRET_KEY = "{_word(rng, 24 + index)}"\n'
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text, encoding="utf-8")
    return root


def _in_process(root: Path, result: ScanResult) -> tuple[dict[str, Assessment], dict[str, object]]:
    contexts, checks = scan_contexts(result, root)
    scorer = shipped_scorer()
    return {k: scorer.assess(c) for k, c in contexts.items()}, dict(checks)


def _started(root: Path) -> AssessedBeside:
    started = AssessedBeside.start(root)
    if started is None:
        pytest.skip("this platform cannot fork, or has one core")
    return started


def test_the_process_makes_the_assessments_the_run_would_make(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _tree(tmp_path / "tree")
    beside = _started(root)  # forked before the patch below: it assesses for real
    result = scan(ScanOptions(root=root))
    assert len(result.findings) >= 15
    assessments, checks = _in_process(root, result)

    def here(*args: object) -> object:
        raise AssertionError("assessed in this process, not the forked one")

    monkeypatch.setattr("thresher.scoring.model.Scorer.assess", here)
    try:
        assert beside.request(result, Tribunal.order(result.findings), None)
        for finding_id, assessment in assessments.items():  # asked one at a time
            assert beside.assessments[finding_id] == assessment
            assert beside.checks[finding_id] == checks[finding_id]
        assert dict(beside.assessments) == assessments
        assert dict(beside.checks) == checks
        assert not beside.request(result, result.findings, None)  # one request only
    finally:
        process = beside._process
        beside.close()
    assert process is None or process.exitcode == 0  # every chunk read: it had ended


def test_what_a_dead_process_did_not_send_is_assessed_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    root = _tree(tmp_path / "tree")

    def stuck(*args: object) -> object:
        time.sleep(60)  # never answers: killed first
        raise AssertionError("not reached")

    monkeypatch.setattr("thresher.scoring.model.Scorer.assess", stuck)
    beside = _started(root)  # forked with the stuck scorer
    monkeypatch.undo()  # this process assesses for real
    result = scan(ScanOptions(root=root))
    assessments, checks = _in_process(root, result)
    assert beside.request(result, Tribunal.order(result.findings), None)
    process = beside._process
    assert process is not None and process.pid is not None
    os.kill(process.pid, signal.SIGKILL)
    process.join()
    with caplog.at_level(logging.WARNING, logger="thresher.scoring.beside"):
        assert dict(beside.assessments) == assessments
        assert dict(beside.checks) == checks
    assert "stopped after 0 of" in caplog.text and "assessing the rest here" in caplog.text
    beside.close()


def test_a_process_never_asked_ends_when_closed(tmp_path: Path) -> None:
    beside = _started(tmp_path)
    process = beside._process
    assert process is not None
    beside.close()
    assert not process.is_alive()
    assert process.exitcode == 0  # it was told and returned: not killed


def test_a_run_decides_the_same_with_the_process_as_without(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = _tree(tmp_path / "tree")
    monkeypatch.setattr("thresher.scan.assess.BESIDE_FROM", 1)  # a small tree pays too

    def decided(runs: str, beside: AssessedBeside | None) -> list[tuple[object, ...]]:
        request = ScanRequest(
            root=root,
            runs_dir=tmp_path / runs,
            escalate=Escalate.NEVER,
            fail_on=FailOn.NEVER,
            history_depth=0,
        )
        outcome = run_scan(request, Settings(), environ={}, beside=beside)
        return sorted(
            (
                d.finding.id,
                d.classification,
                d.verdict,
                d.assessment,
                d.validations,
                d.rationale,
            )
            for d in outcome.report.decisions
        )

    beside = _started(root)  # forked before the patch: it assesses for real

    def here(*args: object) -> object:
        raise AssertionError("assessed in this process, not the forked one")

    monkeypatch.setattr("thresher.scoring.model.Scorer.assess", here)
    with_it = decided("with", beside)
    assert beside._asked and beside._process is None  # asked, and ended by the run
    monkeypatch.undo()  # this process assesses the run without it
    assert with_it == decided("without", None)
    assert len(with_it) >= 15


class _Counting(LineReader):
    """A reader that notes each file it reads."""

    def __init__(self, root: Path, scanned: dict[tuple[str, int], str]) -> None:
        super().__init__(root, scanned)
        self.read: list[str] = []

    def _read(self, path: str) -> tuple[str, ...]:
        self.read.append(path)
        return super()._read(path)


def test_reading_ahead_reads_each_file_once_and_answers_as_the_reader(tmp_path: Path) -> None:
    """The process reads the findings' lines ahead, by path (``reads_of``), then builds
    their contexts in the order of decisions: every answer is the reader's, and no file
    is read again, whatever the order (``reads_of`` holds every line a context reads)."""
    root = _tree(tmp_path / "tree")
    result = scan(ScanOptions(root=root))
    assert any(len(f.locations) > 2 for f in result.findings)  # other locations are read
    counting = _Counting(root, dict(result.line_text))
    read = ReadAhead(counting)
    read.ahead(reads_of(result.findings))
    assert sorted(counting.read) == sorted(set(counting.read))  # each file once
    counting.read.clear()
    order = list(result.findings)
    random.Random(7).shuffle(order)
    built = stream_contexts(
        order,
        result.vault.get,
        ValueCounts.of(result.candidates),
        read.line,
        test_block_of=read.in_test_block,
        docstring_of=read.in_docstring,
    )
    ahead = {f.id: c for f, c, _ in built}
    assert counting.read == []  # nothing read after: the reads held every line asked
    reader = LineReader(root, result.line_text)
    expected = build_contexts(
        result.findings,
        result.vault.get,
        result.candidates,
        reader.line,
        test_block_of=reader.in_test_block,
        docstring_of=reader.in_docstring,
    )
    assert ahead == expected
