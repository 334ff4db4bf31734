"""The config parser without a regex per line finds the lines detect-secrets' finds."""

from __future__ import annotations

import random
import re
from typing import Any

from detect_secrets.transformers.config import ConfigFileTransformer, EagerConfigFileTransformer
from detect_secrets.transformers.exceptions import ParsingError

from thresher.findings.config_lines import first_line_matches, is_config, parse_config
from thresher.findings.engine import _NamedText

_PIECES = [" ", ":", "=", "a", "b", "\t", "\u2003", "k", "==", ".", "*"]
_LINES = [
    "", "[a]", "[global]", "key = value", "key: value", "key", "  continued", "  more value",
    "# comment", "; comment", "password = hunter2", "password = 'quoted'", 'token: "q"',
    "# pragma: allowlist nextline secret", "k == v", "k =  = v", "long = " + "x" * 300,
    "é = ü", "a.b = c*d", "k=", "  [not a section]",
]  # fmt: skip


def _regex(line: str, key: str, value: str) -> bool:
    pattern = rf"^\s*{re.escape(key)}[ :=]+{re.escape(value)}"
    return re.compile(pattern).match(line) is not None


def test_the_first_line_test_answers_as_the_regex_does() -> None:
    rng = random.Random(5)
    for _ in range(20_000):
        key = "".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 3)))
        value = "".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 3)))
        line = "".join(rng.choice(_PIECES) for _ in range(rng.randint(0, 9)))
        assert first_line_matches(line, key, value) == _regex(line, key, value)


def _lines(parse: Any, text: str) -> list[str] | str:
    try:
        return list(parse(_NamedText(text, "settings.cfg")))
    except ParsingError:
        return "ParsingError"


def test_both_config_transformers_give_detect_secrets_lines() -> None:
    rng = random.Random(8)
    texts = ["[a]\nk = v\n", "k = v\n", "[a]\nk =\n  one\n\n  two\n# c\nj = 2\n"]
    texts += ["\n".join(rng.choice(_LINES) for _ in range(rng.randint(1, 10))) for _ in range(800)]
    parsed = 0
    for transformer in (ConfigFileTransformer(), EagerConfigFileTransformer()):
        assert is_config(transformer)
        for text in texts:
            expected = _lines(transformer.parse_file, text)
            got = _lines(lambda handle, t=transformer: parse_config(t, handle), text)
            assert got == expected, text
            parsed += expected != "ParsingError"
    assert parsed > 100  # the texts reach the line search, not only the parse errors
