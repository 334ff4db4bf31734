"""``thresher scan`` end to end: analysis on OpenAI, challenger on Anthropic, judge on
Gemini (loopback fakes), JSON + SARIF + Markdown outputs, compliance, exit code, and no
raw secret anywhere."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest
from typer.testing import Result

from tests.agent_emulator import emulate
from tests.fakes.servers import AnthropicFake, GeminiFake, OpenAIFake
from tests.scan.panel import operator_config, panel_config

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT.parent / "shared" / "schemas" / "sarif-schema-2.1.0.json"
Cli = Callable[..., Result]


pytestmark = pytest.mark.slow


def make_demo(tmp_path: Path, seed: int | None = None) -> tuple[Path, list[str]]:
    """The demo workspace; with ``seed``, the same secrets every time."""
    demo = tmp_path / "demo"
    seeded = ["--seed", str(seed)] if seed is not None else []
    subprocess.run(
        [sys.executable, str(ROOT / "examples" / "generate.py"), str(demo), *seeded],
        check=True,
        capture_output=True,
    )
    secrets: list[str] = []
    for path in (demo / "app").glob("*.py"):
        secrets += re.findall(r'"((?:ghp_|xoxb-|sk_live_)[^"]+)"', path.read_text())
    secrets += re.findall(
        r'"(ghp_[^"]+)"', (demo / "tests/fixtures/test_github_client.py").read_text()
    )
    assert len(secrets) == 4
    return demo, secrets


@pytest.fixture
def providers(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    openai_server: OpenAIFake,
    anthropic_server: AnthropicFake,
    gemini_server: GeminiFake,
) -> list:  # type: ignore[type-arg]
    operator_config(
        tmp_path, monkeypatch, panel_config(openai_server, anthropic_server, gemini_server)
    )
    for server in (openai_server, anthropic_server, gemini_server):
        emulate(server)
    return [openai_server, anthropic_server, gemini_server]


def test_scan_with_three_providers(cli: Cli, tmp_path: Path, providers: list) -> None:  # type: ignore[type-arg]
    demo, secrets = make_demo(tmp_path)
    out = tmp_path / "out"
    result = cli(
        "scan",
        "--root",
        str(demo),
        "--escalate",
        "all",
        "--json",
        str(out / "report.json"),
        "--sarif",
        str(out / "report.sarif"),
        "--markdown",
        str(out / "report.md"),
    )
    assert result.exit_code == 1, result.stderr  # real secrets at --fail-on real
    report = json.loads((out / "report.json").read_text())
    assert report["models"] == {
        "analysis": "openai:gpt-4.1",
        "challenger": "anthropic:claude-sonnet-4-5",
        "judge": "gemini:gemini-2.5-pro",
    }
    decisions = report["decisions"]
    assert decisions and all(d["escalated"] for d in decisions)
    for decision in decisions:
        entry = decision["entries"][0]
        assert entry["model"] == "openai:gpt-4.1"
        assert entry["challenger_model"] == "anthropic:claude-sonnet-4-5"
        assert decision["judge_model"] == "gemini:gemini-2.5-pro"
        assert entry["compliance"]["score"] == 1.0
        assert entry["challenge"]["outcome"] == "CONFIRMED"
    assert {d["decided_by"] for d in decisions} <= {"tribunal", "guardrail"}
    assert report["usage"]["requests"] >= 6 * len(decisions)
    # The test fixture's token fails its checksum: the guardrail keeps it from 'real'.
    fixture = next(
        d for d in decisions if d["finding"]["locations"][0]["path"].startswith("tests/")
    )
    assert fixture["decided_by"] == "guardrail" and fixture["verdict"] == "FALSE_POSITIVE"

    sarif = json.loads((out / "report.sarif").read_text())
    if SCHEMA.is_file():
        jsonschema.Draft4Validator(json.loads(SCHEMA.read_text())).validate(sarif)
    shown = {
        r["partialFingerprints"]["primaryLocationLineHash"] for r in sarif["runs"][0]["results"]
    }
    positives = [d for d in decisions if d["verdict"] != "FALSE_POSITIVE"]
    assert len(shown) == len(positives)
    markdown = (out / "report.md").read_text()
    assert markdown.startswith("<!-- thresher:summary -->")

    artifacts = [(out / name).read_text() for name in ("report.json", "report.sarif", "report.md")]
    artifacts += [p.read_text() for p in (tmp_path / ".thresher").rglob("*") if p.is_file()]
    artifacts += [r.body.decode() for server in providers for r in server.requests]
    artifacts += [result.stdout, result.stderr]
    assert len(list((tmp_path / ".thresher").rglob("*.jsonl"))) > 3
    for secret in secrets:
        for text in artifacts:
            assert secret not in text


def test_uncertain_escalates_only_what_the_offline_policy_cannot_settle(
    cli: Cli,
    tmp_path: Path,
    providers: list,  # type: ignore[type-arg]
) -> None:
    demo, _ = make_demo(tmp_path)
    # The widest band (0 < P(real) < 1): no probability is decisive, so what escalates
    # does not depend on how the shipped scorer was trained: everything but hard
    # evidence and what a fact settles (the placeholder in a ``.example`` file is a
    # generic value in test scope: ``policy.Settled``).
    result = cli(
        "scan",
        "--root",
        str(demo),
        "--escalate-band",
        "0,1",
        "--json",
        str(tmp_path / "r.json"),
    )
    assert result.exit_code == 1, result.stderr
    report = json.loads((tmp_path / "r.json").read_text())
    by_path = {d["finding"]["locations"][0]["path"]: d for d in report["decisions"]}
    escalated = {path for path, d in by_path.items() if d["escalated"]}
    # Hard evidence (a documentation value, a failed checksum) never reaches a model.
    hard_paths = {"docs/aws-setup.md", "tests/fixtures/test_github_client.py"}
    settled_paths = {"config/settings.example.env"}
    assert escalated == set(by_path) - hard_paths - settled_paths
    assert (
        "no credential anyone issued"
        in (by_path["config/settings.example.env"]["escalation"]["reason"])
    )
    for path, decision in by_path.items():
        assert decision["escalated"] == decision["escalation"]["would_escalate"], path
        if path in escalated:
            assert decision["decided_by"] in {"tribunal", "guardrail"}
            assert decision["usage"]["requests"] > 0
        else:
            # JSON schema 2.0: zero usage is the default, left out
            assert decision["decided_by"] == "heuristic" and "usage" not in decision
            assert "entries" not in decision  # no synthetic panel for an offline decision
    offline = [d for d in report["decisions"] if not d["escalated"]]
    hard = [d for d in offline if d["finding"]["locations"][0]["path"] in hard_paths]
    assert {d["finding"]["locations"][0]["path"] for d in offline} == hard_paths | settled_paths
    assert all(d["escalation"]["reason"].startswith("hard evidence") for d in hard)
    assert report["summary"]["decided_without_model"] == len(offline)
