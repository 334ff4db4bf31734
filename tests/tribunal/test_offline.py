"""The offline path: the heuristic panel computed directly, one record instead of three
transcripts, and the same report the heuristic sessions gave."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tests.heuristic.test_heuristic import repo_with
from tests.tokens import github_token, random_secret
from tests.tribunal.test_tribunal import SCORER, FakeLLM, agent, assessment
from thresher.agents.sessions import SessionFactory
from thresher.agents.workspace import Workspace
from thresher.config.settings import AgentName, Settings
from thresher.findings import Finding
from thresher.heuristic.model import HeuristicModel
from thresher.redaction.redactor import Redactor, redact_value
from thresher.scoring.model import Assessment
from thresher.scoring.policy import Escalate
from thresher.tribunal.decisions import DecidedBy
from thresher.tribunal.tribunal import Tribunal, TribunalOptions
from thresher.validators import ValidatorRegistry
from thresher.validators.base import CheckKind, ValidationResult, Validator


class CountingLiveValidator(Validator):
    """A live validator that counts how often the provider would be asked."""

    name = "counting-live"
    description = "says every value is live, and counts the calls"

    def __init__(self) -> None:
        self.calls = 0

    def check(self, value: str, finding: Finding) -> list[ValidationResult]:
        self.calls += 1
        return [self.unknown(CheckKind.LIVE, "the provider did not answer")]


def build(
    tmp_path: Path,
    path: str,
    value: str,
    *,
    offline: Assessment | None = None,
    llm: dict[AgentName, Any] | None = None,
    escalate: Escalate = Escalate.UNCERTAIN,
    validators: ValidatorRegistry | None = None,
    line: int = 12,
    validated: dict[str, tuple[ValidationResult, ...]] | None = None,
) -> tuple[Tribunal, Finding, Path]:
    root = repo_with(tmp_path, "app/settings.py", value)
    if path != "app/settings.py":
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / "app/settings.py").rename(root / path)
    finding = Finding.model_validate(
        {
            "id": "f-1",
            "rule_id": "GitHub Token",
            "fingerprint": "sha256:x",
            "redacted": redact_value(value),
            "locations": [{"path": path, "line": line}],
        }
    )
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    factory = SessionFactory(
        settings=Settings(),
        redactor=Redactor([value]),
        workspace=Workspace(root, value_for=lambda _: value),
        transcripts_dir=run_dir / "transcripts",
        **({"validators": validators} if validators is not None else {}),
    )
    models: dict[AgentName, Any] = llm or {}
    for name in AgentName:
        models.setdefault(name, HeuristicModel())
    tribunal = Tribunal(
        factory,
        models,
        TribunalOptions(escalate=escalate),
        assessments={"f-1": offline} if offline is not None else None,
        scorer=SCORER,
        offline_record=run_dir / "offline.jsonl",
        validated=validated,
    )
    return tribunal, finding, run_dir


CASES = {
    "live-shaped token in app code": ("app/settings.py", github_token(seed=21), None, 12),
    "checksum failure in test code": (
        "tests/fixtures/tokens.py",
        github_token(seed=22, valid_checksum=False),
        None,
        12,
    ),
    "scorer says real": ("src/conf.py", random_secret(seed=23), assessment(0.97), 12),
    "scorer says test": ("src/conf.py", random_secret(seed=24), assessment(0.02), 12),
    "line past the end of the file": ("app/settings.py", github_token(seed=25), None, 400),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_offline_panel_gives_what_the_heuristic_sessions_gave(
    tmp_path: Path, case: str
) -> None:
    """Same evidence, same ledger ids, same report, challenge, judgement, checks and
    compliance as the three sessions the heuristic used to be replayed through."""
    path, value, offline, line = CASES[case]
    tribunal, finding, _ = build(tmp_path, path, value, offline=offline, line=line)
    validations = tuple(tribunal.factory.validators.validate(value, finding))
    call, _ = tribunal.offline(finding, validations)
    context = (tribunal.assessments.get(finding.id), call)
    direct = tribunal.offline_panel.decide(finding, value, validations, context)
    replayed = asyncio.run(
        tribunal.session_panel(
            finding, value, tribunal.heuristic_models(), "heuristic", analyses=1, offline=context
        )
    )
    assert direct.entries == replayed.entries
    assert direct.judge == replayed.judge and direct.judge is not None
    assert direct.judge_model == replayed.judge_model
    assert direct.errors == replayed.errors == []


def test_offline_triage_writes_one_record_per_finding_and_no_transcripts(
    tmp_path: Path,
) -> None:
    value = github_token(seed=31)
    tribunal, finding, run_dir = build(tmp_path, "app/settings.py", value)
    other = finding.model_copy(update={"id": "f-2"})
    decisions = asyncio.run(tribunal.decide_all([finding, other], lambda _: value))

    assert [d.decided_by for d in decisions] == [DecidedBy.HEURISTIC] * 2
    assert all(d.verdict.value == "TRUE_POSITIVE" and not d.errors for d in decisions)
    assert not (run_dir / "transcripts").exists()
    text = (run_dir / "offline.jsonl").read_text()
    assert value not in text
    records = [json.loads(line) for line in text.splitlines()]
    assert sorted(r["finding_id"] for r in records) == ["f-1", "f-2"]
    for record, decision in zip(
        sorted(records, key=lambda r: r["finding_id"]), decisions, strict=True
    ):
        assert [a["agent"] for a in record["agents"]] == ["analysis", "challenger", "judge"]
        analysis = record["agents"][0]
        tools = [c["tool"] for c in analysis["calls"]]
        assert tools == ["get_finding", "read_file", "git_log", "validate_secret"]
        assert all(c["ok"] for c in analysis["calls"])
        # The skills take the first ledger ids, the evidence calls the next ones: every
        # id the report cites names a call in the record.
        skills = len(analysis["skills"])
        assert analysis["calls"][0]["id"] == f"T{skills + 1}"
        cited = {i for item in decision.entries[0].report.evidence for i in item.ledger_ids}
        assert cited and cited <= {c["id"] for c in analysis["calls"]}
        assert analysis["compliance"] == 1.0
        assert tuple(analysis["skills"]) == decision.entries[0].compliance.loaded


def test_a_live_validator_is_asked_once_per_finding_offline(tmp_path: Path) -> None:
    """The sessions used to validate three times (tribunal, analysis, challenger)."""
    live = CountingLiveValidator()
    value = github_token(seed=41)
    tribunal, finding, _ = build(
        tmp_path, "app/settings.py", value, validators=ValidatorRegistry([live])
    )
    decision = asyncio.run(tribunal.decide(finding, value))
    assert live.calls == 1
    assert [v.validator for v in decision.validations] == ["counting-live"]
    assert decision.entries[0].challenge is not None
    assert "counting-live: unknown" in decision.entries[0].challenge.verification_result


def test_the_assessments_validations_are_reused_unless_live_checks_may_run(
    tmp_path: Path,
) -> None:
    """The scorer's assessment ran the offline validators on every value already: a run
    without live checks takes their results instead of validating each value again."""
    value = github_token(seed=42)
    tribunal, finding, _ = build(tmp_path / "offline", "app/settings.py", value)
    done = tuple(tribunal.factory.validators.validate(value, finding))
    assert done  # the offline validators have something to say about a GitHub token
    marked = tuple(r.model_copy(update={"detail": f"{r.detail} (assessed)"}) for r in done)
    tribunal, finding, _ = build(
        tmp_path / "reused", "app/settings.py", value, validated={"f-1": marked}
    )
    assert asyncio.run(tribunal.decide(finding, value)).validations == marked

    live = CountingLiveValidator()
    tribunal, finding, _ = build(
        tmp_path / "live",
        "app/settings.py",
        value,
        validators=ValidatorRegistry([live]),
        validated={"f-1": marked},
    )
    decision = asyncio.run(tribunal.decide(finding, value))
    assert live.calls == 1 and [v.validator for v in decision.validations] == ["counting-live"]


def test_an_escalated_finding_keeps_its_llm_sessions_and_transcripts(tmp_path: Path) -> None:
    value = github_token(seed=51)
    llm = {a: FakeLLM(agent("real")) for a in AgentName}
    tribunal, finding, run_dir = build(
        tmp_path, "app/settings.py", value, llm=llm, escalate=Escalate.ALL
    )
    decision = asyncio.run(tribunal.decide(finding, value))

    assert decision.escalated and decision.decided_by is DecidedBy.TRIBUNAL
    names = sorted(p.name for p in (run_dir / "transcripts").glob("*.jsonl"))
    assert names == [
        "f-1-llm-analysis-0.jsonl",
        "f-1-llm-challenger-0.jsonl",
        "f-1-llm-judge-0.jsonl",
    ]
    records = (run_dir / "offline.jsonl").read_text().splitlines()
    assert [json.loads(r)["finding_id"] for r in records] == ["f-1"]


def test_without_a_record_file_the_offline_panel_writes_nothing(tmp_path: Path) -> None:
    value = github_token(seed=61)
    root = repo_with(tmp_path, "app/settings.py", value)
    factory = SessionFactory(
        settings=Settings(),
        redactor=Redactor([value]),
        workspace=Workspace(root, value_for=lambda _: value),
    )
    tribunal = Tribunal(
        factory, dict.fromkeys(AgentName, HeuristicModel()), TribunalOptions(), scorer=SCORER
    )
    finding = Finding.model_validate(
        {
            "id": "f-1",
            "rule_id": "GitHub Token",
            "fingerprint": "sha256:x",
            "redacted": redact_value(value),
            "locations": [{"path": "app/settings.py", "line": 12}],
        }
    )
    decision = asyncio.run(tribunal.decide(finding, value))
    assert decision.verdict.value == "TRUE_POSITIVE"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["repo"]


def _agent_file(tmp_path: Path, name: str, tools: list[str]) -> Path:
    path = tmp_path / f"{name}.agent.md"
    listed = "\n".join(f"  - {t}" for t in tools)
    path.write_text(
        f"---\nname: {name}\ndescription: a narrower {name}\ntools:\n{listed}\n"
        f"model: heuristic:default\n---\n\nTriage the finding.\n"
    )
    return path


def test_agents_a_user_narrowed_get_the_same_panel_offline(tmp_path: Path) -> None:
    """The offline panel makes only the calls the user's agent files allow, as the
    sessions did: an analysis without history or validators, a challenger without skills."""
    value = github_token(seed=71)
    tribunal, finding, _ = build(tmp_path, "app/settings.py", value)
    settings = Settings.model_validate(
        {
            "agents": {
                "analysis": {
                    "definition": _agent_file(
                        tmp_path, "analysis", ["get_finding", "read_file", "skill", "submit_report"]
                    )
                },
                "challenger": {
                    "definition": _agent_file(
                        tmp_path, "challenger", ["get_finding", "git_log", "submit_challenge"]
                    )
                },
            }
        }
    )
    tribunal.factory.settings = settings
    validations = tuple(tribunal.factory.validators.validate(value, finding))
    call, _ = tribunal.offline(finding, validations)
    context = (tribunal.assessments.get(finding.id), call)
    direct = tribunal.offline_panel.decide(finding, value, validations, context)
    replayed = asyncio.run(
        tribunal.session_panel(
            finding, value, tribunal.heuristic_models(), "heuristic", analyses=1, offline=context
        )
    )
    assert direct.entries == replayed.entries and direct.judge == replayed.judge
    entry = direct.entries[0]
    assert entry.challenge is not None and not entry.challenge.verification_reproduced
    tools = [c["tool"] for c in _records(tmp_path)[0]["agents"][0]["calls"]]
    assert tools == ["get_finding", "read_file"]
    challenger = _records(tmp_path)[0]["agents"][1]
    assert challenger["skills"] == [] and challenger["compliance"] < 1.0


def _records(tmp_path: Path) -> list[dict[str, Any]]:
    text = (tmp_path / "run" / "offline.jsonl").read_text()
    return [json.loads(line) for line in text.splitlines()]


def test_an_unwritable_record_fails_the_finding_closed(tmp_path: Path) -> None:
    """No silent loss of the record: the finding is INCONCLUSIVE (assumed real) with a
    typed error naming the file, and the other findings are still decided."""
    value = github_token(seed=91)
    tribunal, finding, run_dir = build(tmp_path, "app/settings.py", value)
    (run_dir / "offline.jsonl").mkdir()  # a directory where the record file should be
    decisions = asyncio.run(tribunal.decide_all([finding], lambda _: value))
    decision = decisions[0]
    assert decision.verdict.value == "INCONCLUSIVE" and decision.classification.value == "real"
    assert [e.error for e in decision.errors] == ["OfflineRecordError"]
    assert "offline.jsonl" in decision.errors[0].message


def test_a_file_with_many_findings_is_read_once_with_the_same_reports(tmp_path: Path) -> None:
    """Findings sharing a file take their lines from one shared read; each report is still
    what its sessions gave, a line past the end included."""
    from tests.heuristic.test_heuristic import git

    root = tmp_path / "repo"
    (root / "app").mkdir(parents=True)
    values = {f"f-{i}": github_token(seed=100 + i) for i in range(4)}
    lines = [f"# filler {i}" for i in range(1, 60)]
    where = {"f-0": 5, "f-1": 15, "f-2": 40, "f-3": 200}  # f-3: past the end of the file
    for fid, line in where.items():
        if line <= len(lines):
            lines[line - 1] = f'TOKEN_{fid[-1]} = "{values[fid]}"'
    (root / "app" / "keys.py").write_text("\n".join(lines) + "\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "keys")
    findings = [
        Finding.model_validate(
            {
                "id": fid,
                "rule_id": "GitHub Token",
                "fingerprint": f"sha256:{fid}",
                "redacted": redact_value(values[fid]),
                "locations": [{"path": "app/keys.py", "line": line}],
            }
        )
        for fid, line in where.items()
    ]
    factory = SessionFactory(
        settings=Settings(),
        redactor=Redactor(values.values()),
        workspace=Workspace(root, value_for=values.get),
    )
    tribunal = Tribunal(
        factory, dict.fromkeys(AgentName, HeuristicModel()), TribunalOptions(), scorer=SCORER
    )
    decisions = asyncio.run(tribunal.decide_all(findings, values.get))
    assert tribunal.offline_panel.shared.lines("app/keys.py") is not None  # read once
    for finding, decision in zip(findings, decisions, strict=True):
        value = values[finding.id]
        validations = tuple(factory.validators.validate(value, finding))
        call, _ = tribunal.offline(finding, validations)
        replayed = asyncio.run(
            tribunal.session_panel(
                finding, value, tribunal.heuristic_models(), "heuristic", analyses=1,
                offline=(None, call),
            )
        )  # fmt: skip
        assert decision.entries == tuple(replayed.entries), finding.id
        assert decision.judge == replayed.judge
