"""The config parser is passed over only where it fails: the lines are detect-secrets'."""

from __future__ import annotations

import random
from typing import Any

import pytest
from detect_secrets.transformers import get_transformed_file, get_transformers
from detect_secrets.transformers.exceptions import ParsingError

from thresher.findings import formats
from thresher.findings.engine import _NamedText

_LINES = [
    "", "   ", "# comment", "  ; comment", "[section]", "  [indented]", "[]", "[a] tail",
    "key = value", "key: value", "key", "  continued", "\tcontinued = x", "= empty key",
    ": empty", "a=b=c", "x := y", "import os", "}", "{", "\x0bkey = v", "\u3000key = v",
    "é = 1", "password = hunter2", "# pragma: allowlist nextline secret", "[global]",
    "url = http://x:y@z", "\r", "k = 'quoted'", 'k = "quoted"', "k = %(other)s", "k = 50%",
]  # fmt: skip


def _texts() -> list[str]:
    rng = random.Random(3)
    texts = ["", "\n", "[a]\nk = v\n", "k = v\n", "# c\n\n[a]\nk = v", "key\n", "  [a]\nk=v"]
    for _ in range(3000):
        texts.append("\n".join(rng.choice(_LINES) for _ in range(rng.randint(1, 8))))
    return texts


def _parses(transformer: Any, text: str) -> bool:
    try:
        transformer.parse_file(_NamedText(text, "config.txt"))
    except ParsingError:
        return False
    return True


def test_a_config_parser_proven_to_fail_fails() -> None:
    proved = 0
    for text in _texts():
        for transformer in get_transformers():
            if formats.config_fails(transformer, text):
                proved += 1
                assert not _parses(transformer, text), (type(transformer).__name__, text)
    assert proved > 1000  # the proof does answer, not only stay silent


@pytest.mark.parametrize("name", ["config.txt", "settings.ini", "values.yaml", "app.py"])
def test_the_transformed_lines_are_detect_secrets_own(name: str) -> None:
    for text in _texts()[:800]:
        for eager in (False, True):
            expected = get_transformed_file(_NamedText(text, name), use_eager_transformers=eager)
            got = formats.transformed(_NamedText(text, name), text, eager=eager)
            assert got == expected, (name, eager, text)


def test_another_parser_release_is_always_run(monkeypatch: pytest.MonkeyPatch) -> None:
    formats._known_config_sources.cache_clear()
    monkeypatch.setitem(formats._CONFIG_SOURCES, "detect_secrets.transformers.config", "0" * 16)
    try:
        assert not any(formats.config_fails(t, "import os\n") for t in get_transformers())
    finally:
        monkeypatch.undo()
        formats._known_config_sources.cache_clear()
    assert any(formats.config_fails(t, "import os\n") for t in get_transformers())
