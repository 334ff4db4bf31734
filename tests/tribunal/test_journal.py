"""The decision journal: one redaction per decision, and nothing the redactor learned
later left in the report."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from tests.tokens import random_secret
from thresher.findings import Finding
from thresher.redaction.redactor import Redactor, redact_value
from thresher.tribunal.decisions import DecidedBy, Decision, DecisionError
from thresher.tribunal.fallbacks import undecided
from thresher.tribunal.journal import DecisionJournal, JournalReadError, _Since
from thresher.tribunal.reported import decision_line


def _decision(number: int, text: str) -> Decision:
    finding = Finding.model_validate(
        {
            "id": f"f-{number}",
            "rule_id": "Secret Keyword",
            "fingerprint": f"sha256:{number}",
            "redacted": "…(8 chars)",
            "locations": [{"path": "app/settings.py", "line": number}],
        }
    )
    error = DecisionError(stage="analysis 0", error="ProviderError", message=f"echo {text}")
    return undecided(f"it says {text}", DecidedBy.HEURISTIC, finding=finding, errors=(error,))


def test_the_report_holds_no_value_learned_after_a_decision_was_journaled() -> None:
    early = random_secret(24, seed=1)
    late = random_secret(24, seed=2)
    quoted = 'pa"ss\\w0rd-7Qz!x9#Lm'  # JSON escapes it: found in the line only as escaped
    redactor = Redactor([early])
    handle = io.StringIO()
    journal = DecisionJournal(handle, redactor)
    decisions = [
        _decision(1, f"{early} and {late}"),
        _decision(2, f"nothing secret, {early}"),
        _decision(3, f"a password {quoted}"),
    ]
    for decision in decisions:
        journal.write(decision)
    lines = handle.getvalue().splitlines()
    assert early not in handle.getvalue() and late in lines[0]  # journaled with what it knew
    redactor.add(late)
    redactor.add(quoted)

    redacted = journal.redacted(decisions)

    text = "".join(d.model_dump_json() for d in redacted)
    for value in (early, late, quoted):
        assert value not in text and json.dumps(value)[1:-1] not in text
    assert redacted[0].rationale == f"it says {redact_value(early)} and {redact_value(late)}"
    assert redacted[2].errors[0].message == f"echo a password {redact_value(quoted)}"
    # A copy that holds no later value is the journal's own: redacted once, not twice.
    assert redacted[1] is journal.redacted(decisions)[1]
    assert redacted[1].rationale == f"it says nothing secret, {redact_value(early)}"
    assert [d.finding.id for d in redacted] == ["f-1", "f-2", "f-3"]


def test_a_decision_never_journaled_is_redacted_for_the_report() -> None:
    value = random_secret(24, seed=3)
    journal = DecisionJournal(io.StringIO(), Redactor([value]))
    (redacted,) = journal.redacted([_decision(1, value)])
    assert value not in redacted.model_dump_json()


def test_a_decision_no_report_shows_with_its_panel_is_kept_as_its_line_reads_back() -> None:
    """With ``panel_shown`` saying no, the run keeps the redacted copy without the
    offline panel (what the line holds anyway), and the report still redacts it with
    every value learned later."""
    late = random_secret(24, seed=4)
    handle = io.StringIO()
    redactor = Redactor([])
    journal = DecisionJournal(handle, redactor, panel_shown=lambda d: d.finding.id == "f-1")
    decisions = [_decision(n, late).model_copy(update={"judge_model": "heuristic"}) for n in (1, 2)]
    kept = [journal.write(d) for d in decisions]
    assert kept[0] is decisions[0]  # shown with its panel: kept whole
    assert kept[1].judge_model is None and kept[1].entries == () and kept[1].judge is None
    assert kept[1].model_copy(update={"judge_model": "heuristic"}) == decisions[1]
    line = handle.getvalue().splitlines()[1]
    assert Decision.model_validate_json(line) == kept[1]  # the line reads back as kept
    redactor.add(late)

    final = journal.final(kept)

    assert late not in "".join(d.model_dump_json() + bytes(b).decode() for d, b in final)
    assert final[1][0].rationale == f"it says {redact_value(late)}"


def test_the_report_lines_are_read_back_from_the_journal_file(tmp_path: Path) -> None:
    """A journal written to a file keeps where each line lies, not the line: the report
    gets the same bytes, in the order it asks for them."""
    value = random_secret(24, seed=5)
    path = tmp_path / "decisions.jsonl"
    path.write_text("a line of an earlier attempt\n", encoding="utf-8")  # appended after it
    with path.open("a", encoding="utf-8") as handle:
        journal = DecisionJournal(handle, Redactor([value]))
        decisions = [journal.write(_decision(n, f"{value} and ünïcode {n}")) for n in (1, 2, 3)]
    written = path.read_bytes().splitlines()[1:]

    final = journal.final(list(reversed(decisions)))

    assert list(journal.lines(final)) == list(reversed(written))
    assert all(isinstance(line, tuple) for _, line in final)  # none held in memory
    path.write_bytes(b"")
    with pytest.raises(JournalReadError, match="changed while the run wrote it"):
        list(journal.lines(final))
    path.unlink()
    with pytest.raises(JournalReadError, match="cannot read back"):
        list(journal.lines(final))


def test_a_copy_kept_without_its_panel_is_looked_for_in_its_line(tmp_path: Path) -> None:
    """A copy the report shows without its panel is checked in the line the journal
    file holds (no dump of it): a value learned later, raw or as JSON escapes it, is
    found there and the copy redacted again; a copy holding none is kept as it was."""
    late = random_secret(24, seed=6)
    quoted = 'pa"ss\\w0rd-8Rt!y0#Mn'
    unused = random_secret(24, seed=7)
    redactor = Redactor([])
    path = tmp_path / "decisions.jsonl"
    with path.open("a", encoding="utf-8") as handle:
        journal = DecisionJournal(handle, redactor, panel_shown=lambda d: False)
        texts = (f"it holds {late}", "nothing learned", f"a password {quoted} ünïcode")
        kept = [journal.write(_decision(n, text)) for n, text in enumerate(texts, start=1)]
    for value in (late, quoted, unused):
        redactor.add(value)

    final = journal.final(kept)

    lines = list(journal.lines(final))
    for value in (late, quoted):
        assert all(value not in line.decode() for line in lines)
        assert all(json.dumps(value)[1:-1] not in line.decode() for line in lines)
    assert final[1][0] is kept[1] and isinstance(final[1][1], tuple)  # read back, kept
    for (redacted, _), line, copy in zip(final, lines, kept, strict=True):
        # What a fresh redaction of the copy gives, line for line.
        again = redactor.model(copy)
        assert redacted == again
        assert line == decision_line(again)[0].encode()


def test_a_value_learned_in_a_default_text_sends_copies_to_the_whole_check() -> None:
    """A field left at its default is not in the line: a learned value inside a default
    text (a source's name) is looked for in the copy dumped whole."""
    assert _Since(["xx-detect-secrets-xx"], 0).in_defaults is False
    assert _Since(["detect-secrets"], 0).in_defaults is True
    assert not _Since([], 0) and _Since(["s3cr3t-value"], 0)
