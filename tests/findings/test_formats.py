"""Which texts the format parsers may read: the RE2 count of blank runs is Python's."""

from __future__ import annotations

import random

import pytest

from thresher.findings.formats import _BLANK_RUN, PARSE_BUDGET, parsable

_BLANKS = [" ", "\t", "\x0b", "\x0c", "\r", "\x1c", "\x85", "\xa0", "\u2028", "\u3000"]
_OTHER = ["x", "\n", "é", "\ud800", "\u0663", "#", "\n\n"]


pytestmark = pytest.mark.slow


def _reference(text: str) -> bool:
    """The Python regex the RE2 pass replaces, summed the same way."""
    cost = 0
    for run in _BLANK_RUN.finditer(text):
        cost += (run.end() - run.start()) ** 2
        if cost > PARSE_BUDGET:
            return False
    return True


def test_parsable_answers_as_the_python_regex() -> None:
    rng = random.Random(5)
    answers = set()
    for _ in range(300):
        parts: list[str] = []
        for _ in range(rng.randint(1, 40)):
            if rng.random() < 0.5:
                blanks = _BLANKS if rng.random() < 0.5 else [" "]
                length = rng.choice([1, 63, 64, 65, 500, 2000, 4473, 4475])
                parts.append("".join(rng.choice(blanks) for _ in range(length)))
            else:
                parts.append(rng.choice(_OTHER) * rng.randint(1, 3))
        text = "".join(parts)
        answers.add(parsable(text))
        assert parsable(text) == _reference(text), text[:80]
    assert answers == {True, False}
    assert parsable(" " * 4472) and not parsable(" " * 4473)  # 4473**2 > 20,000,000


def test_an_ascii_text_without_a_long_run_is_answered_as_the_python_regex_does() -> None:
    """An ASCII text is first looked at with its blanks as spaces: a text with no run
    long enough is parsable at once, and the answer stays the regex's."""
    rng = random.Random(7)
    ascii_blanks = [" ", "\t", "\x0b", "\x0c", "\r", "\x1c", "\x1d", "\x1e", "\x1f"]
    answers = set()
    for _ in range(400):
        parts: list[str] = []
        for _ in range(rng.randint(1, 30)):
            if rng.random() < 0.5:
                length = rng.choice([1, 62, 63, 64, 65, 4473])
                parts.append("".join(rng.choice(ascii_blanks) for _ in range(length)))
            else:
                parts.append(rng.choice(["x", "\n", "#", "ab"]) * rng.randint(1, 3))
        text = "".join(parts)
        answers.add(parsable(text))
        assert parsable(text) == _reference(text), text[:80]
    assert answers == {True, False}
    assert parsable(" " * 63 + "\t")  # one run of 64: counted, far within the budget
