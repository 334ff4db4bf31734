"""The prefilter's own guarantees, checked mechanically."""

from __future__ import annotations

import math
import random
import re
import string
from pathlib import Path
from re import _constants as C  # type: ignore[attr-defined]
from re import _parser  # type: ignore[attr-defined]

import pytest
from detect_secrets.plugins import keyword
from detect_secrets.plugins.high_entropy_strings import (
    Base64HighEntropyString,
    HexHighEntropyString,
    HighEntropyStringsPlugin,
)
from detect_secrets.plugins.keyword import KeywordDetector
from detect_secrets.settings import get_plugins

from thresher.findings import triggers
from thresher.findings.engine import detect_secrets_session
from thresher.findings.haystacks import fold
from thresher.findings.triggers import Prefilter, min_entropy_length


def test_every_default_plugin_has_a_trigger_for_this_detect_secrets() -> None:
    """A detect-secrets release that changes a plugin's regexes switches that
    plugin to every-line scanning; this says the installed one is analysed."""
    with detect_secrets_session():
        assert Prefilter(get_plugins()).complete


def test_fold_keeps_length_and_maps_every_case_insensitive_match() -> None:
    # The alphabet of the lower-cased triggers; every code point that Python's
    # case-insensitive matching equates with one of them must fold onto it.
    alphabet = sorted(set(string.ascii_lowercase + string.digits + "_-./:=\u00f1"))
    any_of = re.compile("(?i)[" + re.escape("".join(alphabet)) + "]")
    for code in range(0x110000):
        if 0xD800 <= code < 0xE000:
            continue
        char = chr(code)
        folded = fold("\u00e9" + char)[1:]  # non-ASCII text takes the slow path
        assert len(folded) == 1, hex(code)
        if any_of.fullmatch(char):
            for letter in alphabet:
                if re.fullmatch("(?i)" + re.escape(letter), char):
                    assert folded == letter, (hex(code), letter)


def test_entropy_bound() -> None:
    """No string shorter than the bound can exceed the plugin's limit."""
    assert min_entropy_length(4.5) == 23
    assert min_entropy_length(3.0) == 8
    b64, hexa = Base64HighEntropyString(), HexHighEntropyString()
    best_b64 = (string.ascii_letters + string.digits)[:22]
    assert b64.calculate_shannon_entropy(best_b64) <= 4.5
    assert hexa.calculate_shannon_entropy("0123456") <= 3.0
    assert math.log2(22) < 4.5


def test_lines_without_any_trigger_are_skipped_and_plugins_are_selected() -> None:
    with detect_secrets_session():
        prefilter = Prefilter(get_plugins())
        lines = [
            "import os\n",
            'token = "ghp_' + "a1B2" * 9 + '"\n',
            "def main():\n",
            'password = "hunter22x"\n',
        ]
        kept = prefilter.candidate_lines(lines)
    assert [index for index, _ in kept] == [1, 3]
    names = {index: {type(p).__name__ for p in plugins} for index, plugins in kept}
    assert "GitHubTokenDetector" in names[1]
    assert "KeywordDetector" in names[3]
    assert "GitHubTokenDetector" not in names[3]


def test_the_checks_kept_per_set_of_triggers_change_no_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    lines = [
        'token = "ghp_' + "a1B2" * 9 + '"\n',
        'password = "hunter22x"\n',
        'aws_key = "AKIA' + "A" * 16 + '"  # 10.0.0.1\n',
        'password = "hunter22x"\n',
    ]
    with detect_secrets_session():
        kept = Prefilter(get_plugins())
        first, again = kept.candidate_lines(lines), kept.candidate_lines(lines)
        monkeypatch.setattr(triggers, "_MAX_PLANS", 0)
        unkept = Prefilter(get_plugins())
        assert unkept.candidate_lines(lines) == first == again
        assert not unkept._plans and kept._plans


def test_an_unknown_plugin_disables_the_prefilter() -> None:
    class Custom:
        secret_type = "custom"

    with detect_secrets_session():
        prefilter = Prefilter([*get_plugins(), Custom()])
    assert not prefilter.complete
    assert [i for i, _ in prefilter.candidate_lines(["a\n", "b\n"])] == [0, 1]


# --- Property: wherever a plugin's own analyze_line reports, the prefilter keeps
# the line for that plugin. Lines are generated from the plugins' own regexes.

