"""``searchable_utf8`` is ``searchable`` in UTF-8, with or without lone surrogates."""

from __future__ import annotations

import pytest

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
