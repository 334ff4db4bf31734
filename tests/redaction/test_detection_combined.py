"""Detection gates its rules on short texts, by one pass of the rule set or, when the
set cannot tell, by the rules combined a few to a pattern: either way it finds exactly
what every rule run on its own finds."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from tests.redaction.test_redaction_detection import FORMATS, PLUGIN_SAMPLES, pem, rand
from thresher.redaction.detector import _COMBINED_MAX_BYTES, Detector
from thresher.resources import AssetKind, asset_dir
from thresher.scan.assess import is_public_word

_FILLER = [
    "",
    "def connect(host, port):",
    "    return Client(host=host, port=port)",
    "password = get_password()",
    'token: "${{ secrets.TOKEN }}"',
    "# Ünïcödé prose — with a dash and 日本語",
    "sha = 0123456789abcdef0123456789abcdef01234567",
    "[REDACTED:github-token:3f2a] and …Xk2 (40 chars)",
    "x" * 300,
]


def _lines(rng: random.Random) -> list[str]:
    samples = [body for _, body in PLUGIN_SAMPLES.values()]
    values = [value for _, value, _ in FORMATS]
    lines: list[str] = []
    for _ in range(rng.randint(1, 30)):
        pick = rng.random()
        if pick < 0.2:
            lines.extend(rng.choice(samples).splitlines())
        elif pick < 0.35:
            lines.append(f"client = connect({rng.choice(values)!r})")
        elif pick < 0.4:
            lines.extend(pem(rng.randrange(1000)).splitlines())
        elif pick < 0.5:
            lines.append(f"api_key = '{rand(rng.randint(6, 40), rng.randrange(1000))}'")
        else:
            lines.append(rng.choice(_FILLER))
    return lines


def _every_rule(detector: Detector) -> Detector:
    """The detector with no gate: each rule runs on every text, the slow path."""
    slow = _without_set(detector)
    slow._combined = None
    return slow


def _without_set(detector: Detector) -> Detector:
    """The detector gated by its combined patterns only (the rule set did not compile)."""
    other = Detector.__new__(Detector)
    other.__dict__.update(detector.__dict__)
    other._set = None
    return other


class _FailingSet:
    """A rule set whose search fails as RE2's does when its DFA runs out of memory:
    no pattern reported, not even the one that matches every text."""

    def Match(self, data: bytes) -> list[int]:  # RE2's name
        return []


def test_a_failed_rule_set_search_falls_back_to_the_combined_patterns() -> None:
    detector = Detector(is_public=is_public_word)
    failing = _without_set(detector)
    failing._set = _FailingSet()
    text = f"api_key = '{rand(32, 7)}'\n" + pem(3).splitlines()[1]
    assert detector.find(text) == failing.find(text) == _every_rule(detector).find(text)
    assert detector.find(text)  # something to find, or the test proves nothing


@pytest.mark.slow
@pytest.mark.parametrize("custom", [(), (("acme-key", r"acme_[a-z0-9]{16}"),)])
def test_combined_rules_find_what_each_rule_finds(custom: tuple[tuple[str, str], ...]) -> None:
    """Generated code and configuration, short and long, of every plugin's shape and the
    provider formats, with and without a custom rule in front."""
    detector = Detector(custom, is_public=is_public_word)
    slow, no_set = _every_rule(detector), _without_set(detector)
    rng = random.Random(len(custom))
    combined = 0
    for _ in range(400):
        lines = _lines(rng)
        if custom and rng.random() < 0.3:
            lines.append(f"ACME = acme_{rand(16, rng.randrange(1000), 'abcdef0123456789')}")
        text = "\n".join(lines[: rng.randint(1, len(lines))])
        assert detector.find(text) == slow.find(text)
        # Cut to the gated path's bound, anywhere: inside a value, a key block, a line.
        short = text[: rng.randint(1, _COMBINED_MAX_BYTES)]
        combined += len(short.encode("utf-8", errors="replace")) <= _COMBINED_MAX_BYTES
        assert detector.find(short) == slow.find(short) == no_set.find(short)
    assert combined >= 300  # most of the cut texts took the combined path


def test_combined_rules_pass_the_bundled_texts_as_each_rule_does() -> None:
    """The skills and prompts, in pieces of twelve lines and line by line: each line is
    short enough to run combined."""
    detector = Detector(is_public=is_public_word)
    slow = _every_rule(detector)
    for kind in (AssetKind.SKILLS, AssetKind.PROMPTS):
        for path in sorted(Path(asset_dir(kind)).rglob("*.md")):
            lines = path.read_text(encoding="utf-8").splitlines()
            for start in range(0, len(lines), 12):
                text = "\n".join(lines[start : start + 12])
                assert detector.find(text) == slow.find(text), (path, start)
                for line in lines[start : start + 12]:  # one line: short enough to combine
                    assert detector.find(line) == slow.find(line), (path, line)


def test_short_texts_without_an_operator_skip_only_rules_that_cannot_match_them() -> None:
    """The keyword and assignment rules are not run on a short text holding neither ":"
    nor "=" (an id, a path): no match of theirs can lie in one. Texts built of their own
    words, quotes and values, with every other separator, find nothing in them."""
    from thresher.redaction.detector import _UNGATED

    detector = Detector(is_public=is_public_word)
    assert detector._operated  # the default rules are all known to need an operator
    ungated = [c for c in detector._rules if c.rule.kind in _UNGATED]
    assert {c.rule.slug for c in ungated} == {
        "url-password",
        "authorization-header",
        "secret-keyword",
    }
    slow = _every_rule(detector)
    rng = random.Random(11)
    words = [
        "password", "API_KEY", "db_pass", "Authorization", "Bearer", "token", "https",
        "user", "@host", "//", "'", '"', "]", " ", "\t", "-", "_", ".", "/", ";", ",", "(",
        "secret_key", "credentials", "passphrase", "basic", rand(24, 3), rand(40, 5),
    ]  # fmt: skip
    for _ in range(3000):
        text = "".join(rng.choice(words) for _ in range(rng.randint(1, 12)))
        data = text.encode()
        assert b":" not in data and b"=" not in data
        assert not any(c.regex.search(data) for c in ungated), text
        assert detector.find(text) == slow.find(text)
