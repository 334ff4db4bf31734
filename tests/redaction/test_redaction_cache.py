"""The redactor's text cache outlives learned values, and never hands back a text that
holds one: a text redacted before a value was learned is redacted again when it holds it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.tokens import random_secret
from thresher.config.settings import Settings
from thresher.redaction.redactor import Redactor, redact_value
from thresher.reports import render_json, render_sarif
from thresher.reports.markdown import render_summary
from thresher.scan.outcome import ScanRequest
from thresher.scan.run import run_scan
from thresher.scoring.policy import Escalate

# A quote and a backslash (JSON escapes them), and non-ASCII letters (SARIF and JSON
# may write them as \u escapes).
ODD = ('pa"ss\\w0rd-7Qz!x9#Lm', "Zürich-ß3kT9wQ2vX7pL", 'k\\"é9Rt4mW8zQ2xN6b')


@pytest.mark.parametrize("value", ODD)
def test_a_text_cached_before_a_value_was_learned_is_redacted_again(value: str) -> None:
    redactor = Redactor(["Xq7Lm2pW9vT4kR8n"])
    text = f"the password is {value} here"
    assert redactor.text(text) == text  # cached while the value is unknown
    redactor.add(value)
    assert value not in redactor.text(text)
    assert redactor.text(text) == f"the password is {redact_value(value)} here"


def test_a_cached_text_without_the_values_learned_since_is_unchanged() -> None:
    redactor = Redactor(["Xq7Lm2pW9vT4kR8n"])
    text = "nothing secret Xq7Lm2pW9vT4kR8n"
    first = redactor.text(text)
    for seed in range(3):
        redactor.add(random_secret(20, seed=seed))
    assert redactor.text(text) == first == f"nothing secret {redact_value('Xq7Lm2pW9vT4kR8n')}"


def test_many_values_learned_since_a_text_was_cached_are_all_redacted() -> None:
    """More values learned than the cache looks for one at a time: redacted again whole."""
    values = [random_secret(24, seed=i) for i in range(100)]
    redactor = Redactor(["Xq7Lm2pW9vT4kR8n"])
    text = " ".join(values)
    assert redactor.text(text) == text
    for value in values:
        redactor.add(value)
    assert not any(value in redactor.text(text) for value in values)


def test_a_value_whose_form_changes_is_shown_in_its_new_form() -> None:
    value = random_secret(24, seed=7)
    redactor = Redactor([value])
    text = f"token {value}"
    assert redactor.text(text) == f"token {redact_value(value)}"
    redactor.add(value, "[REDACTED:password:0a1b]")
    assert redactor.text(text) == "token [REDACTED:password:0a1b]"


def test_values_json_escapes_never_reach_any_artifact_of_an_offline_run(tmp_path: Path) -> None:
    """decisions.jsonl, offline.jsonl and the JSON, SARIF and Markdown reports: the
    values neither as they are nor as JSON writes them."""
    root = tmp_path / "repo"
    (root / "config").mkdir(parents=True)
    (root / "app").mkdir()
    lines = [f"DB_PASSWORD_{i}={json.dumps(v)}" for i, v in enumerate(ODD)]
    (root / "config/prod.env").write_text("\n".join(lines) + "\n")
    # The same values again in another file, where a value learned in the first
    # file's reads must be redacted in texts redacted before it was learned.
    quoted = "".join(f"password{i} = {json.dumps(v)}\n" for i, v in enumerate(ODD))
    (root / "app/settings.py").write_text(quoted)
    request = ScanRequest(root=root, runs_dir=tmp_path / "runs", escalate=Escalate.NEVER)
    outcome = run_scan(request, Settings(), environ={}, offline_workers=0)
    assert outcome.report.decisions
    written = [
        (outcome.run_dir / "decisions.jsonl").read_text(),
        (outcome.run_dir / "offline.jsonl").read_text(),
        render_json(outcome.report),
        render_sarif(outcome.report),
        render_summary(outcome.report),
    ]
    forms = {v for value in ODD for v in (value, json.dumps(value)[1:-1])}
    forms |= {json.dumps(value, ensure_ascii=True)[1:-1] for value in ODD}
    for text in written:
        assert not any(form in text for form in forms)


def test_long_values_sharing_their_first_characters_are_each_redacted_whole() -> None:
    """The automaton holds a value's first characters only: the rest is checked where
    they match, so two keys that start alike are each found, and their shared start
    alone is not mistaken for either."""
    head = "-----BEGIN PRIVATE KEY-----\n" + random_secret(60)
    first, second = head + random_secret(400, 1), head + random_secret(400, 2)
    redactor = Redactor([first, second])
    text = f"a={first}\nb={second}\nc={head}!"
    out = redactor.text(text)
    assert first not in out and second not in out
    assert out.count(redact_value(first)) == 1 and out.count(redact_value(second)) == 1
    assert out.endswith(f"c={head}!")  # the shared start alone is no value
    assert redactor.text(first[:-1]) == first[:-1]  # nor a value cut short


def test_a_model_is_redacted_in_every_part_after_the_first_that_changes() -> None:
    """Parts are copied only from the first one redaction changes: every part after it
    is still redacted, every part before it kept as it was."""
    from thresher.tribunal.offline_records import OfflineAgentRecord, OfflineCallRecord

    first, second = random_secret(24, 5), random_secret(24, 6)
    calls = tuple(
        OfflineCallRecord(id=f"T{n}", tool="read_file", arguments=arguments, ok=True)
        for n, arguments in enumerate(
            (
                {"path": "clean.py"},
                {"a": "clean", "b": f"x={first}", "c": "clean", "d": second},
                {"path": f"{second}.py"},
            )
        )
    )
    record = OfflineAgentRecord(agent="analysis", skills=(), calls=calls, compliance=1.0)

    out = Redactor([first, second]).model(record)

    assert out.calls[0] is calls[0]
    assert out.calls[1].arguments == {
        "a": "clean",
        "b": f"x={redact_value(first)}",
        "c": "clean",
        "d": redact_value(second),
    }
    assert list(out.calls[1].arguments) == ["a", "b", "c", "d"]
    assert out.calls[2].arguments == {"path": f"{redact_value(second)}.py"}