_POOL = [chr(c) for c in range(32, 127)] + list("\té\u00f1\u00d1\u212a\u017f\u0131\u0130\u0663ß")
_SWAPS = {"k": "\u212a", "K": "\u212a", "s": "\u017f", "S": "\u017f", "i": "\u0131", "I": "\u0130"}


def _category(category: object, char: str) -> bool:
    word = char.isalnum() or char == "_"
    return {
        C.CATEGORY_DIGIT: char.isdecimal(),
        C.CATEGORY_NOT_DIGIT: not char.isdecimal(),
        C.CATEGORY_WORD: word,
        C.CATEGORY_NOT_WORD: not word,
        C.CATEGORY_SPACE: char.isspace(),
        C.CATEGORY_NOT_SPACE: not char.isspace(),
    }.get(category, False)


def _in_class(items: list[tuple[object, object]], char: str) -> bool:
    negate, hit = False, False
    for op, arg in items:
        if op is C.NEGATE:
            negate = True
        elif op is C.LITERAL:
            hit |= ord(char) == arg
        elif op is C.RANGE:
            low, high = arg  # type: ignore[misc]
            hit |= low <= ord(char) <= high
        elif op is C.CATEGORY:
            hit |= _category(arg, char)
    return hit != negate


_CLASS_CACHE: dict[int, tuple[object, list[str]]] = {}  # keeps each class alive: ids stay unique


def _generate(items: object, rng: random.Random, groups: dict[int, str]) -> str:
    out: list[str] = []
    for op, arg in items:  # type: ignore[attr-defined]
        if op is C.LITERAL:
            out.append(chr(arg))
        elif op is C.NOT_LITERAL:
            out.append(rng.choice([c for c in _POOL if ord(c) != arg]))
        elif op is C.ANY:
            out.append(rng.choice(_POOL))
        elif op is C.IN:
            key = id(arg)
            if key not in _CLASS_CACHE:
                _CLASS_CACHE[key] = (arg, [c for c in _POOL if _in_class(arg, c)])
            choices = _CLASS_CACHE[key][1]
            out.append(rng.choice(choices) if choices else "")
        elif op is C.BRANCH:
            out.append(_generate(rng.choice(arg[1]), rng, groups))
        elif op is C.SUBPATTERN:
            group, _, _, sub = arg
            text = _generate(sub, rng, groups)
            if group:
                groups[group] = text
            out.append(text)
        elif op in (C.MAX_REPEAT, C.MIN_REPEAT, C.POSSESSIVE_REPEAT):
            low, high, sub = arg
            count = rng.randint(low, min(high, max(low + 8, 64)))
            out.extend(_generate(sub, rng, groups) for _ in range(count))
        elif op is C.GROUPREF:
            out.append(groups.get(arg, ""))
        elif op is C.ATOMIC_GROUP:
            out.append(_generate(arg, rng, groups))
    return "".join(out)


def _variants(pattern: re.Pattern[str], rng: random.Random, count: int) -> list[str]:
    parsed = _parser.parse(pattern.pattern, pattern.flags)
    found: list[str] = []
    for _ in range(count * 4):
        text = _generate(parsed, rng, {})
        if pattern.flags & re.IGNORECASE and rng.random() < 0.5:
            text = "".join(c.swapcase() if rng.random() < 0.5 else c for c in text)
        if pattern.flags & re.IGNORECASE and rng.random() < 0.3:
            text = "".join(_SWAPS.get(c, c) if rng.random() < 0.3 else c for c in text)
        context = rng.choice(["", " ", "x = ", 'key: "', "(", "a", "\t", "é "])
        line = context + text + rng.choice(["", " ", '"', ";", " # note", "é"])
        if "\n" not in line and pattern.search(line):
            found.append(line)
        if len(found) >= count:
            break
    return found


def _regexes(plugin: object) -> list[re.Pattern[str]]:
    if isinstance(plugin, KeywordDetector):
        tables = [
            *keyword.REGEX_BY_FILETYPE.values(),
            keyword.QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP,
        ]
        return sorted({p for table in tables for p in table}, key=lambda p: p.pattern)
    if isinstance(plugin, HighEntropyStringsPlugin):
        return [plugin.regex]
    return list(getattr(plugin, "denylist", []))


_FILENAMES = ["a.py", "a.go", "a.yaml", "a.cpp", "a.m", "a.txt", "a.ini", "a.java"]


