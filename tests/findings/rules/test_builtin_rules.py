"""Every built-in rule finds its positive case and not its negative one."""

from __future__ import annotations

import pytest

from tests.findings.rules.cases import CASES
from thresher.findings.rules.book import STRUCTURED, builtin_rules
from thresher.findings.rules.matcher import Rulebook, RuleHit

RULES = {rule.id: rule for rule in builtin_rules()}
# Rules that read a file's structure (a Kubernetes Secret manifest), not one line: their
# cases are whole manifests, in test_manifests.py.
STRUCTURED_RULES = {rule.id for rule in builtin_rules() if rule.kind in STRUCTURED}


def hits(rule_id: str, path: str, text: str) -> list[RuleHit]:
    """What one rule alone finds in a file of that name holding ``text``."""
    lines = text.split("\n")
    return Rulebook([RULES[rule_id]]).scan(path, lines, range(len(lines)))


def test_every_builtin_rule_has_a_case() -> None:
    assert set(CASES) == set(RULES) - STRUCTURED_RULES
    assert {"kubernetes-secret-data", "kubernetes-secret-stringdata"} == STRUCTURED_RULES


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_positive_case_is_found_with_its_value(rule_id: str) -> None:
    case = CASES[rule_id]
    found = hits(rule_id, case.path, case.line)
    assert [hit.value for hit in found] == [case.value]
    assert {hit.index for hit in found} == {0}


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_negative_case_is_not_found(rule_id: str) -> None:
    case = CASES[rule_id]
    assert hits(rule_id, case.path, case.negative) == []


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_positive_case_is_found_among_other_lines(rule_id: str) -> None:
    """The keyword gate maps a hit to its own line, wherever it sits in the text."""
    case = CASES[rule_id]
    text = "\n".join(["# settings", case.negative, "", case.line, "done = True"])
    found = [hit for hit in hits(rule_id, case.path, text) if hit.value == case.value]
    assert found
    assert {hit.index for hit in found} == {3}
