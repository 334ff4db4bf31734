"""The offline panel's ``get_finding``: the value's profile made only where the rules
read it, and otherwise exactly as a session sees it."""

from __future__ import annotations

import inspect
import re
from typing import Any

import pytest

from tests.tokens import random_secret
from thresher.agents.toolbox import finding_data
from thresher.agents.toolspecs import ToolName
from thresher.findings import Finding
from thresher.findings import profile as profile_module
from thresher.findings.profile import profile_value
from thresher.findings.results import Classification
from thresher.heuristic.model import gather_evidence
from thresher.heuristic.secret_rules import conclude
from thresher.redaction.detector import Detector
from thresher.redaction.redactor import Redactor, redact_value
from thresher.scoring.policy import OfflineCall
from thresher.tribunal.offline_calls import (
    _OF_FINDING,
    _READ_BY_RULES,
    PROFILE_WORDS,
    _Calls,
    _described,
    _key,
    profiled_later,
)

VALUE = random_secret(seed=41)
LINE = f'API_TOKEN = "{VALUE}"'


def finding() -> Finding:
    return Finding.model_validate(
        {
            "id": "f-1",
            "rule_id": "Secret Keyword",
            "fingerprint": "sha256:x",
            "redacted": redact_value(VALUE),
            "locations": [{"path": "src/conf.py", "line": 3}],
        }
    )


def call_of(classification: Classification = Classification.TEST) -> OfflineCall:
    return OfflineCall(classification=classification, probability=0.9, reason="scored")


def described(redactor: Redactor, call: OfflineCall | None) -> dict[str, Any]:
    """``get_finding``'s data as the panel's memo of calls gives it."""
    handler = _described(finding(), VALUE, LINE, (None, call))
    calls = _Calls(
        {ToolName.GET_FINDING: handler},
        redactor.text,
        redactor.data,
        leaves=redactor.leaves,
        profile_later=profiled_later(VALUE, LINE, (None, call)),
    )
    result = calls.call(ToolName.GET_FINDING, {"finding_id": "f-1"})
    assert result.error is None
    return result.data


def as_always(redactor: Redactor, call: OfflineCall | None) -> dict[str, Any]:
    """The data as ``get_finding`` always made it: the profile made and redacted."""
    full = finding_data(finding(), VALUE, LINE, offline=(None, call), fields=_OF_FINDING)
    keys = _READ_BY_RULES[ToolName.GET_FINDING]
    return {k: redactor.data(full[k]) for k in keys if k in full}


def test_a_call_that_names_a_classification_leaves_the_profile_out() -> None:
    redactor = Redactor([VALUE], detector=Detector())
    data = described(redactor, call_of())
    old = as_always(redactor, call_of())
    assert "value" not in data and "value" in old
    assert data == {k: v for k, v in old.items() if k != "value"}
    # The rules conclude the same without it.
    ours = conclude(gather_evidence([("get_finding", "T1", data)]))
    theirs = conclude(gather_evidence([("get_finding", "T1", old)]))
    assert ours == theirs


def test_without_a_call_the_profile_is_made_as_always() -> None:
    redactor = Redactor([VALUE], detector=Detector())
    assert described(redactor, None) == as_always(redactor, None)


def test_a_call_redaction_rewrites_gets_the_profile_made_later() -> None:
    """A candidate value equal to the call's word ("test"): the rules no longer see a
    classification, so they read the profile, made after the call (redaction leaves
    its words as they are, so it is what it always was)."""
    redactor = Redactor([VALUE, "test"], detector=Detector())
    data = described(redactor, call_of(Classification.TEST))
    assert data["offline_call"]["classification"] != "test"
    assert data == as_always(redactor, call_of(Classification.TEST))


@pytest.mark.parametrize("redactor", ["value", "detector"])
def test_a_profile_word_redaction_changes_is_redacted_in_its_turn(redactor: str) -> None:
    """A candidate value or a custom rule that rewrites a profile's word: the profile is
    made and redacted where it always was, and redaction learns nothing to find out."""
    if redactor == "value":
        chosen = Redactor([VALUE, "alphanumeric"], detector=Detector())
    else:
        chosen = Redactor([VALUE], detector=Detector([("word", "alphanumeric")]))
    known = chosen.known
    assert not chosen.leaves(PROFILE_WORDS)
    assert chosen.known == known  # asking learned nothing
    call = call_of(Classification.TEST)
    assert described(chosen, call) == as_always(chosen, call)


def test_leaves_answers_again_once_a_value_is_added() -> None:
    redactor = Redactor([VALUE], detector=Detector())
    assert redactor.leaves(PROFILE_WORDS)
    redactor.add("mixed")
    assert not redactor.leaves(PROFILE_WORDS)


def test_profile_words_hold_every_word_a_profile_can_hold() -> None:
    """Every shape ``shape`` returns and every charset class is a profile word."""
    source = inspect.getsource(profile_module.shape)
    shapes = set(re.findall(r'return "([^"]+)"', source))
    assert shapes and shapes <= PROFILE_WORDS
    charset = inspect.getsource(profile_module.profile_value)
    assert set(re.findall(r'\("(\w+)", str\.is', charset)) | {"symbol"} <= PROFILE_WORDS
    for value in (VALUE, "hunter2", "correct horse battery", "0" * 20, "dGVzdA" * 5):
        profile = profile_value(value, LINE)
        assert {profile["shape"], *profile["charset"]} <= PROFILE_WORDS


def test_memo_keys_tell_apart_what_a_call_would_tell_apart() -> None:
    """Plain strings and integers are keyed by their pairs, anything else by its repr:
    arguments that differ in a value or its type never share a result."""
    tool = ToolName.READ_FILE
    keys = [
        _key(tool, {"path": "a", "start_line": 1}),
        _key(tool, {"path": "a", "start_line": "1"}),
        _key(tool, {"path": "a", "start_line": True}),
        _key(tool, {"path": "a", "start_line": 1.0}),
        _key(tool, {"path": "a", "start_line": 2}),
        _key(ToolName.GIT_LOG, {"path": "a", "start_line": 1}),
    ]
    assert len(set(keys)) == len(keys)
    assert _key(tool, {"start_line": 1, "path": "a"}) == keys[0]