@pytest.mark.slow
def test_generated_matches_of_every_plugin_regex_are_kept() -> None:
    rng = random.Random(1234)
    checked = 0
    with detect_secrets_session():
        plugins = get_plugins()
        prefilter = Prefilter(plugins)
        for plugin in plugins:
            for pattern in _regexes(plugin):
                lines = _variants(pattern, rng, 120)
                noise = ["import os", "x = 1", "def f(): pass"] * len(lines)
                text = [
                    line for pair in zip(lines, noise[: len(lines)], strict=True) for line in pair
                ]
                kept = dict(prefilter.candidate_lines(text))
                names = _FILENAMES if isinstance(plugin, KeywordDetector) else _FILENAMES[:1]
                for index, line in enumerate(text):
                    for filename in names:
                        if not plugin.analyze_line(filename=filename, line=line):
                            continue
                        checked += 1
                        assert plugin in kept.get(index, []), (type(plugin).__name__, line)
    assert checked > 3000


def _every_regex(prefilter: Prefilter, lines: list[str]) -> list[tuple[int, list[object]]]:
    """The prefilter's answer by brute force: each line, each plugin, each exact regex."""
    out: list[tuple[int, list[object]]] = []
    for index, raw in enumerate(lines):
        line = raw.rstrip()
        chosen: list[object] = [
            plugin
            for plugin, group in zip(prefilter.plugins, prefilter._per_plugin, strict=True)
            if group is None or any(c.exact.search(line) for c in group)
        ]
        if chosen:
            out.append((index, chosen))
    return out


_CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "dev" / "files"


@pytest.mark.slow
def test_candidate_lines_are_those_of_every_regex_on_every_line() -> None:
    """Only the plugins whose triggers hit a line are checked there, and the triggers
    with an RE2 form hit the same lines as their Python form: the answer is the
    brute-force one, on generated matches of every plugin regex and on corpus files."""
    rng = random.Random(99)
    with detect_secrets_session():
        plugins = get_plugins()
        prefilter = Prefilter(plugins)
        texts: list[list[str]] = []
        for plugin in plugins:
            for pattern in _regexes(plugin):
                lines = [line + "\n" for line in _variants(pattern, rng, 20)]
                rng.shuffle(lines)
                texts.append([*lines, "import os\n", "x = 1"])
        corpus = sorted(p for p in _CORPUS.rglob("*") if p.is_file()) if _CORPUS.is_dir() else []
        for path in corpus[::7]:
            data = path.read_bytes()
            if len(data) < 200_000 and b"\x00" not in data[:8192]:
                texts.append(data.decode("utf-8", "replace").splitlines(keepends=True))
        run = "aB3_-" * 9
        texts.append(
            [
                f"x = '{run[:30]}\"\n",  # a quoted run between different quotes
                f'y = "{run[:30]}"\n',
                f"{run[:43]}\n",
                f"{run[:44]}\n",
                f"{run[:43]}\n{run[:1]}",  # a run cut by a line break
                "aw\ns api_\nkey 1.2.3\n.4\n",  # triggers cut by line breaks
                "'" + "0123456789abcdef" * 4 + "'",
                # Characters whose UTF-8 length changes when folded, a lone surrogate,
                # a final sigma: the byte offsets of the lines must still be right.
                "\u023a\u0130\u212a\u017f \ud800 \u03a3\u03a3 " + run[:44] + "\n",
                "\u023a" * 50 + " api_key 8.8.8.8 '" + run[:30] + "'\n",
                "\ud800\n",
                "AKIA \u0663\u0663\u0663\u0663\u0663\u0663\u0663\u0663: aws\n",
            ]
        )
        # The same texts with every non-ASCII character replaced.
        texts += [[line.encode("ascii", "replace").decode() for line in t] for t in texts]
        python_only = Prefilter(plugins)
        python_only._linear = [None] * len(python_only._linear)
        python_only._merged, python_only._alone = [], list(range(len(python_only._all)))
        assert any(form is not None for form in prefilter._linear)
        assert prefilter._merged  # some triggers share one pass
        for lines in texts:
            assert prefilter.candidate_lines(lines) == _every_regex(prefilter, lines)
            assert prefilter.candidate_lines(lines) == python_only.candidate_lines(lines)
            # A shared pass flags, on each line it hits, the triggers that match there
            # (``re2_classes.RE2Set``): the lines and triggers of each searched alone.
            assert prefilter._flag(lines) == python_only._flag(lines)
    assert len(texts) > 100


