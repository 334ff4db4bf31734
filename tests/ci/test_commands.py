"""Workflow commands, step outputs and the job summary, as the runner reads them."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.ci.emulator import parse_output_file

from thresher.ci.commands import (
    MAX_ANNOTATIONS_PER_LEVEL,
    MAX_SUMMARY_BYTES,
    Annotation,
    Level,
    RunnerFileError,
    append_summary,
    cap_annotations,
    escape_data,
    escape_property,
    fit,
    output_block,
    write_outputs,
)


def test_data_and_properties_are_escaped_as_github_documents() -> None:
    assert escape_data("100% done\r\nnext") == "100%25 done%0D%0Anext"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    # '%' first: an escape sequence already in the text is not read back as one.
    assert escape_data("%0A") == "%250A"


def test_a_hostile_path_or_message_cannot_end_the_annotation_or_start_a_command() -> None:
    annotation = Annotation(
        Level.ERROR,
        title="t::x,y",
        message="line one\n::warning::forged\r\n%0A",
        file="src/a,line=1::b.py\n::set-output name=x::y",
        line=7,
    )
    command = annotation.command()
    assert "\n" not in command and "\r" not in command
    assert command.startswith("::error file=src/a%2Cline=1%3A%3Ab.py%0A%3A%3Aset-output")
    props, _, message = command.removeprefix("::error ").partition("::")
    assert props.split(",") == [
        "file=src/a%2Cline=1%3A%3Ab.py%0A%3A%3Aset-output name=x%3A%3Ay",
        "line=7",
        "title=t%3A%3Ax%2Cy",
    ]
    assert message == "line one%0A::warning::forged%0D%0A%250A"


def test_annotations_are_capped_per_level_with_a_note_of_what_was_left_out() -> None:
    errors = [Annotation(Level.ERROR, f"e{i}", "m", "a.py", i + 1) for i in range(13)]
    warnings = [Annotation(Level.WARNING, f"w{i}", "m", "a.py", i + 1) for i in range(3)]
    capped = cap_annotations(errors + warnings)
    assert [a.title for a in capped.shown] == [f"e{i}" for i in range(10)] + ["w0", "w1", "w2"]
    assert capped.omitted[Level.ERROR] == 3 and capped.omitted_total == 3
    lines = capped.lines()
    assert len(lines) == MAX_ANNOTATIONS_PER_LEVEL + 3 + 1
    assert lines[-1].startswith("::notice title=thresher::3 error annotation(s) not shown")
    assert cap_annotations(warnings).note() is None


def test_outputs_use_a_fresh_random_delimiter_the_value_cannot_close() -> None:
    value = "line\nghadelimiter_forged\nexit-code=0"
    first, second = output_block("x", value), output_block("x", value)
    assert first != second  # a new delimiter each time
    delimiter = first.splitlines()[0].partition("<<")[2]
    assert delimiter.startswith("ghadelimiter_") and len(delimiter) > 30
    assert parse_output_file(first) == {"x": value}
    with pytest.raises(ValueError, match="delimiter"):
        output_block("x", "a\nEOF\n", delimiter="EOF")
    with pytest.raises(ValueError, match="output name"):
        output_block("bad name<<", "v")


def test_outputs_are_appended_and_read_back_as_the_runner_does(tmp_path: Path) -> None:
    path = tmp_path / "output"
    path.write_text("earlier=step\n")
    write_outputs(path, {"findings": "2", "sarif": "out dir/thresher.sarif", "empty": ""})
    assert parse_output_file(path.read_text()) == {
        "earlier": "step",
        "findings": "2",
        "sarif": "out dir/thresher.sarif",
        "empty": "",
    }
    with pytest.raises(RunnerFileError, match="GITHUB_OUTPUT"):
        write_outputs(tmp_path / "missing" / "output", {"a": "b"})


def test_the_job_summary_stays_under_one_mebibyte_with_a_note(tmp_path: Path) -> None:
    summary = tmp_path / "summary"
    row = "| 🔴 | rule | path/to/file.py:1 | ghp_…abc (40 chars) | TRUE_POSITIVE |\n"
    append_summary(summary, "# head\n" + row * 30_000)  # ~2 MiB of table
    text = summary.read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= MAX_SUMMARY_BYTES
    assert text.startswith("# head\n") and text.rstrip().endswith("every decision.")
    assert "1 MiB job-summary limit" in text
    small = tmp_path / "small"
    append_summary(small, "all fine\n")
    assert small.read_text() == "all fine\n"


def test_fit_cuts_at_whole_lines_by_bytes_or_characters() -> None:
    text = "ééé\n" * 10  # 7 bytes, 4 characters per line
    assert fit(text, 1000, "cut") == text
    by_bytes = fit(text, 40, "cut")
    assert len(by_bytes.encode()) <= 40 and by_bytes.endswith("\n\ncut\n")
    assert all(line in {"ééé", "", "cut"} for line in by_bytes.splitlines())
    by_chars = fit(text, 20, "cut", measure="chars")
    assert len(by_chars) <= 20 and by_chars.startswith("ééé\nééé")
