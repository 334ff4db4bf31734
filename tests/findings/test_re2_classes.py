"""``searchable_utf8`` is ``searchable`` in UTF-8; the stored character classes are what
this Python computes, and are computed where none are stored for it."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from thresher.findings import re2_classes
from thresher.findings.re2_classes import compile_re2, hits, searchable, searchable_utf8


@pytest.mark.parametrize(
    "text",
    ["", "ascii only\n", "caf\u00e9 \u212a \U0001f511", "a\ud800b", "\udfff", "x\ud83d\ude00y"],
)
def test_searchable_utf8_is_the_searchable_text_encoded(text: str) -> None:
    assert searchable_utf8(text) == searchable(text).encode()


class _PublicOnly:
    """A compiled program as a google-re2 release without the private ``Match`` shows it."""

    def __init__(self, program: object) -> None:
        self._inner = program

    def search(self, text: str) -> object:
        return self._inner.search(text)  # type: ignore[attr-defined]


@pytest.mark.parametrize("text", ["", "v1.2.3", "x = 1.2.3;", "caf\u00e9 1.2.3", "none here"])
def test_hits_answers_as_search_with_or_without_the_private_match(text: str) -> None:
    program = compile_re2(r"^v?[0-9]+\.[0-9]+\.[0-9]+$|1\.2")
    expected = program.search(text) is not None
    assert hits(program, text) == expected
    assert hits(_PublicOnly(program), text) == expected


def test_the_stored_classes_are_what_this_python_computes() -> None:
    # The stored tables stand in for a pass over every code point; they are only read
    # on the Python that computed them, and must be what it computes.
    stored = json.loads(
        resources.files("thresher.findings").joinpath(re2_classes.KNOWN_FILE).read_text("utf-8")
    )
    if stored["python"] != re2_classes.python_key():
        assert re2_classes._known() == {}
        pytest.skip(f"tables stored for {stored['python']}, not this Python")
    assert re2_classes.known_tables() == stored
    assert re2_classes._known() == stored


def test_without_stored_tables_the_classes_are_enumerated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    pattern, letters = r"\w", "ks\u00f1"
    stored = (re2_classes.python_class(pattern), re2_classes.folded_letters(letters))
    re2_classes.python_class.cache_clear()
    re2_classes.folded_letters.cache_clear()
    monkeypatch.setattr(re2_classes, "_known", dict)
    try:
        enumerated = (re2_classes.python_class(pattern), re2_classes.folded_letters(letters))
    finally:
        re2_classes.python_class.cache_clear()
        re2_classes.folded_letters.cache_clear()
    assert enumerated == stored
    # The Kelvin sign is a k, the long s an s, to Python's case-insensitive ``re``.
    assert "\\x{212a}" in enumerated[1]["k"] and "\\x{17f}" in enumerated[1]["s"]


def test_the_stored_tables_are_not_read_on_another_python(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    re2_classes._known.cache_clear()
    monkeypatch.setattr(re2_classes, "python_key", lambda: "another python")
    try:
        assert re2_classes._known() == {}
    finally:
        monkeypatch.undo()
        re2_classes._known.cache_clear()


def test_a_texts_encoded_forms_are_made_once_and_only_for_that_text() -> None:
    from thresher.findings.re2_classes import Encoded, searchable_utf8

    for text in ["Password = 'X'\n", "caf\u00e9 K\u212a \ud800 API_KEY", ""]:
        forms = Encoded(text)
        assert forms.utf8 == searchable_utf8(text)
        assert forms.lowered == searchable_utf8(text).lower()
        assert forms.utf8 is forms.utf8 and forms.lowered is forms.lowered  # made once
        assert forms.of(text) is forms
        assert forms.of(text + "x") is None  # another text: its own forms are made


def test_a_set_of_patterns_says_which_match_or_that_it_cannot_tell() -> None:
    from thresher.findings.re2_classes import RE2Set

    patterns = RE2Set([r"\bkey\b", r"to+ken", r"^x$"])
    assert patterns.ready
    assert sorted(patterns.which(b"a key and a toooken") or []) == [0, 1]
    assert patterns.which(b"x") == [2]
    assert patterns.which("nothing here") == []  # none match: an answer, not "unknown"
    assert RE2Set([r"(unclosed"]).which(b"unclosed") is None  # never compiled
