"""The tribunal decides a vulnerable dependency as affected / not_affected, never as a
secret: clear cases offline with their OpenVEX justification, everything else escalated."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.tribunal.dependency_world import (
    VULN_ID,
    advisory,
    all_llm,
    decide,
    dependency_finding,
    dependency_tribunal,
    project,
)
from thresher.config.settings import AgentName
from thresher.findings.results import (
    SECRET_CLASSIFICATIONS,
    Classification,
    Verdict,
    VexJustification,
)
from thresher.scoring.policy import Escalate
from thresher.tribunal.decisions import DecidedBy, Decision

USES_IT = {"app/main.py": "import os\nimport yaml_lib\n\nyaml_lib.load(os.environ['X'])\n"}
DOES_NOT = {"app/main.py": "import os\n\nprint(os.getcwd())\n"}


def cited_ids(decision: Decision) -> set[str]:
    return {i for item in decision.entries[0].report.evidence for i in item.ledger_ids}


def test_a_dev_only_dependency_is_not_affected_with_its_justification(tmp_path: Path) -> None:
    tribunal = dependency_tribunal(project(tmp_path, USES_IT))
    decision = decide(tribunal, dependency_finding(dev=True))
    assert decision.classification is Classification.NOT_AFFECTED
    assert decision.verdict is Verdict.FALSE_POSITIVE
    assert decision.justification is VexJustification.COMPONENT_NOT_PRESENT
    assert decision.decided_by is DecidedBy.HEURISTIC and not decision.escalated
    assert decision.escalation is not None and not decision.escalation.would_escalate
    # the justification rests on a tool result of the ledger (get_finding's dev flag)
    assert cited_ids(decision)
    assert decision.entries[0].checks_passed


def test_a_version_outside_the_range_is_not_affected(tmp_path: Path) -> None:
    tribunal = dependency_tribunal(project(tmp_path, USES_IT))
    decision = decide(tribunal, dependency_finding(version="2.1.0"))
    assert decision.classification is Classification.NOT_AFFECTED
    assert decision.justification is VexJustification.VULNERABLE_CODE_NOT_PRESENT
    assert "outside every range" in decision.rationale


def test_a_direct_dependency_never_imported_is_not_in_the_execute_path(tmp_path: Path) -> None:
    root = project(tmp_path, {**DOES_NOT, ".venv/lib/site.py": "import yaml_lib\n"})
    decision = decide(dependency_tribunal(root), dependency_finding())
    assert decision.classification is Classification.NOT_AFFECTED
    assert decision.justification is VexJustification.VULNERABLE_CODE_NOT_IN_EXECUTE_PATH
    assert "never imports" in decision.rationale


def test_a_transitive_dependency_never_imported_is_escalated(tmp_path: Path) -> None:
    decision = decide(
        dependency_tribunal(project(tmp_path, DOES_NOT)), dependency_finding(relation="transitive")
    )
    assert decision.classification is Classification.AFFECTED
    assert decision.verdict is Verdict.INCONCLUSIVE
    assert decision.escalation is not None and decision.escalation.would_escalate


def test_an_imported_reachable_dependency_is_affected_and_escalated(tmp_path: Path) -> None:
    decision = decide(dependency_tribunal(project(tmp_path, USES_IT)), dependency_finding())
    assert decision.classification is Classification.AFFECTED
    assert decision.verdict is Verdict.INCONCLUSIVE
    assert decision.justification is None
    assert decision.escalation is not None and decision.escalation.would_escalate
    assert "app/main.py:2" in decision.rationale
    assert any(
        "Upgrade yaml-lib from 1.0.0 to 2.0.0" in r for r in decision.entries[0].report.remediation
    )


def test_an_imported_dependency_goes_to_the_llm_tribunal(tmp_path: Path) -> None:
    llm = all_llm("affected")
    tribunal = dependency_tribunal(project(tmp_path, USES_IT), llm=llm)
    decision = decide(tribunal, dependency_finding())
    assert decision.escalated and decision.decided_by is DecidedBy.TRIBUNAL
    assert decision.classification is Classification.AFFECTED
    assert decision.verdict is Verdict.TRUE_POSITIVE
    analysis = llm[AgentName.ANALYSIS].requests[0]
    offered = {tool.name for tool in analysis.tools}
    assert {"find_imports", "get_vulnerability"} <= offered
    assert not offered & {"validate_secret", "list_secret_validators"}
    info = analysis.settings.session
    assert info is not None and info.kind == "dependency"
    assert "dependency-intake" in info.required_skills
    assert "finding-intake" not in info.required_skills
    assert "vulnerable dependency" in analysis.messages[1].text  # type: ignore[union-attr]


def test_a_clear_case_is_not_escalated_even_with_an_llm(tmp_path: Path) -> None:
    llm = all_llm("affected")
    tribunal = dependency_tribunal(project(tmp_path, USES_IT), llm=llm)
    decision = decide(tribunal, dependency_finding(dev=True))
    assert not decision.escalated and not llm[AgentName.ANALYSIS].requests
    assert decision.classification is Classification.NOT_AFFECTED


@pytest.mark.parametrize(("policy", "escalates"), [(Escalate.ALL, True), (Escalate.NEVER, False)])
def test_escalation_policy_applies_to_dependencies(
    tmp_path: Path, policy: Escalate, escalates: bool
) -> None:
    llm = all_llm("affected")
    tribunal = dependency_tribunal(project(tmp_path, USES_IT), llm=llm, escalate=policy)
    decision = decide(tribunal, dependency_finding(dev=True))
    assert decision.escalated is escalates
    assert decision.assessment is None  # the secret scorer never scores a dependency


@pytest.mark.parametrize(
    "finding_kwargs",
    [
        {},
        {"dev": True},
        {"version": "3.0.0"},
        {"relation": None},
        {"lockfile": "tests/requirements.txt"},
    ],
)
def test_a_dependency_is_never_classified_as_a_secret(
    tmp_path: Path, finding_kwargs: dict[str, object]
) -> None:
    files = {**USES_IT, "tests/test_app.py": "import yaml_lib\n"}
    decision = decide(
        dependency_tribunal(project(tmp_path, files)), dependency_finding(**finding_kwargs)
    )  # type: ignore[arg-type]
    assert decision.classification not in SECRET_CLASSIFICATIONS
    for entry in decision.entries:
        assert entry.report.classification not in SECRET_CLASSIFICATIONS


def test_a_lockfile_under_tests_is_not_test_data(tmp_path: Path) -> None:
    files = {
        "tests/requirements.txt": "yaml-lib==1.0.0\n",
        "tests/test_load.py": "import yaml_lib\n",
    }
    decision = decide(
        dependency_tribunal(project(tmp_path, files)),
        dependency_finding(lockfile="tests/requirements.txt"),
    )
    assert decision.classification is Classification.AFFECTED
    assert decision.escalation is not None and decision.escalation.would_escalate


def test_an_llm_answering_real_is_overruled_to_affected(tmp_path: Path) -> None:
    tribunal = dependency_tribunal(project(tmp_path, USES_IT), llm=all_llm("real"))
    decision = decide(tribunal, dependency_finding())
    assert decision.escalated
    assert decision.classification is Classification.AFFECTED
    assert decision.verdict is Verdict.INCONCLUSIVE
    assert decision.decided_by is DecidedBy.GUARDRAIL
    assert decision.guardrail is not None and "secret" in decision.guardrail


def test_an_uncited_not_affected_is_overruled_by_the_guardrail(tmp_path: Path) -> None:
    llm = all_llm("not_affected", justification="vulnerable_code_not_in_execute_path", cite=None)
    decision = decide(
        dependency_tribunal(project(tmp_path, USES_IT), llm=llm), dependency_finding()
    )
    assert decision.classification is Classification.AFFECTED
    assert decision.verdict is Verdict.INCONCLUSIVE
    assert decision.decided_by is DecidedBy.GUARDRAIL
    assert decision.justification is None
    assert decision.guardrail is not None and "ledger" in decision.guardrail


def test_a_not_affected_without_justification_is_overruled(tmp_path: Path) -> None:
    llm = all_llm("not_affected", justification=None)
    decision = decide(
        dependency_tribunal(project(tmp_path, USES_IT), llm=llm), dependency_finding()
    )
    assert decision.classification is Classification.AFFECTED
    assert decision.decided_by is DecidedBy.GUARDRAIL
    assert decision.guardrail is not None and "justification" in decision.guardrail


def test_a_cited_justified_not_affected_from_the_tribunal_stands(tmp_path: Path) -> None:
    llm = all_llm("not_affected", justification="vulnerable_code_cannot_be_controlled_by_adversary")
    decision = decide(
        dependency_tribunal(project(tmp_path, USES_IT), llm=llm), dependency_finding()
    )
    assert decision.decided_by is DecidedBy.TRIBUNAL
    assert decision.classification is Classification.NOT_AFFECTED
    assert decision.verdict is Verdict.FALSE_POSITIVE
    assert (
        decision.justification is VexJustification.VULNERABLE_CODE_CANNOT_BE_CONTROLLED_BY_ADVERSARY
    )


def test_without_the_advisory_the_dependency_stays_affected(tmp_path: Path) -> None:
    tribunal = dependency_tribunal(project(tmp_path, USES_IT), vulns=[])
    decision = decide(tribunal, dependency_finding(version="9.9.9"))
    assert decision.classification is Classification.AFFECTED
    assert decision.verdict is Verdict.INCONCLUSIVE


def test_a_published_fix_shapes_the_remediation_not_rotation(tmp_path: Path) -> None:
    decision = decide(dependency_tribunal(project(tmp_path, USES_IT)), dependency_finding())
    text = " ".join(decision.entries[0].report.remediation).lower()
    assert "upgrade" in text and "rotate" not in text and "revoke" not in text


def test_the_advisory_id_is_what_get_vulnerability_reads(tmp_path: Path) -> None:
    other = advisory(package="other-lib")
    tribunal = dependency_tribunal(project(tmp_path, DOES_NOT), vulns=[other])
    decision = decide(tribunal, dependency_finding())
    # the advisory does not list this package: the range cannot clear it, the imports do
    assert decision.justification is VexJustification.VULNERABLE_CODE_NOT_IN_EXECUTE_PATH
    assert VULN_ID in decision.entries[0].report.evidence[1].claim


def test_the_finding_report_names_the_vex_justification_and_the_upgrade(tmp_path: Path) -> None:
    from thresher.reports.markdown import render_finding

    cleared = render_finding(
        decide(dependency_tribunal(project(tmp_path, USES_IT)), dependency_finding(dev=True))
    )
    assert "| VEX justification | component_not_present |" in cleared
    affected = render_finding(
        decide(dependency_tribunal(project(tmp_path / "b", USES_IT)), dependency_finding())
    )
    assert "VEX justification" not in affected
    assert "rotate" not in affected.lower() and "revoke" not in affected.lower()
