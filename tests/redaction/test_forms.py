"""``Redactor.hides``: when it says a value cannot be on a line once the text holding
the line is redacted, no redaction of any such text leaves the value there -- checked
against the redactor itself on lines built to trip it (forms already in the line,
values glued to provider prefixes, to other secrets, to slugs)."""

from __future__ import annotations

import random

from tests.tokens import github_token, random_secret
from thresher.redaction.detector import Detector
from thresher.redaction.forms import hides, redact_value, redaction_token
from thresher.redaction.redactor import Redactor


def _redactor(*values: str) -> Redactor:
    return Redactor(values, detector=Detector([]))


def _pieces(rng: random.Random, value: str) -> list[str]:
    other = github_token(seed=rng.randint(0, 10**6))
    return [
        value,
        value,
        value[: rng.randint(1, len(value))],
        value[rng.randint(0, len(value) - 1) :],
        other,
        "ghp_",
        "gh",
        "sk-",
        "AKIA",
        "-----BEGIN ",
        redact_value(other),
        redaction_token("github-token", other),
        "[REDACTED:",
        "password = ",
        'token: "',
        '"',
        " ",
        "x",
        "=",
        "(40 chars)",
        random_secret(rng.randint(4, 30), seed=rng.randint(0, 10**6)),
    ]


def _line(rng: random.Random, value: str) -> str:
    pieces = _pieces(rng, value)
    return "".join(rng.choice(pieces) for _ in range(rng.randint(1, 8)))


def test_a_value_hidden_by_the_forms_is_on_no_redacted_line() -> None:
    checked = sum(_checked(seed) for seed in range(40))
    assert checked >= 400  # the property was exercised, not skipped


def _checked(seed: int) -> int:
    """Lines ``hides`` vouched for, each checked against the redactor: how many."""
    rng = random.Random(seed)
    length = rng.choice([4, 6, 9, 12, 20, 40])
    value = rng.choice(
        [
            random_secret(length, seed=seed),
            github_token(seed=seed),
            "ghp_" + random_secret(length, seed=seed),
            random_secret(length, seed=seed).lower() + "sk",
            "k2" + random_secret(length, seed=seed) + "AK",
        ]
    )
    checked = 0
    for _ in range(60):
        redactor = _redactor(value, *(random_secret(16, seed=rng.randint(0, 99)) for _ in range(2)))
        lines = [_line(rng, value) for _ in range(rng.randint(1, 5))]
        number = rng.randrange(len(lines))
        if not redactor.hides(value, lines[number]):
            continue
        checked += 1
        shown = redactor.text("\n".join(lines)).split("\n")
        assert len(shown) == len(lines)
        assert value not in shown[number], (value, lines[number], shown[number])
    return checked


def test_what_it_cannot_show_it_says_it_cannot() -> None:
    value = random_secret(20, seed=3)
    redactor = _redactor(value)
    assert redactor.hides(value, f"token = {value}")
    assert not redactor.hides(value, f"token = {value} [REDACTED:key:1a2b]")  # a form already
    assert not redactor.hides("not-known-value-123", "x = not-known-value-123")  # not a candidate
    short = "Zq7wP"
    assert not _redactor(short).hides(short, f"x{short}y = 1")  # inside a word: not redacted there
    assert _redactor(short).hides(short, f"x = {short}")
    slug = "generic-api-key-value"
    assert not hides(
        slug, f"x = {slug}", frozenset({"generic-api-key-value-x"})
    )  # inside a token's slug
    glued = "Qm9vZ2xlQ29vZ2xlghp_"  # ends where a provider prefix may begin
    assert not _redactor(glued).hides(glued, f"Qm9vZ2xlQ29vZ2xl {glued}")
    assert hides("a\nb", "anything", frozenset())  # a line holds no line break
    assert not hides("(40 chars)x", "x", frozenset())  # a form's own characters


def test_a_redactor_given_an_odd_form_does_not_say() -> None:
    value = random_secret(20, seed=5)
    redactor = _redactor(value)
    redactor.add(random_secret(20, seed=6), "<hidden>")
    assert not redactor.hides(value, f"token = {value}")
