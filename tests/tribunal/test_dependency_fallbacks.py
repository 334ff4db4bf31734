"""What stands for a dependency when the tribunal cannot finish: ``affected``, never
``real``; and the heuristic replayed through sessions agrees with the offline panel."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.tribunal.dependency_world import (
    decide,
    dependency_finding,
    dependency_tribunal,
    project,
)
from thresher.findings import Finding
from thresher.findings.results import Classification, Verdict
from thresher.tribunal.decisions import DecidedBy, DecisionError
from thresher.tribunal.fallbacks import Deadline, undecided
from thresher.tribunal.tribunal import Tribunal

SECRET = Finding.model_validate(
    {
        "id": "s-1",
        "rule_id": "GitHub Token",
        "fingerprint": "sha256:x",
        "redacted": "ghp_…Xk2 (40 chars)",
        "locations": [{"path": "app.py", "line": 1}],
    }
)


def test_an_undecided_dependency_is_assumed_affected() -> None:
    decision = undecided("no panel", DecidedBy.HEURISTIC, finding=dependency_finding())
    assert decision.classification is Classification.AFFECTED
    assert decision.verdict is Verdict.INCONCLUSIVE


def test_an_undecided_secret_is_still_assumed_real() -> None:
    decision = undecided("no panel", DecidedBy.HEURISTIC, finding=SECRET)
    assert decision.classification is Classification.REAL


def test_a_failure_while_deciding_a_dependency_leaves_it_affected(tmp_path: Path) -> None:
    tribunal = dependency_tribunal(project(tmp_path, {"a.py": "import yaml_lib\n"}))

    def broken(*_args: object, **_kwargs: object) -> object:
        raise RuntimeError("boom")

    tribunal.offline_panel.decide = broken  # type: ignore[method-assign]
    [decision] = asyncio.run(tribunal.decide_all([dependency_finding()], lambda _id: None))
    assert decision.classification is Classification.AFFECTED
    assert decision.verdict is Verdict.INCONCLUSIVE
    assert decision.errors[0].error == "RuntimeError"


def test_an_expired_deadline_leaves_a_dependency_affected(tmp_path: Path) -> None:
    tribunal = dependency_tribunal(project(tmp_path, {"a.py": "import yaml_lib\n"}))
    expired = tribunal._expired(dependency_finding(), Deadline.after(0.0))
    assert expired.classification is Classification.AFFECTED
    assert expired.errors[0].stage == "deadline"


def test_every_session_failing_leaves_a_dependency_affected(tmp_path: Path) -> None:
    from thresher.llm.messages import Usage
    from thresher.tribunal.fallbacks import Panel

    tribunal = dependency_tribunal(project(tmp_path, {}))
    error = DecisionError(stage="analysis 0", error="ProviderError", message="down")
    decision = tribunal._conclude(
        dependency_finding(),
        Panel([], None, None, Usage(), [error]),
        (),
        DecidedBy.TRIBUNAL,
        escalated=True,
    )
    assert decision.classification is Classification.AFFECTED
    assert decision.verdict is Verdict.INCONCLUSIVE


CASES = {
    "dev only": ({"a.py": "import yaml_lib\n"}, {"dev": True}),
    "out of range": ({"a.py": "import yaml_lib\n"}, {"version": "2.5.0"}),
    "never imported": ({"a.py": "import os\n"}, {}),
    "imported": ({"a.py": "from yaml_lib import load\n"}, {}),
    "transitive": ({"a.py": "import os\n"}, {"relation": "transitive"}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_offline_panel_gives_what_the_heuristic_sessions_gave(
    tmp_path: Path, case: str
) -> None:
    files, kwargs = CASES[case]
    tribunal: Tribunal = dependency_tribunal(project(tmp_path, files))
    finding = dependency_finding(**kwargs)  # type: ignore[arg-type]
    direct = tribunal.offline_panel.decide(finding, None, (), (None, None))
    replayed = asyncio.run(
        tribunal.session_panel(finding, None, tribunal.heuristic_models(), "heuristic", analyses=1)
    )
    assert direct.entries == replayed.entries
    assert direct.judge == replayed.judge and direct.judge is not None
    assert direct.errors == replayed.errors == []
    decision = decide(tribunal, finding)
    assert decision.classification in {Classification.AFFECTED, Classification.NOT_AFFECTED}
