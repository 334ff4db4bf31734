"""The tokens' proof that a line is outside every docstring: never wrong where the
parser finds one, and the parser still asked wherever the tokens cannot tell."""

from __future__ import annotations

from pathlib import Path

import pytest

from thresher.scoring import docstrings
from thresher.scoring.docstrings import LogicalLines, docstring_lines
from thresher.scoring.lines import LineReader

_TRICKY = (
    '"""Module docstring\n'  # 1
    'password = "in the module docstring"\n'  # 2
    '"""\n'  # 3
    "import os  # a comment with a quote ' and a bracket (\n"  # 4
    "\n"  # 5
    "CONFIG = '''\n"  # 6
    "password = not a docstring, a template\n"  # 7
    "'''\n"  # 8
    "client = Client(\n"  # 9
    '    api_key="sk-not-a-docstring",  # ) ] }\n'  # 10
    ")\n"  # 11
    "def f(a,\n"  # 12
    '      b): "one-line docstring after a split header"\n'  # 13
    "class A:\n"  # 14
    "    (\n"  # 15
    '        "a parenthesised"\n'  # 16
    "        # a comment inside it\n"  # 17
    '        "docstring"\n'  # 18
    "    )\n"  # 19
    "    token = 'x'\n"  # 20
    "def g():\n"  # 21
    '    r"""raw docstring \\""" still open\n'  # 22
    '    token = value"""\n'  # 23
    "x = 1 + \\\n"  # 24
    "    2\n"  # 25
    "def h(): 'docstring'; secret = 'y'\n"  # 26
    "s = 'escaped \\\n"  # 27
    "still the string'\n"  # 28
    "if x: 'not a docstring'\n"  # 29
    "async def i():\n"  # 30
    "    '''async docstring'''\n"  # 31
)


def _proven(source: str) -> tuple[set[int], frozenset[int]]:
    lines = source.split("\n")
    logical = LogicalLines(lines)
    proven = {n for n in range(len(lines) + 2) if logical.outside_docstrings(n)}
    return proven, docstring_lines(lines)


def test_no_line_proven_outside_is_a_docstring_line() -> None:
    proven, found = _proven(_TRICKY)
    assert found == {1, 2, 3, 13, 15, 16, 17, 18, 19, 22, 23, 26, 31}
    assert not proven & found
    # Code, templates, call arguments, continuations, blank and comment lines: proven.
    # An ``if``'s string is no docstring: its body is no docstring's owner.
    assert proven == {4, 5, 6, 7, 8, 9, 10, 11, 20, 24, 25, 27, 28, 29, 32}
    # A header's line (a docstring may follow on it): not proven.
    assert not {12, 14, 21, 30} & proven


def test_lines_proven_in_any_order_agree() -> None:
    lines = _TRICKY.split("\n")
    forwards, backwards = LogicalLines(lines), LogicalLines(lines)
    numbers = range(len(lines) + 1)
    assert [forwards.outside_docstrings(n) for n in numbers] == [
        backwards.outside_docstrings(n) for n in reversed(numbers)
    ][::-1]


def test_a_long_statement_is_walked_back_through_checkpoints() -> None:
    body = "".join(f'    "key{i}": "value{i}",\n' for i in range(300))
    source = f'"""doc"""\nSETTINGS = {{\n{body}}}\ndef f():\n    """doc"""\n'
    proven, found = _proven(source)
    assert set(range(2, 304)) <= proven
    assert not proven & found


def test_a_file_that_does_not_parse_has_no_docstring_whatever_is_proven(
    tmp_path: Path,
) -> None:
    for number, source in enumerate(('"""open\npassword = x', "x = (\n'open\n", "a = 1\x00\n")):
        (tmp_path / f"m{number}.py").write_text(source)
        reader = LineReader(tmp_path)
        assert not any(reader.in_docstring(f"m{number}.py", n) for n in range(5))


def test_f_strings_are_left_to_the_parser_where_their_fields_nest_quotes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """From Python 3.12 an f-string's fields may hold its own quotes."""
    monkeypatch.setattr(docstrings, "_NESTING_PREFIX", frozenset("fFtT"))
    lines = ['x = f"{a}"', "password = 'y'"]
    assert not LogicalLines(lines).outside_docstrings(2)
    assert LogicalLines(["x = b'a'", "password = 'y'"]).outside_docstrings(2)


def test_the_reader_gives_what_the_parser_gives(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(_TRICKY)
    reader = LineReader(tmp_path)
    found = docstring_lines(_TRICKY.split("\n"))
    assert {n for n in range(40) if reader.in_docstring("m.py", n)} == found
