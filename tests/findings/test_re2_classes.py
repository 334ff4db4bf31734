"""``searchable_utf8`` is ``searchable`` in UTF-8, with or without lone surrogates."""

from __future__ import annotations

import pytest

from thresher.findings.re2_classes import searchable, searchable_utf8


@pytest.mark.parametrize(
    "text",
    ["", "ascii only\n", "caf\u00e9 \u212a \U0001f511", "a\ud800b", "\udfff", "x\ud83d\ude00y"],
)
def test_searchable_utf8_is_the_searchable_text_encoded(text: str) -> None:
    assert searchable_utf8(text) == searchable(text).encode()
