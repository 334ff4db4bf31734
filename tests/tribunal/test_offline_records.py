"""``record_line`` writes the ``offline.jsonl`` line the record's models would: the same
bytes as ``Redactor.model(OfflineRecord(...)).model_dump_json(exclude_defaults=True)``,
redacted the same way, for calls with and without errors, odd text, and skipped skills."""

from __future__ import annotations

import random

import pytest

from tests.tokens import random_secret
from thresher.agents.toolspecs import ToolName
from thresher.config.settings import AgentName
from thresher.redaction.detector import Detector
from thresher.redaction.redactor import Redactor
from thresher.skills.compliance import Compliance
from thresher.tribunal.offline_calls import _Call, _Ledger
from thresher.tribunal.offline_records import OfflineAgentRecord, OfflineRecord, record_line

ODD = ("plain", "tab\there", 'quote " and \\ slash', "Zürich … 東京", "ctl \x01\x1f\x7f", "")


def _ledger(rng: random.Random, secret: str) -> _Ledger:
    ledger = _Ledger()
    for name in rng.sample(["finding-intake", "code-context", "private-keys"], rng.randint(0, 3)):
        ledger.skill(name)
    for _ in range(rng.randint(0, 4)):
        text = rng.choice([*ODD, secret, f"config/{secret}.yml"])
        arguments = rng.choice(
            [
                {"finding_id": "s-0123abcd"},
                {"path": text, "start_line": rng.randint(1, 90), "end_line": 100},
                {"finding_id": "s-1", "max_count": 10},
                {"nested": [text, {"k": text}], "n": 1.5, "flag": True, "none": None},
            ]
        )
        error = rng.choice([None, f"{text}: no such file or directory"])
        ledger.record(rng.choice(list(ToolName)), arguments, _Call(None, {}, error))
    return ledger


@pytest.mark.parametrize("seed", range(30))
def test_the_line_is_the_one_the_models_write(seed: int) -> None:
    rng = random.Random(seed)
    secret = random_secret(24, seed=seed)
    agents = []
    for agent in rng.sample(list(AgentName), rng.randint(1, 3)):
        skipped = tuple(rng.sample(["history-analysis", "private-keys"], rng.randint(0, 2)))
        score = rng.choice([1, 1.0, 0.5, 2 / 3, 0.0])
        compliance = Compliance(applicable=(), loaded=(), skipped=skipped, score=score)
        agents.append((agent, _ledger(rng, secret), compliance))
    milliseconds = round(rng.uniform(0, 50), 2)

    models = Redactor([secret], detector=Detector([]))
    record = OfflineRecord(
        finding_id="s-0123abcd",
        model="heuristic:default",
        agents=tuple(OfflineAgentRecord.of(a, ledger, c) for a, ledger, c in agents),
        milliseconds=milliseconds,
    )
    expected = models.model(record).model_dump_json(exclude_defaults=True)

    direct = Redactor([secret], detector=Detector([]))
    line = record_line("s-0123abcd", "heuristic:default", agents, milliseconds, direct)

    assert line == expected
    assert secret not in line
    assert OfflineRecord.model_validate_json(line).finding_id == "s-0123abcd"


def test_equal_arguments_are_redacted_again_once_the_redactor_learned_a_value() -> None:
    """The first redaction of these arguments learns the value its keyword assigns,
    which stands alone further on: the next call's equal arguments are redacted again,
    as the models' walk redacts every one of them, so no copy keeps the value."""
    text = "x PASSWORD=hunter2horse2 then hunter2horse2 alone"
    ledger = _Ledger()
    for tool in (ToolName.READ_FILE, ToolName.READ_FILE):
        ledger.record(tool, {"path": text, "start_line": 1}, _Call(None, {}, None))
    compliance = Compliance(applicable=(), loaded=(), skipped=(), score=1.0)
    agents = [(AgentName.ANALYSIS, ledger, compliance)]

    models = Redactor(detector=Detector([]))
    record = OfflineRecord(
        finding_id="s-1",
        model="heuristic:default",
        agents=tuple(OfflineAgentRecord.of(a, led, c) for a, led, c in agents),
        milliseconds=1.0,
    )
    expected = models.model(record).model_dump_json(exclude_defaults=True)
    direct = Redactor(detector=Detector([]))
    line = record_line("s-1", "heuristic:default", agents, 1.0, direct)

    assert line == expected
    second = OfflineRecord.model_validate_json(line).agents[0].calls[1]
    assert "hunter2horse2" not in second.arguments["path"]
