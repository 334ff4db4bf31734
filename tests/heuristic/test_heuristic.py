"""The heuristic model plays all three roles through the real loop, offline."""

from __future__ import annotations

import asyncio
import os
import subprocess
from pathlib import Path
from typing import Any

from tests.tokens import github_token
from thresher.agents.sessions import SessionFactory
from thresher.agents.workspace import Workspace
from thresher.config.settings import AgentName, Settings
from thresher.findings import Finding
from thresher.findings.results import AnalysisReport, ChallengeResult, JudgeResult
from thresher.heuristic.model import HeuristicModel
from thresher.redaction.redactor import Redactor, redact_value


def git(root: Path, *args: str) -> None:
    """Commits with fixed dates, so the same content gives the same commit ids."""
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": "2024-01-01T00:00:00Z",
        "GIT_COMMITTER_DATE": "2024-01-01T00:00:00Z",
    }
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=root,
        check=True,
        capture_output=True,
        env=env,
    )


def repo_with(tmp_path: Path, path: str, value: str) -> Path:
    root = tmp_path / "repo"
    (root / Path(path).parent).mkdir(parents=True)
    lines = [f"# line {i}" for i in range(1, 12)] + [f'TOKEN = "{value}"', "print(TOKEN)"]
    (root / path).write_text("\n".join(lines) + "\n")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "add settings")
    return root


def finding_at(path: str, value: str) -> Finding:
    return Finding.model_validate(
        {
            "id": "f-1",
            "rule_id": "GitHub Token",
            "fingerprint": "sha256:x",
            "redacted": redact_value(value),
            "locations": [{"path": path, "line": 12}],
        }
    )


def tribunal(tmp_path: Path, path: str, value: str) -> dict[str, Any]:
    root = repo_with(tmp_path, path, value)
    finding = finding_at(path, value)
    factory = SessionFactory(
        settings=Settings(),
        redactor=Redactor([value]),
        transcripts_dir=tmp_path / "runs",
        workspace=Workspace(root, value_for=lambda fid: value if fid == finding.id else None),
    )
    model = HeuristicModel()
    analysis = asyncio.run(factory.build(AgentName.ANALYSIS, model, finding, value).run())
    ledger = [e.model_dump(mode="json") for e in analysis.ledger.entries]
    challenge = asyncio.run(
        factory.build(
            AgentName.CHALLENGER, model, finding, value, report=analysis.result, ledger=ledger
        ).run()
    )
    entries = [
        {
            "index": 0,
            "report": analysis.result.model_dump(mode="json"),
            "compliance": analysis.compliance.model_dump(mode="json"),
            "checks": "all passed",
            "checks_passed": True,
            "challenge": challenge.result.model_dump(mode="json"),
        }
    ]
    judge = asyncio.run(
        factory.build(AgentName.JUDGE, model, finding, value, judge_entries=entries).run()
    )
    return {"analysis": analysis, "challenge": challenge, "judge": judge, "runs": tmp_path / "runs"}


def test_all_three_roles_produce_validated_results_with_full_compliance(tmp_path: Path) -> None:
    value = github_token()
    out = tribunal(tmp_path, "app/settings.py", value)
    analysis, challenge, judge = out["analysis"], out["challenge"], out["judge"]
    assert isinstance(analysis.result, AnalysisReport)
    assert isinstance(challenge.result, ChallengeResult)
    assert isinstance(judge.result, JudgeResult)
    for outcome in (analysis, challenge, judge):
        assert outcome.compliance.score == 1.0, outcome.compliance
    assert "github-tokens" in analysis.compliance.loaded
    tools = [e.tool for e in analysis.ledger.entries]
    for tool in (
        "skill",
        "get_finding",
        "read_file",
        "git_log",
        "validate_secret",
        "submit_report",
    ):
        assert tool in tools
    assert analysis.result.classification.value == "real"
    assert challenge.result.outcome.value == "CONFIRMED"
    assert judge.result.winner_index == 0
    assert judge.result.final_verdict.value == "TRUE_POSITIVE"
    cited = {i for item in analysis.result.evidence for i in item.ledger_ids}
    assert cited and cited <= analysis.ledger.ids()
    history = next(e for e in analysis.ledger.entries if e.tool == "git_log")
    assert history.data["commits"][0]["change"] == "added"


def test_checksum_failure_in_test_code_is_not_real(tmp_path: Path) -> None:
    value = github_token(valid_checksum=False)
    out = tribunal(tmp_path, "tests/fixtures/tokens.py", value)
    assert out["analysis"].result.classification.value == "test"
    assert out["judge"].result.final_verdict.value == "FALSE_POSITIVE"


def test_heuristic_sessions_are_deterministic(tmp_path: Path) -> None:
    value = github_token(seed=3)
    first = tribunal(tmp_path / "a", "src/conf.py", value)
    second = tribunal(tmp_path / "b", "src/conf.py", value)
    assert first["analysis"].result == second["analysis"].result
    assert [e.tool for e in first["analysis"].ledger.entries] == [
        e.tool for e in second["analysis"].ledger.entries
    ]


def test_no_raw_value_in_transcripts(tmp_path: Path) -> None:
    value = github_token(seed=5)
    out = tribunal(tmp_path, "app/settings.py", value)
    transcripts = list(out["runs"].glob("*.jsonl"))
    assert len(transcripts) == 3
    for path in transcripts:
        assert value not in path.read_text()
    for key in ("analysis", "challenge", "judge"):
        assert value not in repr(out[key].messages)


def test_e2e_test_directories_are_test_scope(tmp_path: Path) -> None:
    from thresher.heuristic.secret_rules import in_test_scope

    assert in_test_scope("cypress/e2e/login.cy.ts") and in_test_scope("src/E2E/setup.ts")
    assert not in_test_scope("app/settings.py") and not in_test_scope("config/latest.yml")
    value = github_token(seed=7)
    out = tribunal(tmp_path, "cypress/e2e/login_config.py", value)
    assert out["analysis"].result.classification.value == "test"


def test_a_wiki_finding_is_not_read_from_the_workspace_under_its_page_path(
    tmp_path: Path,
) -> None:
    """The tree holds a file named like the wiki page: reading it would be the wrong text."""
    value = github_token(seed=91)
    root = repo_with(tmp_path, "Deploy.md", value)
    finding = Finding.model_validate(
        {
            "id": "f-1",
            "rule_id": "github_personal_access_token",
            "fingerprint": "sha256:x",
            "redacted": redact_value(value),
            "locations": [
                {
                    "kind": "wiki",
                    "path": "Deploy.md",
                    "line": 12,
                    "commit": "d" * 40,
                    "url": "https://github.com/octo/app/wiki/Deploy",
                }
            ],
            "source": {
                "type": "github-alert",
                "repo": "octo/app",
                "number": 4,
                "url": "https://api.github.com/repos/octo/app/secret-scanning/alerts/4",
                "state": "open",
            },
        }
    )
    factory = SessionFactory(
        settings=Settings(),
        redactor=Redactor([value]),
        transcripts_dir=tmp_path / "runs",
        workspace=Workspace(root, value_for=lambda fid: value if fid == finding.id else None),
    )
    assert factory.line_of(finding) is None
    analysis = asyncio.run(
        factory.build(AgentName.ANALYSIS, HeuristicModel(), finding, value).run()
    )
    tools = [e.tool for e in analysis.ledger.entries]
    assert "get_finding" in tools and "submit_report" in tools
    assert "read_file" not in tools
