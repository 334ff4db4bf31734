"""``thresher agents`` through typer's test runner."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from typer.testing import Result

Cli = Callable[..., Result]

FINDING = {
    "id": "f-9",
    "rule_id": "Slack Token",
    "fingerprint": "sha256:00",
    "redacted": "xoxb-…abc (56 chars)",
    "locations": [{"path": "bot/config.py", "line": 12}],
}


def test_list(cli: Cli) -> None:
    result = cli("--no-color", "agents", "list")
    assert result.exit_code == 0
    for name in ("analysis", "challenger", "judge", "heuristic:default"):
        assert name in result.stdout


def test_show(cli: Cli) -> None:
    result = cli("agents", "show", "challenger")
    assert result.exit_code == 0
    assert "tools: " in result.stdout and "submit_challenge" in result.stdout
    assert "model: heuristic:default" in result.stdout


def test_render_prints_every_part_and_sends_nothing(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "f.json").write_text(json.dumps(FINDING))
    result = cli("agents", "render", "analysis", "--finding", "f.json")
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    for part in (
        "=== system prompt ===",
        "=== task prompt",
        "<available_skills>",
        "=== tools ===",
        "- submit_report:",
        "- `slack-tokens`",
        "not sent",
    ):
        assert part in out


def test_render_json_for_judge_with_a_report(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "f.json").write_text(json.dumps(FINDING))
    report = {
        "classification": "test",
        "verdict": "FALSE_POSITIVE",
        "confidence_factors": dict.fromkeys(
            (
                "recency",
                "directness",
                "completeness",
                "source_reliability",
                "verification_confidence",
                "test_results",
                "findings_review",
            ),
            6,
        ),
        "confidence_score": 6.0,
        "confidence_label": "medium",
        "risk_level": "low",
        "key_finding": "Used only by a unit test fixture.",
    }
    (tmp_path / "r.json").write_text(json.dumps(report))
    result = cli("agents", "render", "judge", "--finding", "f.json", "--report", "r.json", "--json")
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["agent"] == "judge"
    assert "Used only by a unit test fixture." in data["task_prompt"]
    assert [t["name"] for t in data["tools"]][-1] == "submit_judgement"


def test_render_bad_finding_names_the_field(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "f.json").write_text(json.dumps({**FINDING, "id": ""}))
    result = cli("agents", "render", "analysis", "--finding", "f.json")
    assert result.exit_code == 2
    assert "f.json: field 'id'" in result.stderr


def test_bad_agent_file_from_config_names_the_file(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "my.agent.md").write_text("---\nname: judge\nfoo: 1\n---\nHi\n")
    (tmp_path / "thresher.toml").write_text('[agents.judge]\ndefinition = "my.agent.md"\n')
    result = cli("agents", "show", "judge")
    assert result.exit_code == 2
    assert f"{tmp_path / 'my.agent.md'}: unknown key(s): foo" in result.stderr
