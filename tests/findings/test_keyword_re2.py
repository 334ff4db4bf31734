"""``findings.keyword_re2``: the keyword plugin's RE2 twins find what its regexes find."""

from __future__ import annotations

import random
from typing import Any

import pytest
from detect_secrets.plugins.keyword import KeywordDetector

from tests.findings.test_triggers import _FILENAMES, _regexes, _variants
from thresher.findings.keyword_re2 import Twin, keyword_lines, twins
from thresher.findings.textpass import hit_lines

_LINES = (
    'password = "Xq7pLm2vRt9sKw"',
    "api_key: 'a1b2c3d4e5f6g7h8'",
    'const secret = "caf\u00e9-Xq7pLm2vRt9s"',  # not ASCII: the public search
    "nothing to see here",
    "token=",
)


class _PublicOnly:
    """A compiled program as a google-re2 release without the private names shows it."""

    def __init__(self, program: Any) -> None:
        self._inner = program
        self.groups = program.groups

    def search(self, text: str) -> Any:
        return self._inner.search(text)


def test_a_release_without_the_private_match_searches_through_the_public_one() -> None:
    found = twins()
    if not found:
        pytest.skip("this detect-secrets release has no rewritten keyword regexes")
    for original, twin in found.items():
        public = Twin(original, _PublicOnly(twin._program))
        for line in _LINES:
            fast, slow = twin.search(line), public.search(line)
            assert (fast and fast.group(1)) == (slow and slow.group(1)), (original.pattern, line)


_WORDS = [
    "password", "PassWord", "secret", "api_key", "db_pass", "token", "pwd", "=", "==", "!==",
    ":", ":=", "=>", ";", ",", '"', "'", "`", "(", ")", "[", "]", "[12]", "@", ".assign",
    "x", "Z9", "_", "-", ".", "   ", "\t", "\x1c", "\x0b", "hunter2", "Kelvin",
]  # fmt: skip


def _lines(plugin: KeywordDetector, rng: random.Random) -> list[str]:
    """Lines built from the plugin's own patterns, then from its words at random."""
    lines: list[str] = []
    for pattern in _regexes(plugin):
        lines += _variants(pattern, rng, 40)
    lines += ["".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 10))) for _ in range(3000)]
    return lines


def test_the_keyword_line_check_holds_wherever_the_plugin_reports() -> None:
    check = keyword_lines()
    if check is None:
        pytest.skip("this detect-secrets release has no rewritten keyword regexes")
    plugin = KeywordDetector()
    lines = _lines(plugin, random.Random(31))
    reported = rejected = 0
    for line in lines:
        found = any(plugin.analyze_line(filename=name, line=line) for name in _FILENAMES)
        if found:
            assert check.search(line), line
            reported += 1
        elif line.isascii() and not check.search(line):
            rejected += 1
    assert reported > 500
    assert rejected > 500  # most lines naming a keyword assign nothing to it
    # A line that is not ASCII is always handed to the plugin.
    assert check.search("caf\u00e9 nothing here")


def test_the_text_search_hits_every_line_the_line_check_passes() -> None:
    """The prefilter reads a file's lines in one pass of ``text`` instead of the keyword
    trigger and a check per line: it must find every line that check passes."""
    check = keyword_lines()
    if check is None or check.text is None:
        pytest.skip("no rewritten keyword regexes, or no private Match")
    lines = _lines(KeywordDetector(), random.Random(37))
    # As a file's lines are read: each ends with its newline, none holds another.
    read = [line + "\n" for line in lines if line.isascii() and "\n" not in line]
    data = "\n".join(read).encode("ascii")
    starts = [0]
    for line in read[:-1]:
        starts.append(starts[-1] + len(line) + 1)
    hit = set(hit_lines(check.text.first, data, starts))
    passed = {index for index, line in enumerate(read) if check.search(line.rstrip())}
    assert len(passed) > 100
    assert hit == passed  # every line the check passes, and no other (``never_nl``)


def test_an_ascii_line_finds_with_the_ascii_program_what_the_full_one_finds() -> None:
    """A twin searches an ASCII line with its classes cut down to ASCII: the same
    secret as its program with every class whole finds."""
    found = twins()
    if not found:
        pytest.skip("this detect-secrets release has no rewritten keyword regexes")
    lines = [line for line in _lines(KeywordDetector(), random.Random(43)) if line.isascii()]
    hits = 0
    for original, twin in found.items():
        public = Twin(original, _PublicOnly(twin._program))
        for line in lines:
            fast, slow = twin.search(line), public.search(line)
            assert (fast and fast.group(1)) == (slow and slow.group(1)), (original.pattern, line)
            hits += fast is not None
    assert hits > 100