def test_a_binding_without_the_private_match_leaves_the_trigger_on_python(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The RE2 form uses the binding's private ``Match``: a google-re2 release without it
    (or answering differently) must leave every trigger on Python, with the same lines."""
    import thresher.findings.triggers as triggers

    class _NoPrivateMatch:  # a compiled program as another binding might give it
        def __init__(self, form: str) -> None:
            self.form = form

        def search(self, data: bytes) -> None:
            return None

    with detect_secrets_session():
        plugins = get_plugins()
        reference = Prefilter(plugins)
        monkeypatch.setattr(triggers, "compile_re2", _NoPrivateMatch)
        triggers._linear_form.cache_clear()
        try:
            fallback = Prefilter(plugins)
        finally:
            triggers._linear_form.cache_clear()
        assert all(form is None for form in fallback._linear)
        lines = ["api_key = 'aB3_-aB3_-aB3_-aB3_-aB3_-aB3_'\n", "AKIAIOSFODNN7EXAMPLE\n", "x = 1"]
        assert fallback.candidate_lines(lines) == reference.candidate_lines(lines)
        assert fallback.candidate_lines(lines)  # the secret-shaped lines are still flagged


def test_a_files_own_text_is_searched_as_it_is_with_the_same_answer() -> None:
    """Given the lines' own text (a file's lines, each ending at its newline), the
    prefilter searches it as it is, and the keyword line check's text search replaces
    the keyword trigger and the check per line: the same lines and plugins."""
    from thresher.findings.keyword_re2 import keyword_lines

    check = keyword_lines()
    if check is None or check.text is None:
        pytest.skip("no rewritten keyword regexes, or no private Match")
    rng = random.Random(41)
    words = ["password", "Secret", "api_key", "db_pass", "=", ":", '"', "'", ";", " ", "x9Z"]
    words += ["ghp_" + "a1B2" * 9, "AKIA" + "X" * 16, "http://u:p@h", "12345678:", "'" + "ab" * 12]
    body = ["".join(rng.choice(words) for _ in range(rng.randint(0, 9))) for _ in range(2000)]
    with detect_secrets_session():
        plugins = get_plugins()
        narrower = {"KeywordDetector": check}
        prefilter = Prefilter(plugins, narrower, {"KeywordDetector": check.text})
        assert prefilter._gates  # the text search is in use
        reference = Prefilter(plugins, narrower)
        for ending in ("\n", ""):  # the last line with its newline, and without
            lines = [line + "\n" for line in body[:-1]] + [body[-1] + ending]
            text = "".join(lines)
            found = prefilter.candidate_lines(lines, text=text)
            assert found == reference.candidate_lines(lines)
            assert found == prefilter.candidate_lines(lines)  # a parser's lines: no text
            assert len({type(p) for _, chosen in found for p in chosen}) > 5
            assert sum(type(p) is KeywordDetector for _, chosen in found for p in chosen) > 100
        # Text that is not ASCII is read the other way, with the same answer.
        lines = ["caf\u00e9\n", *[line + "\n" for line in body]]
        found = prefilter.candidate_lines(lines, text="".join(lines))
        assert found == reference.candidate_lines(lines)


def test_a_shared_pass_that_cannot_tell_its_members_flags_them_all() -> None:
    """When the set of a union's members cannot answer (it did not compile, or RE2 ran
    out of memory), every member is flagged on the line: more plugins are checked there,
    and the lines kept are the same."""
    with detect_secrets_session():
        plugins = get_plugins()
        prefilter = Prefilter(plugins)
        blind = Prefilter(plugins)
        for union in blind._merged:
            union.members._set = None  # as a set that did not compile is held
        lines = [
            "key = 'AKIAIOSFODNN7EXAMPLE'\n",
            "jwt: eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLXNpZ25hdHVyZQ\n",
            "ip = 8.8.8.8 and " + "'" + "0123456789abcdef" * 3 + "'\n",
            "x = 1",
        ]
        text = "".join(lines)
        told, untold = prefilter._flag_text(text, 4), blind._flag_text(text, 4)
        assert told.keys() == untold.keys()
        assert all(told[i] < untold[i] for i in (0, 1))  # a union hit: all its members
        assert blind.candidate_lines(lines, text=text) == prefilter.candidate_lines(
            lines, text=text
        )
