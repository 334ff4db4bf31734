"""What a finding's agent is offered and how it loads it: only the skills that can apply
to the finding, and a whole phase in one ``skill`` call, with compliance unchanged."""

from __future__ import annotations

import asyncio
import json

from tests.llm.harness import REPORT, make_finding
from thresher.agents.sessions import SessionFactory
from thresher.agents.toolspecs import ToolName
from thresher.config.settings import AgentName, Settings
from thresher.findings import Finding
from thresher.llm.messages import ModelResponse
from thresher.llm.testing import ScriptedModel, tool_response
from thresher.redaction.redactor import Redactor

SLACK = Finding.model_validate(
    {
        "id": "f-slack-1",
        "rule_id": "Slack Token",
        "fingerprint": "sha256:slack",
        "redacted": "xoxb…Ab1 (56 chars)",
        "locations": [{"path": "bot/settings.py", "line": 3}],
    }
)


def analysis_setup() -> tuple[Finding, str, SessionFactory, list[str]]:
    """A GitHub-token finding, a factory whose redactor knows its value, and the skills
    its analysis session requires."""
    finding, secret = make_finding()
    factory = SessionFactory(settings=Settings(), redactor=Redactor([secret]))
    session = factory.build(AgentName.ANALYSIS, ScriptedModel([]), finding, secret)
    return finding, secret, factory, list(session.info.required_skills)


def one_call_then_submit(required: list[str]) -> list[ModelResponse]:
    """A diligent model: every required skill and the finding in one turn, then submit."""
    return [
        tool_response(("skill", {"names": required}), ("get_finding", {"finding_id": "f-gh-1"})),
        tool_response(("submit_report", REPORT)),
    ]


def offered(factory: SessionFactory, finding: Finding) -> tuple[str, set[str]]:
    """The catalog in the task prompt and the names the ``skill`` tool accepts."""
    session = factory.build(AgentName.ANALYSIS, ScriptedModel([]), finding, None)
    [tool] = [t for t in session.toolbox.definitions() if t.name == ToolName.SKILL.value]
    return session.task_prompt, set(tool.parameters["properties"]["names"]["items"]["enum"])


def test_a_type_specific_skill_is_offered_only_for_its_secret_type() -> None:
    github, _ = make_finding()
    factory = SessionFactory(settings=Settings())
    github_catalog, github_names = offered(factory, github)
    slack_catalog, slack_names = offered(factory, SLACK)
    assert "github-tokens" in github_names and 'name="github-tokens"' in github_catalog
    assert "slack-tokens" not in github_names and 'name="slack-tokens"' not in github_catalog
    assert "slack-tokens" in slack_names and "github-tokens" not in slack_names
    assert 'name="github-tokens"' not in slack_catalog
    assert "finding-intake" in github_names & slack_names  # the common method stays


def test_a_phase_loads_in_one_call_and_compliance_counts_it() -> None:
    finding, secret, factory, required = analysis_setup()
    model = ScriptedModel(one_call_then_submit(required))
    session = factory.build(AgentName.ANALYSIS, model, finding, secret)
    outcome = asyncio.run(session.run())
    assert len(model.requests) == 2
    skill_calls = [e for e in outcome.ledger.entries if e.tool == "skill"]
    assert len(skill_calls) == 1
    for name in required:
        assert f'<skill_content name="{name}">' in skill_calls[0].result
    assert outcome.compliance.score == 1.0
    assert set(outcome.compliance.loaded) == set(required)


def test_a_partial_list_leaves_the_rest_skipped() -> None:
    finding, secret, factory, required = analysis_setup()
    model = ScriptedModel(
        [
            tool_response(("skill", {"names": required[:1]})),
            tool_response(("submit_report", REPORT)),
            tool_response(("skill", {"names": required[1:]})),
            tool_response(("submit_report", REPORT)),
        ]
    )
    session = factory.build(AgentName.ANALYSIS, model, finding, secret)
    outcome = asyncio.run(session.run())
    assert outcome.rejected_submissions == 1  # told which required skills were skipped
    assert outcome.compliance.score == 1.0


def test_bad_skill_arguments_go_back_to_the_model() -> None:
    finding, secret, factory, required = analysis_setup()
    model = ScriptedModel(
        [
            tool_response(
                ("skill", {"names": []}),
                ("skill", {"names": [required[0]], "name": required[0]}),
                ("skill", {"names": ["aws-keys"]}),  # not offered for a GitHub token
            ),
            tool_response(("skill", {"names": required})),
            tool_response(("submit_report", REPORT)),
        ]
    )
    outcome = asyncio.run(factory.build(AgentName.ANALYSIS, model, finding, secret).run())
    errors = [e.result for e in outcome.ledger.entries if e.is_error]
    assert "non-empty list" in errors[0]
    assert "not both" in errors[1]
    assert "unknown skill 'aws-keys'" in errors[2]
    assert outcome.compliance.score == 1.0


def test_the_challenger_is_shown_the_analysis_ledger_without_skill_texts() -> None:
    finding, secret, factory, required = analysis_setup()
    model = ScriptedModel(one_call_then_submit(required))
    outcome = asyncio.run(factory.build(AgentName.ANALYSIS, model, finding, secret).run())
    review = outcome.ledger.for_review()
    assert [e["id"] for e in review] == [e.id for e in outcome.ledger.entries]
    assert "<skill_content" not in json.dumps(review)
    assert review[0]["arguments"] == {"names": required}
    assert review[1]["tool"] == "get_finding" and review[1]["result"].startswith("{")
    challenger = factory.build(
        AgentName.CHALLENGER,
        ScriptedModel([]),
        finding,
        secret,
        report=outcome.result,
        ledger=review,
    )
    # The challenger audits the report's citations against the ledger it is shown.
    assert '"id": "T2"' in challenger.task_prompt and "filled at run time" not in (
        challenger.task_prompt
    )
    assert "<skill_content" not in challenger.task_prompt
