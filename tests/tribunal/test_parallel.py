"""Offline decisions in worker processes: the same run as in one process, in order,
and nothing a worker learned about a secret left out of the report."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import pickle
from pathlib import Path

import pytest

from tests.scan.test_scan_e2e import make_demo
from tests.tokens import github_token, random_secret
from tests.tribunal.test_journal import _decision
from tests.tribunal.test_tribunal import FakeLLM, setup
from thresher.agents.workspace import Workspace
from thresher.config.settings import AgentName, Settings
from thresher.errors import ConfigError, ExitCode, ThresherError
from thresher.findings import Finding
from thresher.llm.testing import text_response
from thresher.redaction.detector import Detector
from thresher.redaction.redactor import Redactor
from thresher.reports import render_json
from thresher.scan.assess import is_public_word
from thresher.scan.outcome import ScanRequest
from thresher.scan.run import run_scan
from thresher.scoring.policy import Escalate
from thresher.tribunal.decisions import Decision
from thresher.tribunal.journal import dumped
from thresher.tribunal.parallel import (
    Decided,
    OfflineWorkerError,
    _Wire,
    decide_in_workers,
    offline_only,
    workers_for,
)
from thresher.tribunal.tribunal import Tribunal


def _run(root: Path, runs: Path, workers: int) -> tuple[list[dict], Path]:  # type: ignore[type-arg]
    request = ScanRequest(root=root, runs_dir=runs, escalate=Escalate.NEVER)
    outcome = run_scan(request, Settings(), environ={}, offline_workers=workers)
    # report.json is what --json writes: the CLI reuses the run's text
    report_json = (outcome.run_dir / "report.json").read_text()
    assert outcome.report_json == report_json == render_json(outcome.report)
    decisions = [d.model_dump(mode="json") for d in outcome.report.decisions]
    return decisions, outcome.run_dir


def _ids(path: Path, key: tuple[str, ...]) -> list[str]:
    ids = []
    for line in path.read_text().splitlines():
        record = json.loads(line)
        for part in key:
            record = record[part]
        ids.append(record)
    return ids


def test_workers_decide_what_one_process_decides_in_the_same_order(tmp_path: Path) -> None:
    root, secrets = make_demo(tmp_path)
    # A file with many findings: read once, by the one worker its findings go to.
    digests = "".join(
        f'CHECKSUM_{i} = "{hashlib.sha1(str(i).encode()).hexdigest()}"\n' for i in range(12)
    )
    (root / "tests/test_digests.py").write_text(digests)
    serial, serial_dir = _run(root, tmp_path / "serial", 0)
    forked, forked_dir = _run(root, tmp_path / "forked", 2)

    assert len(serial) > 12 and forked == serial
    for name, key in (("decisions.jsonl", ("finding", "id")), ("offline.jsonl", ("finding_id",))):
        assert _ids(forked_dir / name, key) == _ids(serial_dir / name, key)
        assert sorted(_ids(forked_dir / name, key)) == sorted(d["finding"]["id"] for d in serial)
    written = [(forked_dir / n).read_text() for n in ("report.json", "decisions.jsonl")]
    written.append((forked_dir / "offline.jsonl").read_text())
    for secret in secrets:
        assert all(secret not in text for text in written)


def test_findings_go_to_workers_only_when_no_model_can_take_part(tmp_path: Path) -> None:
    tribunal, _ = setup(tmp_path / "a", "app/settings.py", github_token(), None)
    assert offline_only(tribunal.models, Escalate.ALL)  # every agent is the heuristic
    assert workers_for(10) == 0  # a small run stays in this process
    assert workers_for(10, requested=2) == 2
    model = FakeLLM(lambda _: text_response("unused"))  # a remote model
    llm, _ = setup(tmp_path / "b", "app/settings.py", github_token(), {AgentName.ANALYSIS: model})
    assert not offline_only(llm.models, Escalate.UNCERTAIN)
    assert offline_only(llm.models, Escalate.NEVER)


class _Misconfigured(Tribunal):
    async def decide(self, finding: Finding, value: str | None) -> Decision:
        raise ConfigError("agents.analysis: unknown model", hint="fix thresher.toml")


class _Dies(Tribunal):
    async def decide(self, finding: Finding, value: str | None) -> Decision:
        os._exit(9)  # the worker process is killed mid-run


def _findings(finding: Finding, count: int) -> list[Finding]:
    return [finding.model_copy(update={"id": f"f-{i}"}) for i in range(count)]


@pytest.mark.parametrize(
    ("kind", "error", "code", "text"),
    [
        (_Misconfigured, ThresherError, ExitCode.USAGE, "agents.analysis: unknown model"),
        (_Dies, OfflineWorkerError, ExitCode.RUNTIME, "stopped before it sent"),
    ],
)
def test_a_worker_that_fails_stops_the_run_with_a_clear_error(
    tmp_path: Path, kind: type[Tribunal], error: type[ThresherError], code: ExitCode, text: str
) -> None:
    value = github_token()
    tribunal, finding = setup(tmp_path, "app/settings.py", value, None)
    broken = kind(tribunal.factory, tribunal.models, tribunal.options)
    received: list[Decided] = []
    with pytest.raises(error) as caught:
        decide_in_workers(
            broken,
            _findings(finding, 4),
            lambda _: value,
            received.append,
            workers=2,
            learn=lambda *_: None,
        )
    assert text in caught.value.message and caught.value.exit_code is code
    assert not received


def test_values_a_worker_learns_reach_the_parent(tmp_path: Path) -> None:
    """A value a worker's redactor detects in a file it reads is taught to the parent
    (which redacts the report with it, ``thresher.tribunal.journal``); the parent's own
    redactor learns nothing behind its back."""
    value = github_token()
    plain, finding = setup(tmp_path, "app/settings.py", value, None)
    hidden = github_token(seed=41)  # not a candidate: found when a worker reads the file
    settings = tmp_path / "repo" / "app/settings.py"
    settings.write_text(settings.read_text() + f'OTHER_TOKEN = "{hidden}"\n')
    # Not given the value either: the panel cannot tell without redacting that the value
    # is not on its line (``Redactor.hides``), so it reads the file redacted.
    redactor = Redactor([], detector=Detector([], is_public=is_public_word))
    factory = dataclasses.replace(
        plain.factory,
        redactor=redactor,
        workspace=Workspace(tmp_path / "repo", value_for=lambda _: value, redact=redactor.text),
    )
    tribunal = Tribunal(factory, plain.models, plain.options)
    learned: dict[str, str] = {}
    decisions = decide_in_workers(
        tribunal,
        _findings(finding, 3),
        lambda _: value,
        lambda done: None,
        workers=2,
        learn=learned.__setitem__,
    )
    assert [d.finding.id for d in decisions] == ["f-0", "f-1", "f-2"]
    assert hidden in learned and hidden not in learned[hidden]
    assert redactor.learned_since(1) == []


def _decided(text: str, redactor: Redactor) -> Decided:
    decision = _decision(7, text)
    redacted = redactor.model(decision)
    return Decided(decision, redacted, *dumped(redacted), ("{}",))


def test_a_decision_crosses_the_pipe_as_its_journal_line_and_reads_back_the_same() -> None:
    secret = random_secret(24, seed=5)
    redactor = Redactor([secret])
    plain = _decided("nothing secret here", redactor)
    assert plain.redacted is plain.decision  # redaction changed nothing: the line stands for both
    wire = _Wire.of(plain)
    assert wire.raw is None and wire.redacted is None
    back = pickle.loads(pickle.dumps(wire)).decided()
    assert back.decision == plain.decision and back.redacted is back.decision
    assert (back.line, back.exact, back.records) == (plain.line, True, ("{}",))

    # Redaction changed it: the parent still gets the decision as decided, and the copy.
    quoting = _decided(f"it quotes {secret}", redactor)
    back = pickle.loads(pickle.dumps(_Wire.of(quoting))).decided()
    assert back.decision == quoting.decision and secret in back.decision.rationale
    assert back.redacted == quoting.redacted and secret not in back.redacted.rationale
    assert secret not in back.line

    # A lone surrogate (a YAML escape can make one): the line is json.dumps' text, so the
    # copy crosses as a model.
    odd = _decided("an odd \ud800 character", redactor)
    assert not odd.exact
    back = pickle.loads(pickle.dumps(_Wire.of(odd))).decided()
    assert back.redacted == odd.redacted and back.decision == odd.decision
